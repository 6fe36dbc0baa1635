// What the hall serves (src/hall/http.rs, src/hall/registry.rs).

export type Side = 'white' | 'black';

export interface HallAlert {
  id: number;
  board: string;
  /** The event's `type`, or `offline`. */
  type: string;
  game: number | null;
  seq: number | null;
  event: Record<string, unknown> | null;
  first_seen_ms: number;
  board_wall_ms: number | null;
  acknowledged: boolean;
  /** The board still shows it (or is still offline). */
  active: boolean;
}

export interface Clock {
  white_ms: number;
  black_ms: number;
  running: Side | null;
  t_ms: number;
  /** Hall wall time (UNIX ms) when these values held. */
  at_ms?: number;
}

export interface MoveRecord {
  ply: number;
  san: string;
  uci: string;
  side: Side;
}

export interface Stats {
  events: number;
  duplicates: number;
  stale: number;
  gaps: number;
  replays: number;
  last_latency_ms: number | null;
  max_latency_ms: number | null;
}

export interface BoardSummary {
  id: string;
  status: 'online' | 'offline' | 'unknown';
  last_seen_ms: number;
  source: 'events' | 'state' | 'none';
  game: number | null;
  seq: number | null;
  fen: string | null;
  white: string | null;
  black: string | null;
  plies: number;
  last_move: MoveRecord | null;
  clock: Clock | null;
  result: { result: string; reason: string } | null;
  pending: Record<string, unknown>[] | null;
  open_alerts: number;
  alerts: HallAlert[];
  stats: Stats;
  gap: boolean;
  // Full view only.
  moves?: MoveRecord[] | null;
  history?: Record<string, unknown>[] | null;
  missing?: number[];
  has_pgn?: boolean;
}

export interface Fault {
  at_ms: number;
  topic: string;
  message: string;
}

export interface HallSnapshot {
  hall: string;
  now_ms: number;
  boards: BoardSummary[];
  alerts: HallAlert[];
  faults: Fault[];
  fault_count: number;
  connected: boolean;
}
