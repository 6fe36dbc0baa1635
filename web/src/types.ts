// The event and snapshot shapes of shared/spec/events.md, as the page reads them.

export type Side = 'white' | 'black';
export type SquareName = string; // "e4"

interface EventBase {
  t_ms: number;
  seq: number;
}

export interface GameStarted extends EventBase {
  type: 'game_started';
  fen: string;
}
export interface PieceLifted extends EventBase {
  type: 'piece_lifted';
  square: SquareName;
  piece: string | null;
}
export interface PiecePlaced extends EventBase {
  type: 'piece_placed';
  square: SquareName;
}
export interface MoveEvent extends EventBase {
  type: 'move';
  ply: number;
  san: string;
  uci: string;
  fen: string;
  side: Side;
}
export interface MoveCompleted extends EventBase {
  type: 'move_completed';
  ply: number;
}
export interface IllegalMove extends EventBase {
  type: 'illegal_move';
  side: Side;
  completed: boolean;
  from: SquareName | null;
  to: SquareName | null;
  count: number;
  /** Extension: the Article applied ("7.4" of 2005, "7.5" of 2023). */
  article?: string;
}
export interface TouchMove extends EventBase {
  type: 'touch_move';
  side: Side;
  article: string;
  square: SquareName;
}
export interface Displaced extends EventBase {
  type: 'displaced';
  squares: SquareName[];
  expected_fen: string;
  /** Extension: lines of moves (UCI) that would explain the board. */
  candidates?: string[];
}
export interface Restored extends EventBase {
  type: 'restored';
  fen: string;
}
export interface Takeback extends EventBase {
  type: 'takeback';
  ply: number;
  fen: string;
}
export interface PromotionPending extends EventBase {
  type: 'promotion_pending';
  square: SquareName;
}
export interface ClockEvent extends EventBase {
  type: 'clock';
  white_ms: number;
  black_ms: number;
  running: Side | null;
}
export interface DrawClaimable extends EventBase {
  type: 'draw_claimable';
  reason: string;
}
export interface GameOver extends EventBase {
  type: 'game_over';
  result: string;
  reason: string;
}
export interface SensorFault extends EventBase {
  type: 'sensor_fault';
  square: SquareName;
  kind: string;
}
/** Extension: the arbiter ruled on the position (Article 7). */
export interface ArbiterDecision extends EventBase {
  type: 'arbiter_decision';
  decision: 'reinstate' | 'accept_moves';
  article?: string;
  ply?: number;
  moves?: string[];
  note?: string;
}
/** Extension: the journal cannot commit; the record goes on live, not durable. */
export interface StorageFailed extends EventBase {
  type: 'storage_failed';
  error: string;
  from_seq?: number;
}
/** Extension: the journal took every held event again. */
export interface StorageRestored extends EventBase {
  type: 'storage_restored';
  committed: number;
  lost?: number;
}
/** A type this page does not know yet (the contract may grow). */
export interface OtherEvent extends EventBase {
  type: string;
  [field: string]: unknown;
}

export type KnownEvent =
  | GameStarted
  | PieceLifted
  | PiecePlaced
  | MoveEvent
  | MoveCompleted
  | IllegalMove
  | TouchMove
  | Displaced
  | Restored
  | Takeback
  | PromotionPending
  | ClockEvent
  | DrawClaimable
  | GameOver
  | SensorFault
  | ArbiterDecision
  | StorageFailed
  | StorageRestored;

/** Any event, known to this page or not. */
export type AnyEvent = KnownEvent | OtherEvent;

export type AlertEvent =
  | IllegalMove
  | TouchMove
  | Displaced
  | PromotionPending
  | DrawClaimable
  | SensorFault
  | StorageFailed;

export const ALERT_TYPES: ReadonlySet<string> = new Set([
  'illegal_move',
  'touch_move',
  'displaced',
  'promotion_pending',
  'draw_claimable',
  'sensor_fault',
  'storage_failed',
]);

/** Event types kept in the arbiter's history besides the alerts themselves. */
export const HISTORY_TYPES: ReadonlySet<string> = new Set([
  ...ALERT_TYPES,
  'restored',
  'takeback',
  'game_over',
  'game_started',
  'storage_restored',
]);

export const KNOWN_TYPES: readonly string[] = [
  'game_started',
  'piece_lifted',
  'piece_placed',
  'move',
  'move_completed',
  'illegal_move',
  'touch_move',
  'displaced',
  'restored',
  'takeback',
  'promotion_pending',
  'clock',
  'draw_claimable',
  'game_over',
  'sensor_fault',
];

export interface MoveRecord {
  ply: number;
  san: string;
  uci: string;
  side: Side;
}

export interface ClockSnapshot {
  white_ms: number;
  black_ms: number;
  running: Side | null;
  t_ms: number;
}

/** `GET /state`. `now_ms` (game time when the snapshot was taken) and `history` are optional extensions. */
export interface StateSnapshot {
  fen: string;
  moves: MoveRecord[];
  clock: ClockSnapshot | null;
  alerts: AlertEvent[];
  profile?: string;
  result: { result: string; reason: string } | null;
  seq: number;
  white?: string;
  black?: string;
  now_ms?: number;
  history?: AnyEvent[];
  /** Optional, from the game's PGN tags when they carry them. */
  white_title?: string;
  white_elo?: number | string;
  black_title?: string;
  black_elo?: number | string;
  event?: string;
  round?: string;
  board?: string;
}
