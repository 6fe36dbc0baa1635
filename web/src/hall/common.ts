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
  return NAMES[type] ?? type;
}

/** One line on what the alert says. */
export function alertDetail(a: HallAlert): string {
  const e = a.event as Record<string, unknown> | null;
  if (!e) return a.active ? 'no word from the board' : 'back online';
  const str = (k: string) => (typeof e[k] === 'string' ? (e[k] as string) : '');
  switch (a.type) {
    case 'illegal_move': {
      const from = str('from');
      const to = str('to');
      const art = str('article') || '7.4';
      const done = e.completed ? `completed (${e.count ?? '?'} so far)` : 'not completed';
      return `${str('side')} ${from}${from || to ? '→' : ''}${to}, ${done}, art. ${art}`;
    }
    case 'touch_move':
      return `${str('side')} touched ${str('square')}, art. ${str('article')}`;
    case 'displaced':
      return `squares ${Array.isArray(e.squares) ? (e.squares as string[]).join(' ') : ''}`;
    case 'sensor_fault':
      return `${str('square')}: ${str('kind')}`;
    case 'storage_failed':
      return `the board plays on, its record held in memory: ${str('error')}`;
    case 'bad_messages':
      return `${e.rejected ?? '?'} refused, last: ${str('reason')} (${str('message')})`;
    default:
      return '';
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
