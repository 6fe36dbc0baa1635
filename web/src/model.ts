// The page's picture of the game: a snapshot from `GET /state`, then events
// from `GET /events` applied in `seq` order. Pure: the caller passes the page
// time (performance.now()) at which each thing arrived.

import {
  HISTORY_TYPES,
  type AlertEvent,
  type AnyEvent,
  type ClockSnapshot,
  type KnownEvent,
  type MoveRecord,
  type Side,
  type StateSnapshot,
} from './types';

export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** An alert still shown, with the number of moves on record when it came. */
export interface LiveAlert {
  event: AlertEvent;
  plyAtArrival: number;
}

/**
 * One line of the arbiter's history. `wall` is the browser's clock at arrival
 * (null: from the snapshot); `ply` the plies on record when it came (null: not known).
 */
export interface HistoryEntry {
  event: AnyEvent;
  wall: number | null;
  ply: number | null;
}

/** A player as the tags give them: name, FIDE title and rating when known. */
export interface Player {
  name: string;
  title: string;
  elo: string;
}

/** Event, round and board, when the tags give them. */
export interface GameInfo {
  event: string;
  round: string;
  board: string;
}

/** A PGN tag value worth showing ("?" and "-" mean unknown). */
function tag(v: unknown): string {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  return s === '?' || s === '-' || s === '0' ? '' : s;
}

/** The move under way after `plies` plies: "3 (White)", "2 (Black)". */
export function moveLabel(plies: number): string {
  const n = Math.floor(plies / 2) + 1;
  return `${n} (${plies % 2 === 0 ? 'White' : 'Black'})`;
}

/** What the page should do with an event. */
export type Verdict = 'applied' | 'stale' | 'resync';

export class Model {
  fen = START_FEN;
  moves: MoveRecord[] = [];
  clock: ClockSnapshot | null = null;
  alerts: LiveAlert[] = [];
  history: HistoryEntry[] = [];
  result: { result: string; reason: string } | null = null;
  profile = '';
  white = 'White';
  black = 'Black';
  players: Record<Side, Player> = {
    white: { name: 'White', title: '', elo: '' },
    black: { name: 'Black', title: '', elo: '' },
  };
  info: GameInfo = { event: '', round: '', board: '' };
  /** Last applied seq; -1 before anything. */
  seq = -1;
  /** Squares whose piece is in the air. */
  lifted = new Set<string>();
  /**
   * Page time minus game time, in ms: the smallest (arrival − t_ms) seen, so a
   * live event gives the time it arrived and a late (replayed) one cannot push
   * the clocks back.
   */
  private offset: number | null = null;

  /** Replace everything with a snapshot received at page time `now`. */
  applySnapshot(s: StateSnapshot, now: number): void {
    const prevSeq = this.seq;
    this.fen = s.fen;
    this.moves = [...s.moves].sort((a, b) => a.ply - b.ply);
    this.clock = s.clock ? { ...s.clock } : null;
    this.result = s.result ?? null;
    this.profile = s.profile ?? '';
    this.white = s.white || 'White';
    this.black = s.black || 'Black';
    this.players = {
      white: { name: this.white, title: tag(s.white_title), elo: tag(s.white_elo) },
      black: { name: this.black, title: tag(s.black_title), elo: tag(s.black_elo) },
    };
    this.info = { event: tag(s.event), round: tag(s.round), board: tag(s.board) };
    this.seq = s.seq;
    this.lifted.clear();
    this.alerts = (s.alerts ?? []).map(event => ({ event, plyAtArrival: this.plies() }));
    if (s.seq < prevSeq) this.history = []; // a new game since the last look
    // What this page saw arrive (wall clock, move number) outlives a resync.
    const seen = new Map(this.history.map(h => [`${h.event.seq}:${h.event.type}`, h]));
    if (s.history)
      this.history = s.history.map(event => {
        const h = seen.get(`${event.seq}:${event.type}`);
        return { event, wall: h?.wall ?? null, ply: h?.ply ?? knownPly(event) };
      });
    else if (this.history.length === 0)
      this.history = this.alerts.map(a => ({ event: a.event, wall: null, ply: knownPly(a.event) }));
    // Game time "now": as the daemon says, else the clock's own stamp.
    const gameNow = s.now_ms ?? s.clock?.t_ms;
    this.offset = gameNow === undefined ? null : now - gameNow;
  }

