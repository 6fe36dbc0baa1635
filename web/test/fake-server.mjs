// A stand-in for the touchmove daemon's HTTP side, for developing and testing
// the display without it: serves web/dist, `GET /state` and `GET /events`
// (Server-Sent Events, `id:` = seq, `data:` = the event as JSON), replaying a
// scripted game. Run alone: `node test/fake-server.mjs` (PORT, default 8080).
//
// Script: a prelude already played when the server starts (1. e4 e5), then,
// from the first /events connection: 2. Nf3, an illegal black try d7-d4 taken
// back, a displaced pawn (h7 → h6) that stays, a touch-move breach on b8 and a
// sensor fault on a4. A 90-minute game between two players with long names,
// titles and ratings, round and board given. Control endpoints for tests:
//   POST /__drop    closes every event stream, then plays: restored, 2... Nc6
//   POST /__offline closes every event stream and stops answering /events and
//                   /state (the sockets are cut) until
//   POST /__hang    keeps the streams open but sends nothing and answers no
//                   request (a hung daemon, a half-open connection) until
//   POST /__online  answers again (cutting what it held)
//   POST /__finish  plays game_over (1/2-1/2, agreement) and stops the clocks

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

export const FEN = {
  start: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
  e4: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1',
  e5: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2',
  Nf3: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2',
  Nc6: 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3',
};

/** What the test may expect from this script. */
export const SCRIPT = {
  knownMove: { ply: 3, san: 'Nf3', uci: 'g1f3', fen: FEN.Nf3 },
  displaced: { squares: ['h7', 'h6'], expected: { h7: 'p', h6: '' } },
  afterDrop: { ply: 4, san: 'Nc6', fen: FEN.Nc6 },
  result: { result: '1/2-1/2', reason: 'agreement' },
  white: 'Anna-Katharina Weissenberger-Eggleston',
  black: 'Boris Schwarzkopf',
  white_title: 'WGM',
  white_elo: 2431,
  black_title: 'IM',
  black_elo: 2468,
  event: 'Bundesliga Open 2026',
  round: '7',
  board: '12',
};

const BASE_MS = 90 * 60_000;
const ALERTS = new Set(['illegal_move', 'touch_move', 'displaced', 'promotion_pending', 'draw_claimable', 'sensor_fault']);
const HISTORY = new Set([...ALERTS, 'restored', 'takeback', 'game_over', 'game_started']);

