// Browser test of the hall dashboard (playwright-core driving Debian's
// chromium), run by tests/hall_browser.rs against a real hall with 20 fake
// boards publishing through Mosquitto.
//
//   TOUCHMOVE_URL        the hall's base URL
//   TOUCHMOVE_ARTEFACTS  where screenshots go (default web/test/artefacts)
//   TOUCHMOVE_BOARDS     how many boards to wait for (default 20)
//   CHROMIUM             browser binary (default /usr/bin/chromium)
//
// Protocol with the driver: prints `READY` once every board shows, then
// waits for an illegal_move alert (the driver publishes it), checks the
// alert strip and the highlighted board sorted first, and prints
// `LATENCY <ms>` from the board's publish (`wall_ms`) to the DOM change.
// Exits non-zero on any failure.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
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
    n => window.__hall?.ready() && document.querySelectorAll('[data-testid="board-card"] cg-board').length === n,
    BOARDS,
    { timeout: 20_000 },
  );
  const quiet = await page.$eval('[data-testid="alert-strip"]', e => e.dataset.count);
  assert.equal(quiet, '0', 'no open alert before the illegal move');
  // Every card shows its board with pieces.
  const pieces = await page.$$eval('[data-testid="board-card"]', cards =>
    cards.map(c => c.querySelectorAll('cg-board piece').length),
  );
  assert.ok(pieces.every(n => n > 2), `pieces on every mini board: ${pieces}`);
  console.log('READY');

  const alert = await page.waitForSelector('[data-testid="hall-alert"][data-type="illegal_move"]', {
    timeout: 10_000,
  });
  const shown = Number(await alert.getAttribute('data-shown-ms'));
  const published = Number(await alert.getAttribute('data-board-wall-ms'));
  const board = await alert.getAttribute('data-board');
  const latency = shown - published;
  console.log(`LATENCY ${latency} ${board}`);
  const first = await page.$eval('[data-testid="board-card"]', c => ({
    board: c.dataset.board,
    alerting: c.classList.contains('alerting'),
    open: c.dataset.openAlerts,
  }));
  assert.deepEqual(first, { board, alerting: true, open: '1' }, 'the alerting board is first and highlighted');
  const highlighted = await page.$$eval('[data-testid="board-card"].alerting', cs => cs.length);
  assert.equal(highlighted, 1);
  assert.equal(await page.$eval('[data-testid="alert-strip"]', e => e.dataset.count), '1');
  await page.screenshot({ path: join(ARTEFACTS, 'hall-dashboard.png') });
  await page.setViewportSize({ width: 820, height: 1180 });
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(ARTEFACTS, 'hall-dashboard-tablet.png') });
  // The board's own page.
  await page.goto(new URL(`board/${board}`, URL_).href);
  await page.waitForSelector('[data-testid="board-alert"][data-type="illegal_move"]', { timeout: 10_000 });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="move-list"] li').length > 0);
  await page.screenshot({ path: join(ARTEFACTS, 'hall-board.png') });
  assert.ok(latency >= 0 && latency < 1000, `the alert showed ${latency} ms after it was published`);
} catch (e) {
  console.error(e);
  code = 1;
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
process.exit(code);