  /** Whether an event with this seq and type follows what the page holds. */
  verdict(ev: AnyEvent): Verdict {
    if (ev.seq === this.seq + 1) return 'applied';
    if (ev.seq <= this.seq) return ev.type === 'game_started' && ev.seq === 0 && this.seq > 0 ? 'resync' : 'stale';
    return 'resync'; // a gap: something was missed
  }

  /** Apply one event (in seq order) that arrived at page time `now`; `wall` is Date.now(). */
  apply(ev: AnyEvent, now: number, wall: number): void {
    this.seq = ev.seq;
    if (ev.type === 'game_started') this.offset = null;
    const seen = now - ev.t_ms;
    if (this.offset === null || seen < this.offset) this.offset = seen;
    if (HISTORY_TYPES.has(ev.type)) this.history.push({ event: ev, wall, ply: knownPly(ev) ?? this.plies() });
    const e = ev as unknown as KnownEvent;
    switch (e.type) {
      case 'game_started':
        this.fen = e.fen;
        this.moves = [];
        this.clock = null;
        // A journal's outage outlasts the game it began in.
        this.alerts = this.alerts.filter(a => a.event.type === 'storage_failed');
        this.result = null;
        this.lifted.clear();
        this.history = [{ event: ev, wall, ply: 0 }];
        break;
      case 'piece_lifted':
        this.lifted.add(e.square);
        break;
      case 'piece_placed':
        this.lifted.delete(e.square);
        break;
      case 'move':
        this.moves = this.moves.filter(m => m.ply < e.ply);
        this.moves.push({ ply: e.ply, san: e.san, uci: e.uci, side: e.side });
        this.fen = e.fen;
        this.lifted.clear();
        // The board now shows a legal position: what it contradicted is gone.
        this.dropAlerts(
          a =>
            a.event.type === 'displaced' ||
            a.event.type === 'promotion_pending' ||
            a.event.type === 'draw_claimable' ||
            (a.event.type === 'illegal_move' && !a.event.completed) ||
            // Notices stay while the opponent replies, then go.
            e.ply >= a.plyAtArrival + 2,
          ['sensor_fault', 'storage_failed'],
        );
        break;
      case 'restored':
        this.fen = e.fen;
        this.lifted.clear();
        this.dropAlerts(
          a =>
            a.event.type === 'displaced' ||
            a.event.type === 'promotion_pending' ||
            (a.event.type === 'illegal_move' && !a.event.completed),
        );
        break;
      case 'takeback':
        this.moves = this.moves.filter(m => m.ply <= e.ply);
        this.fen = e.fen;
        this.lifted.clear();
        this.dropAlerts(() => true, ['sensor_fault', 'storage_failed']);
        break;
      case 'clock':
        this.clock = { white_ms: e.white_ms, black_ms: e.black_ms, running: e.running, t_ms: e.t_ms };
        break;
      case 'game_over':
        this.result = { result: e.result, reason: e.reason };
        if (this.clock) {
          // The clocks stop when the game ends, whatever comes after.
          this.clock = {
            white_ms: this.remainingAtGameTime('white', e.t_ms),
            black_ms: this.remainingAtGameTime('black', e.t_ms),
            running: null,
            t_ms: e.t_ms,
          };
        }
        this.dropAlerts(a => a.event.type === 'draw_claimable' || a.event.type === 'promotion_pending');
        break;
      case 'illegal_move':
        // A new warning replaces the earlier one; completed ones are counted, one per side.
        this.dropAlerts(
          a =>
            a.event.type === 'illegal_move' &&
            (!a.event.completed || (e.completed && a.event.side === e.side)),
        );
        this.addAlert(e);
        break;
      case 'displaced':
        this.dropAlerts(a => a.event.type === 'displaced');
        this.addAlert(e);
        break;
      case 'promotion_pending':
        this.dropAlerts(a => a.event.type === 'promotion_pending');
        this.addAlert(e);
        break;
      case 'draw_claimable':
        this.dropAlerts(a => a.event.type === 'draw_claimable' && a.event.reason === e.reason);
        this.addAlert(e);
        break;
      case 'sensor_fault':
        this.dropAlerts(a => a.event.type === 'sensor_fault' && a.event.square === e.square);
        this.addAlert(e);
        break;
      case 'touch_move':
        this.addAlert(e);
        break;
      case 'storage_failed':
        this.dropAlerts(a => a.event.type === 'storage_failed');
        this.addAlert(e);
        break;
      case 'storage_restored':
        this.dropAlerts(a => a.event.type === 'storage_failed');
        break;
      default:
        // move_completed and types added later change nothing shown.
        break;
    }
  }

