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

/** "none yet", "1 so far", "2 so far": illegal moves a side has completed. */
function completedSoFar(count: number): string {
  return count === 0 ? 'none completed yet' : `${count} completed so far`;
}

/** "the piece on b8 had to be moved" for the sub-rules of Article 4.3 and 4.4. */
function touchDuty(article: string, square: string): string {
  if (article.startsWith('4.3b') || article.startsWith('4.3.2')) return `the opponent's piece on ${square} had to be captured`;
  if (article.startsWith('4.3c') || article.startsWith('4.3.3')) return `the pieces touched (${square}) had to be moved or captured`;
  return `the piece on ${square} had to be moved`;
}

/** What the arbiter reads about a displaced board: each square, what belongs there. */
function displacedSquares(squares: string[], expectedFen: string): string {
  const exp = expectedOn(squares, expectedFen);
  return squares
    .map(sq => {
      const p = exp.get(sq);
      return p ? `${sq}: the ${pieceName(p)} ${figurine(p)} is missing` : `${sq} should be empty`;
    })
    .join(' · ');
}

/**
 * A headline and a detail line for an alert-like event, for the arbiter:
 * what happened, to whom, on which squares, under which Article (FIDE Laws).
 */
export function describe(ev: AnyEvent): { title: string; detail: string; level: 'warn' | 'error' | 'info' } {
  const e = ev as unknown as KnownEvent;
  switch (e.type) {
    case 'illegal_move': {
      const path = e.from || e.to ? `${e.from ?? '?'}→${e.to ?? '?'}` : 'squares unknown';
      return e.completed
        ? {
            title: `Illegal move completed by ${sideName(e.side)}`,
            detail: `${path} · ${ordinal(e.count)} illegal move by ${sideName(e.side)} · Article ${e.article ?? '7.4'}: the position before it is reinstated`,
            level: 'error',
          }
        : {
            title: `Illegal move by ${sideName(e.side)}, clock not pressed`,
            detail: `${path} · illegal moves by ${sideName(e.side)}: ${completedSoFar(e.count)}`,
            level: 'warn',
          };
    }
    case 'touch_move':
      return {
        title: `Touch-move breach by ${sideName(e.side)}`,
        detail: `Article ${e.article}: ${touchDuty(e.article, e.square)}`,
        level: 'error',
      };
    case 'displaced': {
      const lines = e.candidates ?? [];
      const explained = lines.length > 0 ? ` · or moves the sensors missed: ${lines.join(' | ')}` : '';
      return {
        title: 'Board differs from the game',
        detail: `Article 7.3: the position is set up again · ${displacedSquares(e.squares, e.expected_fen)}${explained}`,
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

/** What the players' display shows for an alert: plain words, no Article, no blame. */
export interface PlayerNotice {
  title: string;
  detail: string;
  level: 'warn' | 'error' | 'info';
  /** Goes on the board as a banner: the players must do something, or wait for the arbiter. */
  banner: boolean;
  /** Lower comes first. */
  rank: number;
}

const list = (items: string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * The players' words for an alert, or null for what only the arbiter needs.
 * `fen` is the game position (it names the piece of an illegal try). What the
 * arbiter rules on (a completed illegal move, a touch-move breach) reads
 * "Arbiter called" here; the details are on the arbiter's page.
 */
export function forPlayers(ev: AnyEvent, fen: string): PlayerNotice | null {
  const e = ev as unknown as KnownEvent;
  switch (e.type) {
    case 'displaced': {
      const exp = expectedOn(e.squares, e.expected_fen);
      const back = e.squares.filter(sq => exp.get(sq)).map(sq => `the ${pieceName(exp.get(sq)!)} back on ${sq}`);
      const empty = e.squares.filter(sq => !exp.get(sq));
      return {
        title: back.length > 0 ? `Put ${list(back)}` : `Take the piece off ${list(empty)}`,
        detail: back.length > 0 && empty.length > 0 ? `Nothing should stand on ${list(empty)}` : 'The board differs from the game',
        level: 'warn',
        banner: true,
        rank: 0,
      };
    }
    case 'illegal_move': {
      if (e.completed)
        return { title: 'Arbiter called', detail: 'Please wait for the arbiter', level: 'error', banner: true, rank: 1 };
      const piece = e.from ? piecesOf(fen).get(e.from) : undefined;
      return {
        title: 'Not a legal move',
        detail: e.from ? `Put the ${piece ? pieceName(piece) : 'piece'} back on ${e.from}` : 'Put the piece back',
        level: 'warn',
        banner: true,
        rank: 2,
      };
    }
    case 'touch_move':
      return { title: 'Arbiter called', detail: 'Please wait for the arbiter', level: 'error', banner: true, rank: 1 };
    case 'promotion_pending':
      return {
        title: `Promotion on ${e.square}`,
        detail: `Put the new piece on ${e.square}`,
        level: 'info',
        banner: true,
        rank: 3,
      };
    case 'sensor_fault':
      return {
        title: `Board sensor fault on ${e.square}`,
        detail: 'Play on; the arbiter has been told',
        level: 'info',
        banner: false,
        rank: 5,
      };
    case 'storage_failed':
      return {
        title: 'The game record is not being saved',
        detail: 'Play on; the arbiter has been told',
        level: 'info',
        banner: false,
        rank: 6,
      };
    default:
      // A draw that can be claimed is the players' own business (Article 9.2):
      // the arbiter's page shows it, the players' screen does not.
      return null;
  }
}
