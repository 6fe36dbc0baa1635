// Entry point of the hall pages: hall.html (the dashboard, served at /) and
// board.html (one board, served at /board/<id>). Both read the hall's SSE
// feed (`events`, `events?board=<id>`) and reconnect when it drops.

import './hall.css';
import { BoardPage } from './board';
import { Dashboard } from './dashboard';
import type { BoardSummary, HallSnapshot } from './types';

const mount = document.getElementById('app')!;
const isBoard = document.body.dataset.view === 'board';

function connect(url: URL, on: Record<string, (data: unknown) => void>, status: (s: 'live' | 'offline') => void) {
  const source = new EventSource(url);
  for (const [name, f] of Object.entries(on))
    source.addEventListener(name, ev => f(JSON.parse((ev as MessageEvent<string>).data)));
  source.onopen = () => status('live');
  // EventSource reconnects by itself (the hall sends `retry:`); the first
  // message after it is the whole state again.
  source.onerror = () => status('offline');
}

if (isBoard) {
  const id = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
  const base = new URL('./', location.href);
  const page = new BoardPage(mount, id, base);
  const setStatus = (s: string) => {
    page.conn.textContent = s;
    page.conn.dataset.status = s;
  };
  connect(
    new URL(`../events?board=${encodeURIComponent(id)}`, location.href),
    {
      board: d => {
        const m = d as { now_ms: number; board: BoardSummary | null };
        page.update(m.now_ms, m.board);
      },
    },
    setStatus,
  );
  setInterval(() => page.tick(), 200);
  (window as unknown as { __hall: unknown }).__hall = { ready: () => page.ready, page };
} else {
  const dash = new Dashboard(mount, new URL('./', location.href));
  connect(
    new URL('events', location.href),
    {
      hall: d => dash.snapshot(d as HallSnapshot),
      board: d => {
        const m = d as { now_ms: number; board: BoardSummary | null };
        dash.board(m.now_ms, m.board);
      },
      meta: d => dash.meta(d as Parameters<Dashboard['meta']>[0]),
    },
    s => dash.setConnection(s),
  );
  setInterval(() => dash.tick(), 500);
  /** Hooks for browser tests and the benchmark. */
  (window as unknown as { __hall: unknown }).__hall = {
    ready: () => dash.ready,
    boards: () => dash.order().map(b => b.id),
    alerts: () => dash.openAlerts(),
    drawnQueue: () => dash.drawnQueue(),
    closed: () => dash.closedAlerts(),
    shownAt: (id: number) => dash.shownAt.get(id) ?? null,
    frameMs: () => dash.frameMs,
  };
}