/** The snapshot `GET /state` serves: the same reduction a daemon makes of its events. */
export function snapshot(events, nowMs) {
  let fen = FEN.start;
  let moves = [];
  let clock = null;
  let alerts = [];
  let result = null;
  const drop = pred => (alerts = alerts.filter(a => a.type === 'sensor_fault' || !pred(a)));
  for (const e of events) {
    switch (e.type) {
      case 'game_started':
        fen = e.fen;
        moves = [];
        alerts = [];
        result = null;
        clock = null;
        break;
      case 'move':
        moves = moves.filter(m => m.ply < e.ply);
        moves.push({ ply: e.ply, san: e.san, uci: e.uci, side: e.side });
        fen = e.fen;
        drop(a => a.type !== 'touch_move' && !(a.type === 'illegal_move' && a.completed));
        break;
      case 'restored':
        fen = e.fen;
        drop(a => a.type === 'displaced' || a.type === 'promotion_pending' || (a.type === 'illegal_move' && !a.completed));
        break;
      case 'takeback':
        moves = moves.filter(m => m.ply <= e.ply);
        fen = e.fen;
        drop(() => true);
        break;
      case 'clock':
        clock = { white_ms: e.white_ms, black_ms: e.black_ms, running: e.running, t_ms: e.t_ms };
        break;
      case 'game_over':
        result = { result: e.result, reason: e.reason };
        break;
      default:
        if (ALERTS.has(e.type)) {
          if (['displaced', 'promotion_pending'].includes(e.type)) drop(a => a.type === e.type);
          if (e.type === 'illegal_move') drop(a => a.type === 'illegal_move' && !a.completed);
          alerts.push(e);
        }
    }
  }
  return {
    fen,
    moves,
    clock,
    alerts,
    profile: 'fide-standard',
    result,
    seq: events.length ? events[events.length - 1].seq : -1,
    white: SCRIPT.white,
    black: SCRIPT.black,
    white_title: SCRIPT.white_title,
    white_elo: SCRIPT.white_elo,
    black_title: SCRIPT.black_title,
    black_elo: SCRIPT.black_elo,
    event: SCRIPT.event,
    round: SCRIPT.round,
    board: SCRIPT.board,
    now_ms: nowMs,
    history: events.filter(e => HISTORY.has(e.type)),
  };
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

export async function startFakeServer({ port = 0, host = '127.0.0.1' } = {}) {
  const started = Date.now();
  const now = () => Date.now() - started;
  const events = [];
  const streams = new Set();
  const timers = new Set();
  // Remaining time as of the last clock event, and who is running.
  let clk = { white_ms: BASE_MS, black_ms: BASE_MS, running: 'white', t_ms: 0 };

  let hung = false;
  const held = new Set();
  const emit = (type, fields = {}, t_ms = now()) => {
    const ev = { type, t_ms, seq: events.length, ...fields };
    events.push(ev);
    const msg = `id: ${ev.seq}\ndata: ${JSON.stringify(ev)}\n\n`;
    if (!hung) for (const res of streams) res.write(msg);
    return ev;
  };
  const press = (t_ms = now()) => {
    const elapsed = t_ms - clk.t_ms;
    const left = { ...clk };
    if (clk.running) left[`${clk.running}_ms`] = Math.max(0, clk[`${clk.running}_ms`] - elapsed);
    clk = { ...left, running: clk.running === 'white' ? 'black' : 'white', t_ms };
    emit('clock', { white_ms: clk.white_ms, black_ms: clk.black_ms, running: clk.running }, t_ms);
  };
  const stopClocks = (t_ms = now()) => {
    if (clk.running) clk[`${clk.running}_ms`] = Math.max(0, clk[`${clk.running}_ms`] - (t_ms - clk.t_ms));
    clk = { ...clk, running: null, t_ms };
    emit('clock', { white_ms: clk.white_ms, black_ms: clk.black_ms, running: null }, t_ms);
  };
  const move = (ply, side, san, uci, fen, piece) => {
    emit('piece_lifted', { square: uci.slice(0, 2), piece });
    emit('piece_placed', { square: uci.slice(2, 4) });
    emit('move', { ply, side, san, uci, fen });
    emit('move_completed', { ply });
    press();
  };
  const later = (ms, fn) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  // Prelude: the game has begun before anyone looks.
  emit('game_started', { fen: FEN.start }, 0);
  emit('clock', { white_ms: BASE_MS, black_ms: BASE_MS, running: 'white' }, 0);
  move(1, 'white', 'e4', 'e2e4', FEN.e4, 'P');
  move(2, 'black', 'e5', 'e7e5', FEN.e5, 'p');

  let live = false;
  const startLive = () => {
    if (live) return;
    live = true;
    later(300, () => move(3, 'white', 'Nf3', 'g1f3', FEN.Nf3, 'N'));
    later(900, () => {
      emit('piece_lifted', { square: 'd7', piece: 'p' });
      emit('piece_placed', { square: 'd4' });
      emit('illegal_move', { side: 'black', completed: false, from: 'd7', to: 'd4', count: 0 });
    });
    later(1600, () => {
      emit('piece_lifted', { square: 'd4', piece: 'p' });
      emit('piece_placed', { square: 'd7' });
      emit('restored', { fen: FEN.Nf3 });
    });
    later(2000, () => emit('displaced', { squares: ['h7', 'h6'], expected_fen: FEN.Nf3 }));
    later(2200, () => emit('touch_move', { side: 'black', article: '4.3a', square: 'b8' }));
    later(2300, () => emit('sensor_fault', { square: 'a4', kind: 'stuck_occupied' }));
  };

  const drop = () => {
    for (const res of streams) res.end();
    streams.clear();
    later(100, () => {
      emit('restored', { fen: FEN.Nf3 });
      move(4, 'black', 'Nc6', 'b8c6', FEN.Nc6, 'n');
    });
  };
  const finish = () => {
    const t = now();
    stopClocks(t);
    emit('game_over', { ...SCRIPT.result }, t);
  };

  const serveFile = async (res, path) => {
    const file = normalize(join(DIST, path === '/' ? 'index.html' : path));
    if (!file.startsWith(DIST)) return notFound(res);
    try {
      if (!(await stat(file)).isFile()) return notFound(res);
    } catch {
      return notFound(res);
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
    createReadStream(file).pipe(res);
  };
  const notFound = res => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
  };

  let offline = false;
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (offline && req.method === 'GET' && (url.pathname === '/events' || url.pathname === '/state')) {
      req.socket.destroy();
    } else if (hung && !url.pathname.startsWith('/__')) {
      held.add(req.socket);
    } else if (req.method === 'GET' && url.pathname === '/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      res.write('retry: 500\n\n');
      const last = Number(req.headers['last-event-id']);
      if (Number.isInteger(last)) {
        for (const ev of events.filter(e => e.seq > last)) res.write(`id: ${ev.seq}\ndata: ${JSON.stringify(ev)}\n\n`);
      }
      streams.add(res);
      req.on('close', () => streams.delete(res));
      startLive();
    } else if (req.method === 'GET' && url.pathname === '/state') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(snapshot(events, now())));
    } else if (req.method === 'POST' && url.pathname === '/__drop') {
      drop();
      res.end('dropped\n');
    } else if (req.method === 'POST' && url.pathname === '/__offline') {
      offline = true;
      for (const r of streams) r.destroy();
      streams.clear();
      res.end('offline\n');
    } else if (req.method === 'POST' && url.pathname === '/__hang') {
      hung = true;
      res.end('hung\n');
    } else if (req.method === 'POST' && url.pathname === '/__online') {
      offline = false;
      hung = false;
      for (const sock of held) sock.destroy();
      held.clear();
      res.end('online\n');
    } else if (req.method === 'POST' && url.pathname === '/__finish') {
      finish();
      res.end('finished\n');
    } else if (req.method === 'GET') {
      void serveFile(res, url.pathname);
    } else notFound(res);
  });

  await new Promise(resolve => server.listen(port, host, resolve));
  const addr = server.address();
  return {
    url: `http://${host}:${addr.port}/`,
    events,
    close: () =>
      new Promise(resolve => {
        for (const t of timers) clearTimeout(t);
        for (const res of streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === normalize(process.argv[1])) {
  const srv = await startFakeServer({ port: Number(process.env.PORT ?? 8080) });
  console.log(`fake touchmove daemon at ${srv.url}`);
}
