// Words for events, shared by the display and the arbiter page.

import { piecesOf } from './model';
import type { AnyEvent, KnownEvent, Side } from './types';

const PIECE_NAMES: Record<string, string> = {
  p: 'pawn',
  n: 'knight',
  b: 'bishop',
  r: 'rook',
  q: 'queen',
  k: 'king',
};

const FIGURINES: Record<string, string> = {
  K: '♔',
  Q: '♕',
  R: '♖',
  B: '♗',
  N: '♘',
  P: '♙',
  k: '♚',
  q: '♛',
  r: '♜',
  b: '♝',
  n: '♞',
  p: '♟',
};

const REASONS: Record<string, string> = {
  checkmate: 'checkmate',
  stalemate: 'stalemate',
  dead_position: 'dead position',
  fivefold: 'fivefold repetition',
  seventy_five_moves: '75-move rule',
  flag: 'time forfeit',
  flag_unwinnable: 'flag fell, opponent cannot win',
  illegal_moves: 'illegal moves',
  resignation: 'resignation',
  agreement: 'agreement',
  threefold: 'threefold repetition',
  fifty_moves: '50-move rule',
};

export const sideName = (s: Side | string): string => (s === 'black' ? 'Black' : 'White');

export const reasonText = (r: string): string => REASONS[r] ?? r.replace(/_/g, ' ');

/** "white knight" from a FEN letter. */
export function pieceName(letter: string): string {
  const colour = letter === letter.toUpperCase() ? 'white' : 'black';
  return `${colour} ${PIECE_NAMES[letter.toLowerCase()] ?? letter}`;
}

export const figurine = (letter: string): string => FIGURINES[letter] ?? letter;

function ordinal(n: number): string {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

/** For each displaced square, the FEN letter expected there, or "" for empty. */
export function expectedOn(squares: string[], expectedFen: string): Map<string, string> {
  const pieces = piecesOf(expectedFen);
  return new Map(squares.map(sq => [sq, pieces.get(sq) ?? '']));
}

/** A headline and a detail line for an alert-like event. */
export function describe(ev: AnyEvent): { title: string; detail: string; level: 'warn' | 'error' | 'info' } {
  const e = ev as unknown as KnownEvent;
  switch (e.type) {
    case 'illegal_move': {
      const path = e.from || e.to ? `${e.from ?? '?'}→${e.to ?? '?'}` : 'unknown squares';
      return e.completed
        ? {
            title: `Illegal move completed by ${sideName(e.side)}`,
            detail: `${path} · ${ordinal(e.count)} illegal move (Art. ${e.article ?? '7.4'})`,
            level: 'error',
          }
        : {
            title: `Illegal move by ${sideName(e.side)}`,
            detail: `${path} · not completed · completed so far: ${e.count}`,
            level: 'warn',
          };
    }
    case 'touch_move':
      return {
        title: `Touch-move breach by ${sideName(e.side)}`,
        detail: `Article ${e.article} · square ${e.square}`,
        level: 'error',
      };
    case 'displaced': {
      const exp = expectedOn(e.squares, e.expected_fen);
      const parts = e.squares.map(sq => {
        const p = exp.get(sq);
        return p ? `${sq}: ${figurine(p)} ${pieceName(p)}` : `${sq}: empty`;
      });
      const lines = e.candidates ?? [];
      const explained = lines.length > 0 ? ` · or moves missed: ${lines.join(' | ')}` : '';
      return {
        title: 'Board differs from the game',
        detail: `Put back: ${parts.join(', ')}${explained}`,
        level: 'warn',
      };
    }
    case 'promotion_pending':
      return { title: `Promotion on ${e.square}`, detail: 'Place the new piece', level: 'info' };
    case 'draw_claimable':
      return { title: 'Draw can be claimed', detail: reasonText(e.reason), level: 'info' };
    case 'sensor_fault':
      return { title: `Sensor fault on ${e.square}`, detail: e.kind.replace(/_/g, ' '), level: 'error' };
    case 'storage_failed':
      return {
        title: 'Journal not saving',
        detail: `The game goes on and is kept in memory; free space or fix the disk (${e.error})`,
        level: 'error',
      };
    case 'storage_restored':
      return {
        title: 'Journal saving again',
        detail:
          (e.lost ?? 0) > 0
            ? `${e.committed} events saved late, ${e.lost} could not be kept`
            : `${e.committed} events saved late, none lost`,
        level: 'info',
      };
    case 'restored':
      return { title: 'Board restored', detail: 'The board matches the game again', level: 'info' };
    case 'takeback':
      return { title: 'Takeback', detail: e.ply === 0 ? 'to the start' : `back to ply ${e.ply}`, level: 'info' };
    case 'game_over':
      return { title: `Game over: ${e.result}`, detail: reasonText(e.reason), level: 'info' };
    case 'game_started':
      return { title: 'Game started', detail: '', level: 'info' };
    case 'arbiter_decision': {
      const article = e.article ? ` (Art. ${e.article})` : '';
      const note = e.note ? ` · “${e.note}”` : '';
      return e.decision === 'reinstate'
        ? {
            title: `Arbiter: position reinstated${article}`,
            detail: `${e.ply === 0 ? 'the start' : `after ply ${e.ply}`}${note}`,
            level: 'info',
          }
        : {
            title: 'Arbiter: moves accepted',
            detail: `${(e.moves ?? []).join(' ')}${note}`,
            level: 'info',
          };
    }
    default:
      return { title: ev.type.replace(/_/g, ' '), detail: '', level: 'info' };
  }
}
