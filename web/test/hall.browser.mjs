// Browser test of the hall dashboard and board page (playwright-core
// driving Debian's chromium), run by tests/hall_browser.rs against a real
// hall with fake boards publishing through Mosquitto.
//
//   TOUCHMOVE_URL        the hall's base URL
//   TOUCHMOVE_ARTEFACTS  where screenshots go (default web/test/artefacts)
//   TOUCHMOVE_BOARDS     how many boards to wait for (default 20)
//   CHROMIUM             browser binary (default /usr/bin/chromium)
//
// A dialogue with the driver: this script prints a line when it is ready
// for the next step and reads the driver's answer on standard input.
//
//   -> READY            every board shows
//   (the driver: b5 displaced, then b7 offline, then b13 a completed
//   illegal move, in that order)
//   -> ORDERED          the queue is by severity: b13 illegal move, b7
//                       offline, b5 displaced; b13's card badge is its
//                       illegal move and its squares are marked
//   -> LATENCY <ms> b13 from the board's publish (`wall_ms`) to the row
//   (the driver: b5 restored)
//   -> RESOLVED         b5's alert left the queue without an Ack and is in
//                       the history as resolved by the board
//   -> HOVERING         the pointer rests on the queue
//   (the driver: b9 a touch-move breach)
//   -> HELD             the rows did not move; "1 new" shown; once the
//                       pointer leaves, the breach is second in the queue
//   then: filters, search, the table view, the board page (the illegal
//   move drawn, plain words), axe-core on both pages in light and dark.
// Exits non-zero on any failure.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const ARTEFACTS = process.env.TOUCHMOVE_ARTEFACTS ?? join(here, 'artefacts');
const URL_ = process.env.TOUCHMOVE_URL;
const BOARDS = Number(process.env.TOUCHMOVE_BOARDS ?? 20);
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

assert.ok(URL_, 'TOUCHMOVE_URL must name the hall');
mkdirSync(ARTEFACTS, { recursive: true });

const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
/** Tells the driver `line` and waits for its `GO`. */
async function step(line) {
  console.log(line);
  const { value, done } = await input.next();
  assert.ok(!done && value.trim() === 'GO', `the driver answered ${JSON.stringify(value)} to ${line}`);
}

