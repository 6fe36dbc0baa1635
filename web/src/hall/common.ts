// Helpers shared by the dashboard and the board page.

import type { BoardSummary, Clock, HallAlert, Side } from './types';

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

/** Hall time minus browser time, from the last message's `now_ms`. */
let skew = 0;
export function setServerNow(nowMs: number): void {
  skew = nowMs - Date.now();
}
export function hallNow(): number {
  return Date.now() + skew;
}

/** Remaining time of `side`, run down from when the values held. */
export function remaining(b: BoardSummary, side: Side): number | null {
  const c: Clock | null = b.clock;
  if (!c) return null;
  let ms = side === 'white' ? c.white_ms : c.black_ms;
  if (c.running === side && !b.result && c.at_ms !== undefined && b.status !== 'offline')
    ms -= Math.max(0, hallNow() - c.at_ms);
  return Math.max(0, ms);
}

export function formatClock(ms: number | null): string {
  if (ms === null) return '–:––';
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

export function timeOfDay(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

const NAMES: Record<string, string> = {
  illegal_move: 'Illegal move',
  touch_move: 'Touch-move breach',
  displaced: 'Displaced pieces',
  sensor_fault: 'Sensor fault',
  offline: 'Board offline',
  promotion_pending: 'Promotion pending',
  draw_claimable: 'Draw claimable',
  storage_failed: 'Journal not saving',
  bad_messages: 'Bad messages from the board',
};

export function alertTitle(type: string): string {
  return NAMES[type] ?? type.replace(/_/g, ' ');
}

/** The alert's own title: a completed illegal move is told from a warning. */
export function alertHeadline(a: HallAlert): string {
  if (a.type === 'illegal_move') return a.event?.completed ? 'Illegal move completed' : 'Illegal move (not completed)';
  return alertTitle(a.type);
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** One line on what the alert says, in plain words. */
export function alertDetail(a: HallAlert): string {
  const e = a.event as Record<string, unknown> | null;
  if (!e) return a.active ? 'no word from the board' : 'back online';
  const str = (k: string) => (typeof e[k] === 'string' ? (e[k] as string) : '');
  switch (a.type) {
    case 'illegal_move': {
      const from = str('from');
      const to = str('to');
      const art = str('article') || '7.4';
      const where = from || to ? ` ${from || '?'}→${to || '?'}` : '';
      const done = e.completed
        ? `clock pressed; illegal move no. ${String(e.count ?? '?')} of ${cap(str('side')) || 'this side'}`
        : 'not completed yet, the player may still correct it';
      return `${cap(str('side'))}${where}: ${done} (Article ${art})`;
    }
    case 'touch_move':
      return `${cap(str('side'))} touched the piece on ${str('square')} and did not move it (Article ${str('article')})`;
    case 'displaced':
      return `Wrong squares: ${Array.isArray(e.squares) ? (e.squares as string[]).join(' ') : '?'}`;
    case 'sensor_fault':
      return `Square ${str('square')} looks broken (${str('kind')})`;
    case 'storage_failed':
      return `The board plays on, its record held in memory: ${str('error')}`;
    case 'bad_messages':
      return `${String(e.rejected ?? '?')} messages refused; the last: ${str('reason')} (${str('message')})`;
    default:
      return '';
  }
}

const RESOLVED: Record<string, string> = {
  restored: 'the board is right again',
  superseded: 'replaced by a newer report',
  new_game: 'a new game began',
  online: 'the board is back online',
  storage_restored: 'the journal saves again',
};

/** How an alert left the queue. */
export function closedText(a: HallAlert): string {
  if (a.resolved_by) return `resolved: ${RESOLVED[a.resolved_by] ?? a.resolved_by}`;
  if (a.acknowledged) return 'acknowledged';
  return '';
}

/** The squares an alert is about (drawn on the boards). */
export function alertSquares(a: HallAlert | null): { squares: string[]; from: string | null; to: string | null } {
  const e = a?.event as Record<string, unknown> | null | undefined;
  const none = { squares: [], from: null, to: null };
  if (!a || !e) return none;
  const sq = (k: string) => (typeof e[k] === 'string' ? (e[k] as string) : null);
  switch (a.type) {
    case 'illegal_move': {
      const from = sq('from');
      const to = sq('to');
      return { squares: [from, to].filter((s): s is string => !!s), from, to };
    }
    case 'touch_move':
    case 'sensor_fault': {
      const s = sq('square');
      return { squares: s ? [s] : [], from: null, to: null };
    }
    case 'displaced':
      return { squares: Array.isArray(e.squares) ? (e.squares as string[]) : [], from: null, to: null };
    default:
      return none;
  }
}

/** A line of the board's history, in plain words (no raw event names). */
export function historyText(h: Record<string, unknown>): string {
  const str = (k: string) => (typeof h[k] === 'string' ? (h[k] as string) : '');
  const moveNo = (ply: unknown) => (typeof ply === 'number' ? Math.ceil(ply / 2) : '?');
  switch (h.type) {
    case 'game_started':
      return 'Game started';
    case 'illegal_move':
    case 'touch_move':
    case 'displaced':
    case 'sensor_fault':
    case 'storage_failed': {
      const a = { type: String(h.type), event: h, active: true } as unknown as HallAlert;
      return `${alertHeadline(a)}: ${alertDetail(a)}`;
    }
    case 'restored':
      return 'The board matches the game again';
    case 'takeback':
      return h.ply === 0 ? 'Moves taken back to the start' : `Moves taken back to move ${moveNo(h.ply)}`;
    case 'promotion_pending':
      return `A pawn reached ${str('square')}: waiting for the new piece`;
    case 'draw_claimable':
      return `A draw can be claimed (${str('reason') === 'threefold' ? 'threefold repetition, Article 9.2' : 'fifty moves, Article 9.3'})`;
    case 'game_over':
      return `Game over: ${str('result')} (${str('reason').replace(/_/g, ' ')})`;
    case 'arbiter_decision':
      return str('decision') === 'reinstate'
        ? `Arbiter ruled: position after move ${moveNo(h.ply)} reinstated${str('article') ? ` (Article ${str('article')})` : ''}`
        : 'Arbiter ruled: moves the sensors missed accepted';
    case 'storage_restored':
      return 'The journal saves again';
    default:
      return cap(String(h.type ?? '').replace(/_/g, ' '));
  }
}

export function lastMoveText(b: BoardSummary): string {
  const m = b.last_move;
  if (!m) return 'no move yet';
  const n = Math.ceil(m.ply / 2);
  return m.side === 'white' ? `${n}. ${m.san}` : `${n}… ${m.san}`;
}

/** The bearer token the arbiter typed once (kept in this browser). */
const TOKEN_KEY = 'touchmove-hall-token';
export function token(ask: boolean): string | null {
  let t = localStorage.getItem(TOKEN_KEY);
  if (!t && ask) {
    t = prompt('Control token (the hall\'s --token-file):');
    if (t) localStorage.setItem(TOKEN_KEY, t.trim());
  }
  return t;
}

/** POST /api/<command>; returns an error sentence or null. */
export async function control(base: URL, command: string, body: unknown): Promise<string | null> {
  const t = token(true);
  if (!t) return 'no token given';
  const res = await fetch(new URL(`api/${command}`, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t}` },
    body: JSON.stringify(body),
  });
  if (res.ok) return null;
  if (res.status === 401) localStorage.removeItem(TOKEN_KEY);
  const text = await res.text();
  try {
    return (JSON.parse(text) as { error?: string }).error ?? text;
  } catch {
    return text;
  }
}
