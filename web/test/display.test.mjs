// Browser test of the display and arbiter pages (node:test + playwright-core
// driving Debian's chromium).
//
//   TOUCHMOVE_URL        base URL of a running daemon; unset: the fake server
//                        (test/fake-server.mjs) is started and its script checked
//   TOUCHMOVE_ARTEFACTS  where screenshots go (default web/test/artefacts)
//   TOUCHMOVE_WAIT_MS    how long to wait for the daemon's game to show a move,
//                        a displaced square and a running clock (default 20000)
//   CHROMIUM             browser binary (default /usr/bin/chromium)
//
// Against any daemon: the board drawn by chessground equals /state's position
// (less the pieces missing from displaced squares, drawn as ghosts), the last
// move is highlighted, a displaced square is highlighted with the expected
// piece, the running clock counts down and the other does not, the layout
// fits a phone in portrait and an 800x480 screen in landscape, and the
// arbiter page lists the alerts. Against the fake server also: the exact
// scripted positions, reconnection with Last-Event-ID after the stream drops,
// and the game-over banner with stopped clocks.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const ARTEFACTS = process.env.TOUCHMOVE_ARTEFACTS ?? join(here, 'artefacts');
const USE_FAKE = !process.env.TOUCHMOVE_URL;
const WAIT = Number(process.env.TOUCHMOVE_WAIT_MS ?? 20_000);
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let base;
let fake = null;
let script = null;
let context;
let userDataDir;
let display;
let arbiter;

const fetchState = async () => {
  const res = await fetch(new URL('state', base), { cache: 'no-store' });
  assert.equal(res.status, 200, 'GET /state');
  return res.json();
};

const shot = async (page, name) => page.screenshot({ path: join(ARTEFACTS, `${name}.png`) });