  plies(): number {
    return this.moves.length === 0 ? 0 : this.moves[this.moves.length - 1].ply;
  }

  lastMove(): MoveRecord | null {
    return this.moves.length === 0 ? null : this.moves[this.moves.length - 1];
  }

  /** The game time that page time `now` corresponds to, if known. */
  gameTime(now: number): number | null {
    return this.offset === null ? null : now - this.offset;
  }

  /** Time left for `side` at page time `now`. */
  remaining(side: Side, now: number): number | null {
    if (!this.clock) return null;
    const t = this.gameTime(now);
    return this.remainingAtGameTime(side, t ?? this.clock.t_ms);
  }

  displaced(): { squares: string[]; expected_fen: string } | null {
    for (const a of this.alerts) if (a.event.type === 'displaced') return a.event;
    return null;
  }

  private remainingAtGameTime(side: Side, t: number): number {
    const c = this.clock!;
    const base = side === 'white' ? c.white_ms : c.black_ms;
    if (c.running !== side) return base;
    return Math.max(0, base - Math.max(0, t - c.t_ms));
  }

  private addAlert(e: AlertEvent): void {
    this.alerts.push({ event: e, plyAtArrival: this.plies() });
  }

  private dropAlerts(drop: (a: LiveAlert) => boolean, keep: string[] = []): void {
    this.alerts = this.alerts.filter(a => keep.includes(a.event.type) || !drop(a));
  }
}

/** The plies on record at an event, when the event itself tells. */
function knownPly(ev: AnyEvent): number | null {
  if (ev.type === 'game_started') return 0;
  if (ev.type === 'takeback' && typeof ev.ply === 'number') return ev.ply;
  return null;
}

/** Pieces of a FEN's board field, by square name. */
export function piecesOf(fen: string): Map<string, string> {
  const out = new Map<string, string>();
  const rows = fen.split(' ')[0].split('/');
  rows.forEach((row, i) => {
    const rank = 8 - i;
    let file = 0;
    for (const ch of row) {
      if (ch >= '1' && ch <= '9') file += Number(ch);
      else if (/[pnbrqk]/i.test(ch)) {
        out.set(`${'abcdefgh'[file]}${rank}`, ch);
        file++;
      }
    }
  });
  return out;
}

/** `m:ss` from 20 s up (`h:mm:ss` from an hour), `s.t` below. */
export function formatClock(ms: number): string {
  const clamped = Math.max(0, ms);
  if (clamped < 20_000) {
    const tenths = Math.floor(clamped / 100);
    return `${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const total = Math.floor(clamped / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** Game time as `h:mm:ss` (or `m:ss`). */
export function formatGameTime(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
