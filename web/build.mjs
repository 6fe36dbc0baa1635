// Builds web/dist: app.js and app.css (chessground and its board/piece CSS
// bundled in, pieces as SVG data URIs), index.html and arbiter.html for the
// daemon; hall.js, hall.css, hall.html and board.html for `touchmove hall`;
// setup.js, setup.css and setup.html for `touchmove run --setup`.
// `node build.mjs --check` builds elsewhere and fails if web/dist differs
// (the daemon embeds web/dist, so it must match the sources).
import { build } from 'esbuild';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const check = process.argv.includes('--check');
const dist = join(here, 'dist');
const out = check ? await mkdtemp(join(tmpdir(), 'touchmove-dist-')) : dist;

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await build({
  absWorkingDir: here,
  entryPoints: { app: 'src/main.ts', hall: 'src/hall/main.ts', setup: 'src/setup/main.ts' },
  bundle: true,
  format: 'esm',
  target: 'es2020',
  minify: true,
  legalComments: 'eof',
  outdir: out,
  logLevel: check ? 'warning' : 'info',
});
for (const page of ['index.html', 'arbiter.html', 'hall.html', 'board.html', 'setup.html']) await copyFile(join(here, 'static', page), join(out, page));

if (check) {
  const names = async d => (await readdir(d)).sort();
  const [want, have] = [await names(out), await names(dist).catch(() => [])];
  const stale = want.filter(n => !have.includes(n)).concat(have.filter(n => !want.includes(n)));
  for (const n of want.filter(n => have.includes(n)))
    if (!(await readFile(join(out, n))).equals(await readFile(join(dist, n)))) stale.push(n);
  await rm(out, { recursive: true, force: true });
  if (stale.length) {
    console.error(`web/dist is out of date (${stale.join(', ')}): run \`npm run build\` in web/`);
    process.exit(1);
  }
  console.log('web/dist matches the sources');
}