/** Pieces drawn on the chessground board, as square → FEN letter, read from the DOM. */
const boardInDom = page =>
  page.evaluate(() => {
    const board = document.querySelector('[data-testid="board"] cg-board');
    const size = board.getBoundingClientRect().width / 8;
    const white = !document.querySelector('.cg-wrap.orientation-black');
    const at = el => {
      const m = /translate\(\s*(-?[\d.]+)px\s*,\s*(-?[\d.]+)px/.exec(el.style.transform);
      const col = Math.round(Number(m[1]) / size);
      const row = Math.round(Number(m[2]) / size);
      const file = white ? col : 7 - col;
      const rank = white ? 7 - row : row;
      return 'abcdefgh'[file] + (rank + 1);
    };
    // Chessground hides unused elements (display: none) rather than removing them.
    const shown = el => el.style.display !== 'none';
    const letters = { pawn: 'p', knight: 'n', bishop: 'b', rook: 'r', queen: 'q', king: 'k' };
    const pieces = {};
    for (const el of board.querySelectorAll('piece')) {
      if (el.classList.contains('fading') || el.classList.contains('ghost') || !shown(el)) continue;
      const role = Object.keys(letters).find(r => el.classList.contains(r));
      const l = letters[role];
      pieces[at(el)] = el.classList.contains('white') ? l.toUpperCase() : l;
    }
    const squares = cls => [...board.querySelectorAll(`square.${cls}`)].filter(shown).map(at).sort();
    const ghosts = {};
    for (const el of document.querySelectorAll('[data-testid="board"] cg-auto-pieces piece')) {
      const role = Object.keys(letters).find(r => el.classList.contains(r));
      ghosts[at(el)] = el.classList.contains('white') ? letters[role].toUpperCase() : letters[role];
    }
    return { pieces, lastMove: squares('last-move'), displaced: squares('displaced'), ghosts };
  });

function piecesOf(fen) {
  const out = {};
  fen
    .split(' ')[0]
    .split('/')
    .forEach((row, i) => {
      let f = 0;
      for (const ch of row) {
        if (/\d/.test(ch)) f += Number(ch);
        else out['abcdefgh'[f++] + (8 - i)] = ch;
      }
    });
  return out;
}

/** What the board must show for a snapshot: its position, less pieces missing from displaced squares. */
function expectedBoard(state) {
  const pieces = piecesOf(state.fen);
  const displaced = state.alerts.find(a => a.type === 'displaced');
  const ghosts = {};
  if (displaced) {
    const exp = piecesOf(displaced.expected_fen);
    for (const sq of displaced.squares) {
      delete pieces[sq];
      if (exp[sq]) ghosts[sq] = exp[sq];
    }
    for (const [sq, p] of Object.entries(exp)) if (!displaced.squares.includes(sq)) pieces[sq] = p;
  }
  return { pieces, ghosts };
}

const sorted = o => Object.fromEntries(Object.entries(o).sort());

/** Poll until the page's board, /state and each other agree (the feed may be a moment behind). */
async function boardMatchesState(page) {
  const deadline = Date.now() + 10000;
  let last;
  for (;;) {
    const state = await fetchState();
    await page.waitForTimeout(400); // let the event reach the page and the animation end
    const dom = await boardInDom(page);
    const seq = await page.evaluate(() => window.__touchmove.seq());
    const exp = expectedBoard(state);
    last = { state, dom, exp, seq };
    const again = await fetchState();
    // Settled: no new event, the page has them all, and the board drawn
    // (chessground renders on animation frames, late on a loaded machine).
    const drawn =
      JSON.stringify(sorted(dom.pieces)) === JSON.stringify(sorted(exp.pieces)) &&
      JSON.stringify(sorted(dom.ghosts)) === JSON.stringify(sorted(exp.ghosts));
    if (again.seq === state.seq && seq === state.seq && drawn) break;
    if (Date.now() > deadline) break;
  }
  const { state, dom, exp, seq } = last;
  assert.equal(seq, state.seq, 'the page has applied every event up to /state.seq');
  assert.deepEqual(sorted(dom.pieces), sorted(exp.pieces), 'pieces on the board are those of /state');
  assert.deepEqual(sorted(dom.ghosts), sorted(exp.ghosts), 'ghost pieces stand on displaced squares');
  const lm = state.moves.at(-1);
  if (lm) assert.deepEqual(dom.lastMove, [lm.uci.slice(0, 2), lm.uci.slice(2, 4)].sort(), 'last move highlighted');
  const sans = await page.$$eval('[data-testid="move-list"] [data-ply]', els => els.map(e => e.textContent));
  assert.deepEqual(sans, state.moves.map(m => m.san), 'move list is the SAN of /state');
  return last;
}

before(async () => {
  mkdirSync(ARTEFACTS, { recursive: true });
  if (!USE_FAKE) {
    base = new URL(process.env.TOUCHMOVE_URL);
  } else {
    const mod = await import('./fake-server.mjs');
    fake = await mod.startFakeServer();
    script = mod.SCRIPT;
    base = new URL(fake.url);
  }
  userDataDir = mkdtempSync(join(tmpdir(), 'touchmove-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    viewport: { width: 800, height: 480 },
  });
  display = context.pages()[0] ?? (await context.newPage());
  display.on('pageerror', e => console.error('display page error:', e));
  await display.goto(base.href);
  arbiter = await context.newPage();
  arbiter.on('pageerror', e => console.error('arbiter page error:', e));
  await arbiter.setViewportSize({ width: 1280, height: 800 });
  await arbiter.goto(new URL('arbiter.html', base).href);
  await display.waitForFunction(() => window.__touchmove?.ready(), null, { timeout: WAIT });
});

after(async () => {
  await context?.close();
  await fake?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

test('the board shows the position after a known move, with the last move highlighted', async () => {
  const minPly = script ? script.knownMove.ply : 1;
  await display.waitForFunction(n => window.__touchmove.moves().length >= n, minPly, { timeout: WAIT });
  const { state, dom } = await boardMatchesState(display);
  if (script) {
    const mv = state.moves.find(m => m.ply === script.knownMove.ply);
    assert.equal(mv.san, script.knownMove.san);
    assert.equal(dom.pieces.f3, 'N', 'the knight stands on f3');
    assert.equal(dom.pieces.g1, undefined, 'g1 is empty');
  }
  const fen = await display.evaluate(() => window.__touchmove.fen());
  assert.equal(fen.split(' ')[0], state.fen.split(' ')[0], '__touchmove.fen() is the game position');
  await shot(display, 'display-800x480-move');
});

test('a displaced square is highlighted on the board with the piece expected there', async () => {
  await display.waitForFunction(() => window.__touchmove.displaced() !== null, null, { timeout: WAIT });
  await display.waitForTimeout(300);
  const displaced = await display.evaluate(() => window.__touchmove.displaced());
  const dom = await boardInDom(display);
  assert.deepEqual(dom.displaced, [...displaced.squares].sort(), 'cg-board squares with class "displaced"');
  const expected = piecesOf(displaced.expected_fen);
  for (const sq of displaced.squares) {
    const marker = display.locator(`[data-testid="board"] [data-square="${sq}"].displaced`);
    assert.equal(await marker.count(), 1, `marker on ${sq}`);
    assert.equal(await marker.getAttribute('data-expected'), expected[sq] ?? '', `piece expected on ${sq}`);
    assert.ok(await marker.isVisible(), `marker on ${sq} visible`);
    if (expected[sq]) assert.equal(dom.ghosts[sq], expected[sq], `ghost of the missing piece on ${sq}`);
    else assert.equal(dom.pieces[sq], undefined, `${sq} shown empty`);
  }
  const alert = display.locator('[data-testid="alerts"] [data-testid="alert"][data-type="displaced"]');
  assert.equal(await alert.count(), 1, 'one displaced alert listed');
  if (script) {
    assert.deepEqual([...displaced.squares].sort(), [...script.displaced.squares].sort());
    for (const [sq, p] of Object.entries(script.displaced.expected)) assert.equal(expected[sq] ?? '', p);
    // The rest of the script's alerts are on screen as well.
    await display.waitForFunction(
      () => ['touch_move', 'sensor_fault'].every(t => document.querySelector(`[data-testid="alert"][data-type="${t}"]`)),
      null,
      { timeout: WAIT },
    );
    assert.match(await display.locator('[data-type="touch_move"]').innerText(), /4\.3a[\s\S]*b8/);
  }
  await shot(display, 'display-800x480-displaced');
});

test('the running clock counts down and the other stands still', async () => {
  await display.waitForSelector('.tm-clock.running', { timeout: WAIT });
  const read = () =>
    display.evaluate(() => {
      const c = document.querySelector('.tm-clock.running');
      const side = c.dataset.testid.replace('clock-', '');
      const other = side === 'white' ? 'black' : 'white';
      const text = s => document.querySelector(`[data-testid="clock-${s}"] .tm-clock-time`).textContent;
      const ms = s => Number(document.querySelector(`[data-testid="clock-${s}"]`).dataset.ms);
      return { side, other, text: text(side), otherText: text(other), ms: ms(side), otherMs: ms(other) };
    });
  const a = await read();
  const t0 = Date.now();
  await display.waitForTimeout(1500);
  const b = await read();
  const waited = Date.now() - t0;
  assert.equal(b.side, a.side, 'the same clock still runs');
  assert.notEqual(b.text, a.text, `clock-${a.side} text changes over 1.5 s`);
  assert.equal(b.otherText, a.otherText, `clock-${a.other} stands still`);
  const spent = a.ms - b.ms;
  assert.ok(Math.abs(spent - waited) < 400, `running clock lost ${spent} ms in ${waited} ms`);
  const size = await display.$eval(`[data-testid="clock-${a.side}"] .tm-clock-time`, e => parseFloat(getComputedStyle(e).fontSize));
  assert.ok(size >= 40, `clock digits are large on 800x480 (${size}px)`);
});

test('layout: landscape 800x480 puts the board left and the clocks right; a phone in portrait stacks them', async () => {
  const box = async sel => (await display.locator(sel).first().boundingBox()) ?? assert.fail(`${sel} not shown`);
  await display.setViewportSize({ width: 800, height: 480 });
  await display.waitForTimeout(300);
  let board = await box('[data-testid="board"]');
  let white = await box('[data-testid="clock-white"]');
  let black = await box('[data-testid="clock-black"]');
  assert.ok(board.height <= 480 && board.height >= 440, `board fills the height (${board.height})`);
  assert.ok(white.x >= board.x + board.width - 1 && black.x >= board.x + board.width - 1, 'clocks right of the board');
  assert.ok(white.x + white.width <= 801, 'clocks fit the screen');
  assert.ok(black.y < white.y, 'Black above White (White at the bottom of the board)');

  await display.setViewportSize({ width: 390, height: 844 });
  await display.waitForTimeout(300);
  board = await box('[data-testid="board"]');
  white = await box('[data-testid="clock-white"]');
  black = await box('[data-testid="clock-black"]');
  assert.ok(board.width >= 380, `board spans the phone's width (${board.width})`);
  assert.ok(black.y + black.height <= board.y + 1, 'black clock above the board');
  assert.ok(white.y >= board.y + board.height - 1, 'white clock below the board');
  assert.ok(white.y + white.height <= 844, 'both clocks on the first screen');
  await shot(display, 'display-phone-portrait');
  await display.setViewportSize({ width: 800, height: 480 });
});

test('after the event stream drops the page reconnects and catches up', { skip: !USE_FAKE && 'drives the fake server' }, async () => {
  const before = await display.evaluate(() => window.__touchmove.seq());
  await fetch(new URL('__drop', base), { method: 'POST' });
  await display.waitForFunction(n => window.__touchmove.moves().length >= n, script.afterDrop.ply, { timeout: WAIT });
  await display.waitForFunction(() => window.__touchmove.displaced() === null, null, { timeout: WAIT });
  const { state, dom } = await boardMatchesState(display);
  assert.ok(state.seq > before);
  assert.equal(state.fen, script.afterDrop.fen);
  assert.equal(dom.pieces.c6, 'n');
  assert.deepEqual(dom.displaced, [], 'no square left marked displaced');
  assert.equal(await display.locator('[data-testid="board"] [data-square]').count(), 0, 'no marker left');
  await display.waitForSelector('[data-testid="connection"][data-status="live"]', { timeout: WAIT });
});

test('game over: banner shown and clocks stopped', { skip: !USE_FAKE && 'drives the fake server' }, async () => {
  await fetch(new URL('__finish', base), { method: 'POST' });
  const banner = display.locator('[data-testid="game-over"]');
  await banner.waitFor({ state: 'visible', timeout: WAIT });
  assert.match(await banner.innerText(), /1\/2-1\/2[\s\S]*agreement/);
  const texts = () => display.$$eval('.tm-clock-time', els => els.map(e => e.textContent));
  const a = await texts();
  await display.waitForTimeout(1200);
  assert.deepEqual(await texts(), a, 'clocks stand still after the game');
  assert.equal(await display.locator('.tm-clock.running').count(), 0);
  await shot(display, 'display-800x480-game-over');
});

test('the arbiter page lists the alert history with times', async () => {
  await arbiter.waitForFunction(() => window.__touchmove?.ready(), null, { timeout: WAIT });
  const rows = arbiter.locator('[data-testid="alert-history"] [data-testid="history-row"]');
  await arbiter.waitForFunction(
    () => document.querySelector('[data-testid="history-row"][data-type="displaced"]'),
    null,
    { timeout: WAIT },
  );
  const types = await rows.evaluateAll(els => els.map(e => e.dataset.type));
  assert.ok(types.includes('displaced'));
  if (script) {
    for (const t of ['illegal_move', 'restored', 'displaced', 'touch_move', 'sensor_fault', 'game_over'])
      assert.ok(types.includes(t), `history has ${t}: ${types}`);
  }
  const firstTime = await rows.first().locator('td').first().innerText();
  assert.match(firstTime, /^\d+:\d\d(:\d\d)?$/, 'game time in the first column');
  await shot(arbiter, 'arbiter-1280x800');
  await arbiter.setViewportSize({ width: 800, height: 480 });
  await arbiter.waitForTimeout(300);
  await shot(arbiter, 'arbiter-800x480');
});
