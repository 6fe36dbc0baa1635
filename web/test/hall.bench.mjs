// Benchmark of the hall dashboard under a round (playwright-core driving
// Debian's chromium), run by tests/hall_browser.rs
// (`the_dashboard_keeps_up_with_a_round`; TOUCHMOVE_FULL=1 for 1,500
// boards) while its boards play through Mosquitto and the hall.
//
//   TOUCHMOVE_URL     the hall's base URL
//   TOUCHMOVE_BOARDS  how many boards the round has
//   CHROMIUM          browser binary (default /usr/bin/chromium)
//
// Prints `READY` once the page shows every board (the first render), then
// measures until the driver writes `GO <alerts published>`, and prints
// `REPORT {json}`:
//   first_render_ms     from navigation start to the boards drawn
//   busy_share          main-thread task time over the measured wall time
//                       (CDP Performance.getMetrics TaskDuration: wall time
//                       of tasks, so a loaded machine inflates it)
//   main_cpu_share      main-thread CPU time over the wall time (ThreadTime)
//   renderer_cpu_share  the page's renderer process CPU time (ProcessTime)
//   script_share, layout_share, style_share  parts of busy_share
//   longest_task_ms     the longest main-thread task (PerformanceObserver longtask)
//   heap_used_mb        JS heap in use at the end (CDP JSHeapUsedSize)
//   dom_nodes           DOM nodes of the page at the end (CDP Nodes)
//   cards_in_dom        board cards in the DOM (virtualised: only those in view)
//   rows_in_dom         table rows in the DOM (the same, in the table view)
//   last_row            the board of the last row once scrolled to the end
//   alerts_shown        completed illegal moves shown in the queue
//   alert_ms_p50/p99/max  from the alert's `wall_ms` to its row
// Exits non-zero on failure.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const URL_ = process.env.TOUCHMOVE_URL;
const BOARDS = Number(process.env.TOUCHMOVE_BOARDS ?? 1500);
assert.ok(URL_, 'TOUCHMOVE_URL must name the hall');
const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

const userDataDir = mkdtempSync(join(tmpdir(), 'touchmove-hall-bench-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  viewport: { width: 1920, height: 1080 },
});
let code = 0;
try {
  const page = await context.newPage();
  page.on('pageerror', e => console.error(`page error: ${e.message}`));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
  await page.addInitScript(() => {
    window.__longest = 0;
    new PerformanceObserver(list => {
      for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(URL_);
  await page.waitForFunction(
    n => window.__hall?.ready() && window.__hall.boards().length === n && document.querySelector('[data-testid="board-card"] cg-board piece'),
    BOARDS,
    { timeout: 30_000, polling: 'raf' },
  );
  const firstRender = await page.evaluate(() => performance.now());
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map(m => [m.name, m.value]));
  const before = await metrics();
  await page.evaluate(() => (window.__longest = 0));
  const trace = [];
  if (process.env.TOUCHMOVE_PROFILE) {
    cdp.on('Tracing.dataCollected', d => trace.push(...d.value));
    await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
  }
  console.log('READY');
  const { value } = await input.next();
  if (process.env.TOUCHMOVE_PROFILE) {
    // Where the main thread's time went, by trace event (self time of the
    // top-level ones), for whoever tunes the page.
    const done = new Promise(r => cdp.once('Tracing.tracingComplete', r));
    await cdp.send('Tracing.end');
    await done;
    const main = trace.find(e => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
    const by = new Map();
    for (const e of trace)
      if (main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur)
        by.set(e.name, (by.get(e.name) ?? 0) + e.dur / 1000);
    const top = [...by].sort((a, b) => b[1] - a[1]).slice(0, 20);
    console.error(top.map(([k, v]) => `${v.toFixed(0).padStart(7)} ms  ${k}`).join('\n'));
  }
  const published = Number(String(value).split(' ')[1]);
  // The last alerts reach the page.
  await page
    .waitForFunction(n => window.__hall.alerts().filter(a => a.type === 'illegal_move').length >= n, published, { timeout: 5_000 })
    .catch(() => {});
  await page.waitForTimeout(300);
  const after = await metrics();
  const rows = await page.$$eval('[data-testid="queue"] [data-testid="hall-alert"][data-type="illegal_move"]', rs =>
    rs.map(r => Number(r.dataset.shownMs) - Number(r.dataset.boardWallMs)),
  );
  rows.sort((a, b) => a - b);
  const pct = p => (rows.length ? rows[Math.min(rows.length - 1, Math.floor((rows.length * p) / 100))] : null);
  const share = k => Number(((after[k] - before[k]) / (after.Timestamp - before.Timestamp)).toFixed(3));
  const report = {
    first_render_ms: Math.round(firstRender),
    busy_share: share('TaskDuration'),
    main_cpu_share: share('ThreadTime'),
    renderer_cpu_share: share('ProcessTime'),
    script_share: share('ScriptDuration'),
    layout_share: share('LayoutDuration'),
    style_share: share('RecalcStyleDuration'),
    longest_task_ms: Math.round(await page.evaluate(() => window.__longest)),
    heap_used_mb: Number((after.JSHeapUsedSize / 1048576).toFixed(1)),
    dom_nodes: after.Nodes,
    cards_in_dom: await page.$$eval('[data-testid="board-card"]', cs => cs.length),
    alerts_shown: rows.length,
    alert_ms_p50: pct(50),
    alert_ms_p99: pct(99),
    alert_ms_max: rows.length ? rows[rows.length - 1] : null,
  };
  // The table view is virtualised too, and scrolls to the end of the round.
  await page.click('[data-view="table"]');
  await page.waitForSelector('[data-testid="board-row"]');
  report.rows_in_dom = await page.$$eval('[data-testid="board-row"]', rs => rs.length);
  await page.$eval('.h-scroller', s => (s.scrollTop = s.scrollHeight));
  await page.waitForTimeout(300);
  report.last_row = await page.$$eval('[data-testid="board-row"]', rs => rs[rs.length - 1].dataset.board);
  console.log(`REPORT ${JSON.stringify(report)}`);
} catch (e) {
  console.error(e);
  code = 1;
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
process.exit(code);
