// Browser test of the /setup page of `touchmove run --setup` (node:test +
// playwright-core driving Debian's chromium), on a phone-sized screen.
//
//   TOUCHMOVE_URL     base URL of the daemon in setup mode
//   TOUCHMOVE_HANDS   the simulated board's hands file ([sim] hands): the
//                     test appends the builder's actions to it
//   TOUCHMOVE_EXPECT  a finding the check must name after the queen's lift
//   CHROMIUM          browser binary (default /usr/bin/chromium)
//
// It walks the steps as a builder would: empties the board and taps Done;
// taps Done too early on the start position and reads why it is refused;
// sets up the pieces (the page draws 32 of them) and taps Done; lifts the
// white queen (the page shows d1 empty and names the orientation); puts it
// back; walks every square; and reads the result with the corrected
// profile written.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

const base = process.env.TOUCHMOVE_URL;
const handsFile = process.env.TOUCHMOVE_HANDS;
const expected = process.env.TOUCHMOVE_EXPECT ?? '';
assert.ok(base && handsFile, 'TOUCHMOVE_URL and TOUCHMOVE_HANDS are set');
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const WAIT = 60_000;

let context;
let page;
let userDataDir;
const hands = text => appendFileSync(handsFile, text);
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const title = () => page.getByTestId('title').textContent();
const waitTitle = async text =>
  page.waitForFunction(t => document.querySelector('[data-testid="title"]')?.textContent === t, text, { timeout: WAIT });
const occupied = () =>
  page.evaluate(() => [...document.querySelectorAll('.square.occupied')].map(el => el.dataset.square).sort());

before(async () => {
  userDataDir = mkdtempSync(join(tmpdir(), 'touchmove-setup-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    viewport: { width: 390, height: 844 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(new URL('setup', base).href);
});

after(async () => {
  await context?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

test('the empty board step reads no piece and moves on when Done is tapped', async () => {
  await waitTitle('1. Empty board');
  hands('empty\n');
  await sleep(800);
  assert.deepEqual(await occupied(), []);
  await page.getByTestId('next').click();
  await waitTitle('2. Start position');
});

test('Done on a board that is not set up is refused with the reason', async () => {
  await page.getByTestId('next').click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="message"]')?.textContent.includes('not the start position'),
    null,
    { timeout: WAIT },
  );
  assert.equal(await title(), '2. Start position');
});

test('the start position shows 32 pieces, and Done asks for the white queen', async () => {
  hands('start\n');
  await page.waitForFunction(() => document.querySelectorAll('.square.occupied').length === 32, null, { timeout: WAIT });
  await sleep(500);
  await page.getByTestId('next').click();
  await waitTitle('3. Lift the white queen');
  const prompt = await page.getByTestId('prompt').textContent();
  assert.match(prompt, /Lift the white queen \(d1\)/);
  assert.ok(await page.getByTestId('next').isHidden(), 'the page waits for the queen, not a tap');
});

test('lifting the white queen settles the orientation', async () => {
  hands('lift d1\n');
  await waitTitle('3. Put it back');
  const squares = await occupied();
  assert.equal(squares.length, 31);
  assert.ok(!squares.includes('d1'), 'd1 is drawn empty once the board reads right');
  const findings = await page.getByTestId('findings').textContent();
  assert.ok(findings.includes(expected), `findings name ${expected}: ${findings}`);
  hands('place d1 white\n');
  await waitTitle('4. Square walk');
});

test('the square walk ends with the result and the corrected profile', async () => {
  const start = new Set(
    [1, 2, 7, 8].flatMap(rank => [...'abcdefgh'].map(file => `${file}${rank}`)),
  );
  let walk = '';
  for (const rank of [1, 2, 3, 4, 5, 6, 7, 8])
    for (const file of 'abcdefgh') {
      const sq = `${file}${rank}`;
      walk += start.has(sq) ? `lift ${sq}\nwait 150\nplace ${sq}\nwait 150\n` : `place ${sq}\nwait 150\nlift ${sq}\nwait 150\n`;
    }
  hands(walk);
  await page.waitForFunction(() => document.querySelectorAll('.square.walked').length >= 32, null, { timeout: WAIT });
  await page.getByTestId('verdict').waitFor({ state: 'visible', timeout: WAIT });
  assert.equal(await page.getByTestId('verdict').textContent(), 'The board is ready');
  const result = await page.getByTestId('result').textContent();
  assert.match(result, /corrected profile written to .*board\.checked\.toml/);
  assert.ok(await page.getByTestId('next').isHidden());
});