/** axe-core's serious and critical violations, as "rule: targets" lines. */
async function axeViolations(page) {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter(v => v.impact === 'serious' || v.impact === 'critical')
      .map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`);
  });
}

async function axeBothThemes(page, label) {
  for (const theme of ['dark', 'light']) {
    await page.emulateMedia({ colorScheme: theme });
    await page.waitForTimeout(100);
    assert.deepEqual(await axeViolations(page), [], `axe-core on the ${label} page, ${theme} theme`);
    await page.screenshot({ path: join(ARTEFACTS, `hall-${label}-${theme}.png`) });
  }
}

const queue = page => page.evaluate(() => window.__hall.alerts().map(a => `${a.board} ${a.type}`));
const drawn = page =>
  page.$$eval('[data-testid="queue"] [data-testid="hall-alert"]', rows => rows.map(r => `${r.dataset.board} ${r.dataset.type}`));

const userDataDir = mkdtempSync(join(tmpdir(), 'touchmove-hall-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ARGS,
  viewport: { width: 1366, height: 900 },
});
let code = 0;
try {
  const page = await context.newPage();
  page.on('pageerror', e => console.error(`page error: ${e.message}`));
  await page.goto(URL_);
  await page.waitForFunction(
    n => window.__hall?.ready() && window.__hall.boards().length === n && document.querySelector('[data-testid="board-card"] cg-board piece'),
    BOARDS,
    { timeout: 20_000 },
  );
  assert.equal(await page.$eval('[data-testid="alert-strip"]', e => e.dataset.count), '0', 'no open alert at first');
  // Every card in the DOM shows its board with pieces.
  const pieces = await page.$$eval('[data-testid="board-card"]:not([hidden])', cards =>
    cards.map(c => c.querySelectorAll('cg-board piece').length),
  );
  assert.ok(pieces.length > 0 && pieces.every(n => n > 2), `pieces on every mini board: ${pieces}`);
  await step('READY');

  // The queue: severity first, whatever the age.
  await page.waitForFunction(() => window.__hall.alerts().length === 3, null, { timeout: 10_000 });
  const want = ['b13 illegal_move', 'b7 offline', 'b5 displaced'];
  assert.deepEqual(await queue(page), want, 'the queue is by severity');
  await page.waitForFunction(
    w => [...document.querySelectorAll('[data-testid="queue"] [data-testid="hall-alert"]')].map(r => `${r.dataset.board} ${r.dataset.type}`).join() === w.join(),
    want,
    { timeout: 5_000 },
  );
  assert.equal(await page.title(), '(3) hall hall-browser', 'the open count in the title');
  // Cards: by worst alert; b13's badge is its illegal move, its squares marked.
  assert.deepEqual((await page.evaluate(() => window.__hall.boards())).slice(0, 3), ['b13', 'b7', 'b5']);
  const b13 = await page.$eval('[data-testid="board-card"][data-board="b13"]', c => ({
    worst: c.dataset.worst,
    badge: c.querySelector('.h-badge').textContent,
    marked: c.querySelectorAll('cg-board square.h-mark').length,
    sev: c.classList.contains('sev0'),
  }));
  assert.deepEqual(b13, { worst: 'illegal_move', badge: 'Illegal move completed', marked: 2, sev: true });
  const row = await page.$('[data-testid="hall-alert"][data-board="b13"]');
  const latency = Number(await row.getAttribute('data-shown-ms')) - Number(await row.getAttribute('data-board-wall-ms'));
  console.log(`LATENCY ${latency} b13`);
  assert.ok(latency >= 0 && latency < 1000, `the alert showed ${latency} ms after it was published`);
  await page.screenshot({ path: join(ARTEFACTS, 'hall-dashboard.png') });
  await step('ORDERED');

  // b5's pieces put back: resolved by the board, no Ack.
  await page.waitForFunction(() => window.__hall.alerts().length === 2, null, { timeout: 10_000 });
  assert.deepEqual(await queue(page), ['b13 illegal_move', 'b7 offline']);
  await page.waitForSelector('[data-testid="history"] [data-testid="closed-alert"][data-board="b5"][data-resolved-by="restored"]', {
    state: 'attached',
    timeout: 5_000,
  });
  const history = await page.$eval('[data-testid="history"] [data-board="b5"]', li => ({
    acknowledged: li.dataset.acknowledged,
    text: li.textContent,
  }));
  assert.equal(history.acknowledged, 'false');
  assert.match(history.text, /resolved: the board is right again/);
  assert.deepEqual(await drawn(page), ['b13 illegal_move', 'b7 offline']);

  // Rows never move under the pointer.
  await page.hover('[data-testid="queue"] [data-testid="hall-alert"][data-board="b7"] .h-alert-detail');
  await step('HOVERING');
  await page.waitForFunction(() => window.__hall.alerts().length === 3, null, { timeout: 10_000 });
  await page.waitForSelector('[data-testid="queue-new"]:not([hidden])', { timeout: 5_000 });
  assert.equal(await page.$eval('[data-testid="queue-new"]', b => b.textContent), '1 new – show');
  assert.deepEqual(await drawn(page), ['b13 illegal_move', 'b7 offline'], 'held while the pointer is on the queue');
  await page.mouse.move(1300, 880);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="queue"] [data-testid="hall-alert"]').length === 3);
  assert.deepEqual(await drawn(page), ['b13 illegal_move', 'b9 touch_move', 'b7 offline']);
  console.log('HELD');

  // Filters, search and the table view.
  const shownCards = () => page.$$eval('[data-testid="board-card"]:not([hidden])', cs => cs.map(c => c.dataset.board).sort());
  await page.click('[data-filter="alerts"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="board-card"]:not([hidden])').length === 3);
  assert.deepEqual(await shownCards(), ['b13', 'b7', 'b9']);
  await page.click('[data-filter="offline"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="board-card"]:not([hidden])').length === 1);
  assert.deepEqual(await shownCards(), ['b7']);
  await page.click('[data-filter="all"]');
  await page.fill('[data-testid="search"]', 'Player 25');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="board-card"]:not([hidden])').length === 1);
  assert.deepEqual(await shownCards(), ['b13'], 'search by player');
  await page.fill('[data-testid="search"]', '');
  await page.waitForFunction(n => document.querySelectorAll('[data-testid="board-card"]:not([hidden])').length > 1);
  await axeBothThemes(page, 'dashboard-grid');
  await page.click('[data-view="table"]');
  await page.waitForFunction(n => document.querySelectorAll('[data-testid="board-row"]').length === n, BOARDS);
  const first = await page.$eval('[data-testid="board-row"]', r => ({ board: r.dataset.board, alert: r.lastElementChild.textContent }));
  assert.deepEqual(first, { board: 'b13', alert: 'Illegal move completed' });
  await page.screenshot({ path: join(ARTEFACTS, 'hall-dashboard-table.png') });
  await axeBothThemes(page, 'dashboard-table');
  await page.click('[data-view="grid"]');
  await page.setViewportSize({ width: 820, height: 1180 });
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(ARTEFACTS, 'hall-dashboard-tablet.png') });
  await page.setViewportSize({ width: 1366, height: 900 });

  // The board's own page: the illegal move drawn, plain words.
  await page.goto(new URL('board/b13', URL_).href);
  await page.waitForSelector('[data-testid="board-alert"][data-type="illegal_move"]', { timeout: 10_000 });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="move-list"] li').length > 0);
  const drawnMove = await page.$eval('[data-testid="board"]', b => ({
    arrow: b.firstElementChild.dataset.arrow,
    marks: b.querySelectorAll('cg-board square.h-mark').length,
    shapes: b.querySelectorAll('svg.cg-shapes g line, svg.cg-shapes line').length,
  }));
  assert.equal(drawnMove.arrow, 'b1b3', 'the illegal move from b1 to b3');
  assert.equal(drawnMove.marks, 2);
  assert.ok(drawnMove.shapes >= 1, `an arrow drawn on the board: ${JSON.stringify(drawnMove)}`);
  const words = await page.$eval('.h-side', s => s.textContent);
  for (const raw of ['illegal_move', 'game_started', 'duplicates', 'replay requests', 'seq '])
    assert.ok(!words.includes(raw), `no "${raw}" on the board page: ${words}`);
  assert.match(words, /Illegal move completed/);
  assert.match(words, /Game started/);
  await page.screenshot({ path: join(ARTEFACTS, 'hall-board.png') });
  await axeBothThemes(page, 'board');
} catch (e) {
  console.error(e);
  code = 1;
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
process.exit(code);
