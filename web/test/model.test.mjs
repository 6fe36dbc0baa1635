// Unit tests of the page's game model (src/model.ts, bundled on the fly).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
let M;

before(async () => {
  const out = await build({
    entryPoints: [join(here, '..', 'src', 'model.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
  });
  M = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
});

const FEN0 = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const FEN1 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
const FEN2 = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';

const snap = (over = {}) => ({
  fen: FEN0,
  moves: [],
  clock: null,
  alerts: [],
  profile: 'fide-standard',
  result: null,
  seq: 4,
  white: 'A',
  black: 'B',
  ...over,
});
let seq;
const model = (over = {}, now = 0) => {
  const m = new M.Model();
  m.applySnapshot(snap(over), now);
  seq = m.seq;
  return m;
};
const ev = (type, t_ms, fields = {}) => ({ type, t_ms, seq: ++seq, ...fields });
const move = (ply, san, uci, fen, t) => ev('move', t, { ply, san, uci, fen, side: ply % 2 ? 'white' : 'black' });

test('events are taken in seq order: the next is applied, old ones dropped, a gap or a new game asks for /state', () => {
  const m = model();
  assert.equal(m.verdict({ type: 'move', seq: 5, t_ms: 0 }), 'applied');
  assert.equal(m.verdict({ type: 'move', seq: 4, t_ms: 0 }), 'stale');
  assert.equal(m.verdict({ type: 'move', seq: 7, t_ms: 0 }), 'resync');
  assert.equal(m.verdict({ type: 'game_started', seq: 0, t_ms: 0 }), 'resync');
});

test('moves build the list and the position; a takeback truncates it', () => {
  const m = model();
  m.apply(move(1, 'e4', 'e2e4', FEN1, 10), 10, 0);
  m.apply(move(2, 'e5', 'e7e5', FEN2, 20), 20, 0);
  assert.deepEqual(
    m.moves.map(x => x.san),
    ['e4', 'e5'],
  );
  assert.equal(m.fen, FEN2);
  assert.equal(m.lastMove().uci, 'e7e5');
  m.apply(ev('takeback', 30, { ply: 1, fen: FEN1 }), 30, 0);
  assert.deepEqual(
    m.moves.map(x => x.san),
    ['e4'],
  );
  assert.equal(m.fen, FEN1);
});

test('the running clock runs down from the moment its event arrived; the other stands', () => {
  const m = model({}, 1000);
  // Game time 5000 arrives at page time 6000.
  m.apply(ev('clock', 5000, { white_ms: 60_000, black_ms: 50_000, running: 'white' }), 6000, 0);
  assert.equal(m.remaining('white', 6000), 60_000);
  assert.equal(m.remaining('white', 7500), 58_500);
  assert.equal(m.remaining('black', 7500), 50_000);
  assert.equal(m.remaining('white', 6000 + 70_000), 0, 'never below zero');
});

test('an event replayed late (after a reconnect) does not wind the clock back', () => {
  const m = model({}, 0);
  m.apply(ev('clock', 1000, { white_ms: 60_000, black_ms: 60_000, running: 'black' }), 1000, 0);
  // Delivered 4 s late: it still counts from its own game time.
  m.apply(ev('clock', 2000, { white_ms: 60_000, black_ms: 59_000, running: 'black' }), 6000, 0);
  assert.equal(m.remaining('black', 6000), 55_000);
});

test('the snapshot clock is read at its now_ms', () => {
  const m = model({ clock: { white_ms: 10_000, black_ms: 9_000, running: 'black', t_ms: 1000 }, now_ms: 4000 }, 500);
  assert.equal(m.remaining('black', 500), 6000);
  assert.equal(m.remaining('black', 1500), 5000);
  assert.equal(m.remaining('white', 1500), 10_000);
});

test('displaced is replaced while it changes and cleared by restored', () => {
  const m = model();
  m.apply(ev('displaced', 1, { squares: ['h7'], expected_fen: FEN0 }), 1, 0);
  m.apply(ev('displaced', 2, { squares: ['h7', 'h6'], expected_fen: FEN0 }), 2, 0);
  assert.deepEqual(m.displaced().squares, ['h7', 'h6']);
  assert.equal(m.alerts.length, 1);
  m.apply(ev('restored', 3, { fen: FEN0 }), 3, 0);
  assert.equal(m.displaced(), null);
});

test('an illegal-move warning goes with the next move; a completed one stays until the opponent has replied', () => {
  const m = model();
  m.apply(ev('illegal_move', 1, { side: 'white', completed: false, from: 'e2', to: 'e5', count: 0 }), 1, 0);
  m.apply(move(1, 'e4', 'e2e4', FEN1, 2), 2, 0);
  assert.equal(m.alerts.length, 0);
  m.apply(ev('illegal_move', 3, { side: 'black', completed: true, from: 'e7', to: 'e4', count: 1 }), 3, 0);
  m.apply(ev('sensor_fault', 3, { square: 'a4', kind: 'stuck' }), 3, 0);
  m.apply(move(2, 'e5', 'e7e5', FEN2, 4), 4, 0);
  assert.deepEqual(
    m.alerts.map(a => a.event.type),
    ['illegal_move', 'sensor_fault'],
  );
  m.apply(move(3, 'Nf3', 'g1f3', FEN2, 5), 5, 0);
  assert.deepEqual(
    m.alerts.map(a => a.event.type),
    ['sensor_fault'],
    'sensor faults stay',
  );
});

test('game over stops the clocks where they stood', () => {
  const m = model({}, 0);
  m.apply(ev('clock', 0, { white_ms: 10_000, black_ms: 10_000, running: 'white' }), 0, 0);
  m.apply(ev('game_over', 3000, { result: '0-1', reason: 'resignation' }), 3000, 0);
  assert.equal(m.remaining('white', 9000), 7000);
  assert.deepEqual(m.result, { result: '0-1', reason: 'resignation' });
});

test('a new game clears the record and the alerts', () => {
  const m = model({ moves: [{ ply: 1, san: 'e4', uci: 'e2e4', side: 'white' }], fen: FEN1 });
  m.apply(ev('displaced', 1, { squares: ['a2'], expected_fen: FEN1 }), 1, 0);
  m.apply(ev('game_started', 0, { fen: FEN0 }), 9, 0);
  assert.equal(m.moves.length, 0);
  assert.equal(m.alerts.length, 0);
  assert.equal(m.fen, FEN0);
});

test('clock digits', () => {
  assert.equal(M.formatClock(300_000), '5:00');
  assert.equal(M.formatClock(3_725_000), '1:02:05');
  assert.equal(M.formatClock(19_950), '19.9');
  assert.equal(M.formatClock(-5), '0.0');
  assert.equal(M.formatGameTime(61_000), '1:01');
});

test('piecesOf reads a FEN board', () => {
  const p = M.piecesOf(FEN1);
  assert.equal(p.get('e4'), 'P');
  assert.equal(p.get('e2'), undefined);
  assert.equal(p.get('e8'), 'k');
  assert.equal(p.size, 32);
});

test('arbiter rulings and missed-move candidates are described for the arbiter', async () => {
  const out = await build({
    entryPoints: [join(here, '..', 'src', 'describe.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
  });
  const D = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
  const reinstated = D.describe({
    type: 'arbiter_decision', t_ms: 0, seq: 9, decision: 'reinstate', article: '7.5.1', ply: 12, note: 'found late',
  });
  assert.equal(reinstated.title, 'Arbiter: position reinstated (Art. 7.5.1)');
  assert.match(reinstated.detail, /after ply 12 · “found late”/);
  const accepted = D.describe({ type: 'arbiter_decision', t_ms: 0, seq: 9, decision: 'accept_moves', moves: ['e7e8r', 'a2b2'] });
  assert.equal(accepted.detail, 'e7e8r a2b2');
  const displaced = D.describe({
    type: 'displaced', t_ms: 0, seq: 3, squares: ['e7', 'e8'], expected_fen: '8/4P3/8/8/8/8/k7/4K3 w - - 0 1',
    candidates: ['e7e8q a2b2', 'e7e8r a2b2'],
  });
  assert.equal(
    displaced.detail,
    'Article 7.3: the position is set up again · e7: the white pawn ♙ is missing · e8 should be empty · or moves the sensors missed: e7e8q a2b2 | e7e8r a2b2',
  );
  const illegal = D.describe({
    type: 'illegal_move', t_ms: 0, seq: 4, side: 'white', completed: true, from: 'e2', to: 'e5', count: 1, article: '7.5',
  });
  assert.match(illegal.detail, /1st illegal move by White · Article 7\.5: the position before it is reinstated/);
  const warning = D.describe({
    type: 'illegal_move', t_ms: 0, seq: 4, side: 'black', completed: false, from: 'd7', to: 'd4', count: 0,
  });
  assert.equal(warning.detail, 'd7→d4 · illegal moves by Black: none completed yet');
  const touch = D.describe({ type: 'touch_move', t_ms: 0, seq: 5, side: 'black', article: '4.3b', square: 'c3' });
  assert.equal(touch.detail, "Article 4.3b: the opponent's piece on c3 had to be captured");
});

test('the players read what to do in plain words, and "Arbiter called" for what the arbiter rules on', async () => {
  const out = await build({
    entryPoints: [join(here, '..', 'src', 'describe.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
  });
  const D = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
  const FEN = 'r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2';
  const displaced = D.forPlayers({ type: 'displaced', t_ms: 0, seq: 3, squares: ['a8', 'a6'], expected_fen: FEN }, FEN);
  assert.equal(displaced.title, 'Put the black rook back on a8');
  assert.equal(displaced.detail, 'Nothing should stand on a6');
  assert.ok(displaced.banner);
  const two = D.forPlayers({ type: 'displaced', t_ms: 0, seq: 3, squares: ['a8', 'h8', 'h6'], expected_fen: FEN }, FEN);
  assert.equal(two.title, 'Put the black rook back on a8 and the black rook back on h8');
  const extra = D.forPlayers({ type: 'displaced', t_ms: 0, seq: 3, squares: ['d5'], expected_fen: FEN }, FEN);
  assert.equal(extra.title, 'Take the piece off d5');
  const tryIllegal = D.forPlayers(
    { type: 'illegal_move', t_ms: 0, seq: 4, side: 'white', completed: false, from: 'e4', to: 'e6', count: 0 },
    FEN,
  );
  assert.deepEqual([tryIllegal.title, tryIllegal.detail], ['Not a legal move', 'Put the white pawn back on e4']);
  for (const e of [
    { type: 'illegal_move', t_ms: 0, seq: 5, side: 'black', completed: true, from: 'c6', to: 'c3', count: 1, article: '7.4' },
    { type: 'touch_move', t_ms: 0, seq: 6, side: 'black', article: '4.3a', square: 'b8' },
  ]) {
    const n = D.forPlayers(e, FEN);
    assert.equal(n.title, 'Arbiter called', e.type);
    assert.doesNotMatch(`${n.title} ${n.detail}`, /Article|4\.3|7\.4|b8|c6|Black|breach/, e.type);
  }
  assert.equal(D.forPlayers({ type: 'draw_claimable', t_ms: 0, seq: 7, reason: 'threefold' }, FEN), null);
  assert.equal(D.forPlayers({ type: 'sensor_fault', t_ms: 0, seq: 8, square: 'a4', kind: 'stuck' }, FEN).banner, false);
});

test('a resync keeps what the page saw of each history row: wall clock and move number', () => {
  const m = model({ seq: 0, history: [{ type: 'game_started', t_ms: 0, seq: 0, fen: FEN0 }] });
  m.apply(move(1, 'e4', 'e2e4', FEN1, 10), 10, 1000);
  const warn = ev('illegal_move', 20, { side: 'black', completed: false, from: 'd7', to: 'd4', count: 0 });
  m.apply(warn, 20, 2000);
  assert.equal(m.history.at(-1).ply, 1);
  assert.equal(M.moveLabel(1), '1 (Black)');
  assert.equal(M.moveLabel(4), '3 (White)');
  m.applySnapshot(snap({ fen: FEN1, seq: m.seq, moves: [{ ply: 1, san: 'e4', uci: 'e2e4', side: 'white' }],
    history: [{ type: 'game_started', t_ms: 0, seq: 0, fen: FEN0 }, warn] }), 30);
  assert.deepEqual(m.history.map(h => [h.event.type, h.wall, h.ply]), [['game_started', null, 0], ['illegal_move', 2000, 1]]);
  // A new game: nothing kept.
  m.applySnapshot(snap({ seq: 0, history: [{ type: 'game_started', t_ms: 0, seq: 0, fen: FEN0 }] }), 40);
  assert.deepEqual(m.history.map(h => [h.event.type, h.wall, h.ply]), [['game_started', null, 0]]);
});

test('a journal that cannot commit stays on the alerts across moves, takebacks and games until it saves again', () => {
  const m = model();
  m.apply(ev('storage_failed', 5, { error: 'disk is full', from_seq: 4 }), 5, 0);
  m.apply(move(1, 'e4', 'e2e4', FEN1, 10), 10, 0);
  m.apply(move(2, 'e5', 'e7e5', FEN2, 20), 20, 0);
  m.apply(move(3, 'Nf3', 'g1f3', FEN2, 30), 30, 0);
  m.apply(ev('takeback', 40, { ply: 1, fen: FEN1 }), 40, 0);
  assert.deepEqual(m.alerts.map(a => a.event.type), ['storage_failed']);
  m.apply({ type: 'game_started', t_ms: 0, seq: 0, fen: FEN0 }, 50, 0);
  seq = 0;
  assert.deepEqual(m.alerts.map(a => a.event.type), ['storage_failed'], 'the outage outlasts the game');
  m.apply(ev('storage_restored', 60, { committed: 12 }), 60, 0);
  assert.deepEqual(m.alerts, []);
});
