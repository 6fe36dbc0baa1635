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
  /** 0 (a completed illegal move) … 6 (notices): the queue's order. */
  severity: number;
  severity_label: string;
  /** Neither acknowledged nor resolved by the board: in the arbiter's queue. */
  open: boolean;
  /** When the board resolved it by itself, and how (`restored`, `superseded`, `new_game`, `online`, `storage_restored`). */
  resolved_ms: number | null;
  resolved_by: string | null;
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
  /** The worst open alert (severity, then age). */
  worst: HallAlert | null;
  /** Open alerts by severity then age, then the last few closed. */
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
  /** The last alerts closed (resolved by the board or acknowledged), newest first. */
  closed: HallAlert[];
  faults: Fault[];
  fault_count: number;
  connected: boolean;
}

/** `GET /push.json`: the round's push to a broadcast service. */
export interface PushStatus {
  enabled: boolean;
  rounds?: PushRound[];
}

export interface PushRound {
  round: string;
  boards: string[];
  last_success_wall_ms: number | null;
  last_attempt_wall_ms: number | null;
  last_error: string | null;
  retry_at_wall_ms: number | null;
  pushes: number;
  games: { board: string; white: string; black: string; moves: number | null; error: string | null }[];
}
