// A board for the dashboard's cards: the position, the last move and an
// alert's squares, drawn with chessground's board and piece images but
// laid out as an 8×8 CSS grid. Written by hand because chessground places
// each piece with its own transform and compositing layer: with dozens of
// boards in view the page spent most of its main-thread time building
// layers on each frame. The mini boards are view-only and never animate.

import { el } from './common';

const NAMES: Record<string, string> = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };

/** Grid row and column (1-based, White at the bottom) of a square such as `e4`. */
function cell(square: string): [number, number] | null {
  const file = square.charCodeAt(0) - 96;
  const rank = Number(square[1]);
  if (!(file >= 1 && file <= 8 && rank >= 1 && rank <= 8)) return null;
  return [9 - rank, file];
}

export class MiniBoard {
  readonly root: HTMLElement;
  private readonly board: HTMLElement;
  private key = '';

  constructor() {
    this.board = el('cg-board' as 'div', { class: 'h-minigrid' });
    this.root = el('div', { class: 'cg-wrap h-miniboard' }, this.board);
  }

  /** Draws `fen` with the `lastMove` (uci) and the `marks` squares; nothing if unchanged. */
  set(fen: string | null, lastMove: string | undefined, marks: string[]): void {
    const key = `${fen}|${lastMove ?? ''}|${marks.join(',')}`;
    if (key === this.key) return;
    this.key = key;
    const parts: string[] = [];
    const square = (sq: string, cls: string) => {
      const at = cell(sq);
      if (at) parts.push(`<square class="${cls}" style="grid-area:${at[0]}/${at[1]}"></square>`);
    };
    if (lastMove) {
      square(lastMove.slice(0, 2), 'last-move');
      square(lastMove.slice(2, 4), 'last-move');
    }
    for (const m of marks) square(m, 'h-mark');
    const rows = (fen ?? '').split(' ')[0].split('/');
    rows.slice(0, 8).forEach((row, r) => {
      let c = 1;
      for (const ch of row) {
        if (ch >= '1' && ch <= '8') c += Number(ch);
        else {
          const name = NAMES[ch.toLowerCase()];
          if (name && c <= 8)
            parts.push(`<piece class="${ch === ch.toLowerCase() ? 'black' : 'white'} ${name}" style="grid-area:${r + 1}/${c}"></piece>`);
          c++;
        }
      }
    });
    // Built from the FEN's letters and square names only (checked above).
    this.board.innerHTML = parts.join('');
  }
}
