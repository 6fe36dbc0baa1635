// Entry point of both pages: index.html (the display) and arbiter.html
// (the display with the alert history). `#arbiter` on index.html gives the
// arbiter view as well; `?orientation=black` turns the board; `?theme=light`,
// `?theme=dark` or `?theme=contrast` picks the colours (without it the
// browser's prefers-color-scheme and prefers-contrast decide);
// `?motion=reduce` stills the animations as prefers-reduced-motion does.

import './style.css';
import { Feed } from './feed';
import { Model } from './model';
import { View, type ViewKind } from './view';

const mount = document.getElementById('app')!;
const kind: ViewKind =
  document.body.dataset.view === 'arbiter' || location.hash === '#arbiter' ? 'arbiter' : 'display';
const params = new URLSearchParams(location.search);
const orientation = params.get('orientation') === 'black' ? 'black' : 'white';
const theme = params.get('theme');
if (theme === 'light' || theme === 'dark' || theme === 'contrast') document.documentElement.dataset.theme = theme;
const reducedMotion =
  params.get('motion') === 'reduce' || window.matchMedia('(prefers-reduced-motion: reduce)').matches;
if (reducedMotion) document.documentElement.dataset.motion = 'reduce';

const model = new Model();
const view = new View(mount, model, kind, orientation, reducedMotion);
let ready = false;
const feed = new Feed(
  new URL('./', location.href),
  model,
  () => {
    ready = true;
    view.render();
  },
  s => view.setStatus(s),
);

/** Hooks for browser tests. */
(window as unknown as { __touchmove: unknown }).__touchmove = {
  fen: () => model.fen,
  boardFen: () => view.cg.getFen(),
  seq: () => model.seq,
  ready: () => ready,
  moves: () => model.moves.map(m => ({ ...m })),
  alerts: () => model.alerts.map(a => a.event),
  displaced: () => model.displaced(),
  remaining: (side: 'white' | 'black') => model.remaining(side, performance.now()),
  result: () => model.result,
  view: kind,
};

view.render();
feed.start();
window.setInterval(() => view.tick(performance.now()), 100);
window.addEventListener('hashchange', () => {
  if ((location.hash === '#arbiter') !== (kind === 'arbiter')) location.reload();
});
