// One board's full view: the board, move list, clocks, the arbiter's alerts
// (acknowledge each), the board's pending alerts and alert history, and a
// replay request.

import { Chessground } from '@lichess-org/chessground';
import type { Api } from '@lichess-org/chessground/api';
import type { Key } from '@lichess-org/chessground/types';
import {
  alertDetail,
  alertTitle,
  control,
  el,
  formatClock,
  remaining,
  setServerNow,
  timeOfDay,
} from './common';
import type { BoardSummary } from './types';

export class BoardPage {
  readonly cg: Api;
  private board: BoardSummary | null = null;
  private readonly title: HTMLElement;
  private readonly status: HTMLElement;
  private readonly white: HTMLElement;
  private readonly black: HTMLElement;
  private readonly moves: HTMLOListElement;
  private readonly alerts: HTMLElement;
  private readonly history: HTMLElement;
  private readonly stats: HTMLElement;
  readonly conn: HTMLElement;
  ready = false;

  constructor(
    mount: HTMLElement,
    readonly id: string,
    private readonly base: URL,
  ) {
    this.title = el('span', { class: 'h-title', 'data-testid': 'players' }, id);
    this.status = el('span', { class: 'h-status' });
    this.conn = el('span', { class: 'h-conn', 'data-testid': 'connection', 'data-status': 'connecting' }, 'connecting');
    const back = el('a', { href: '../', class: 'h-back' }, '← hall');
    const pgn = el('a', { href: `${encodeURIComponent(id)}.pgn`, class: 'h-link' }, 'PGN');
    const replay = el('button', { type: 'button', class: 'h-button' }, 'Ask for a replay');
    replay.addEventListener('click', () => void this.replay());
    const header = el('header', { class: 'h-head' }, back, this.title, this.status, this.conn, pgn, replay);
    const cgEl = el('div', { class: 'cg-wrap' });
    this.black = el('div', { class: 'h-bigclock black', 'data-testid': 'clock-black' });
    this.white = el('div', { class: 'h-bigclock white', 'data-testid': 'clock-white' });
    const boardCol = el('div', { class: 'h-boardcol' }, this.black, el('div', { class: 'h-big', 'data-testid': 'board' }, cgEl), this.white);
    this.alerts = el('ul', { class: 'h-board-alerts', 'data-testid': 'alerts' });
    this.moves = el('ol', { class: 'h-moves', 'data-testid': 'move-list' });
    this.history = el('ul', { class: 'h-history', 'data-testid': 'alert-history' });
    this.stats = el('p', { class: 'h-stats', 'data-testid': 'stats' });
    const side = el(
      'div',
      { class: 'h-side' },
      el('h2', {}, 'Alerts'),
      this.alerts,
      el('h2', {}, 'Moves'),
      this.moves,
      el('h2', {}, 'Board history'),
      this.history,
      this.stats,
    );
    mount.append(el('div', { class: 'h-app h-boardpage' }, header, el('div', { class: 'h-boardbody' }, boardCol, side)));
    this.cg = Chessground(cgEl, {
      viewOnly: true,
      coordinates: true,
      animation: { enabled: true, duration: 150 },
      highlight: { lastMove: true, check: true },
      drawable: { enabled: false, visible: true },
    });
  }

  update(nowMs: number, b: BoardSummary | null): void {
    setServerNow(nowMs);
    this.ready = true;
    if (!b) {
      this.title.textContent = `${this.id}: no such board (yet)`;
      return;
    }
    this.board = b;
    document.title = `${b.id}: ${b.white ?? '?'} – ${b.black ?? '?'}`;
    this.title.textContent = `${b.id}: ${b.white ?? '?'} – ${b.black ?? '?'}${b.result ? `  ${b.result.result}` : ''}`;
    this.status.textContent = b.status;
    this.status.className = `h-status ${b.status}`;
    const uci = b.last_move?.uci;
    if (b.fen)
      this.cg.set({ fen: b.fen, lastMove: uci ? [uci.slice(0, 2) as Key, uci.slice(2, 4) as Key] : undefined });
    this.moves.replaceChildren(
      ...(b.moves ?? []).map(m =>
        el('li', { class: m.side, 'data-ply': String(m.ply), 'data-uci': m.uci }, m.side === 'white' ? `${Math.ceil(m.ply / 2)}. ${m.san}` : m.san),
      ),
    );
    this.moves.scrollTop = this.moves.scrollHeight;
    this.alerts.replaceChildren(
      ...(b.alerts.length
        ? b.alerts.map(a => {
            const li = el(
              'li',
              {
                class: `h-alert ${a.type}${a.acknowledged ? ' acknowledged' : ''}${a.active ? ' active' : ' resolved'}`,
                'data-testid': 'board-alert',
                'data-id': String(a.id),
                'data-type': a.type,
              },
              el('span', { class: 'h-alert-title' }, alertTitle(a.type)),
              el('span', { class: 'h-alert-detail' }, alertDetail(a)),
              el('time', { class: 'h-alert-time' }, timeOfDay(a.first_seen_ms)),
            );
            if (!a.acknowledged) {
              const ack = el('button', { type: 'button', class: 'h-ack' }, 'Ack');
              ack.addEventListener('click', () => void this.acknowledge(a.id));
              li.append(ack);
            } else li.append(el('span', { class: 'h-acked' }, 'acknowledged'));
            return li;
          })
        : [el('li', { class: 'h-none' }, 'No alerts')]),
    );
    this.history.replaceChildren(
      ...(b.history ?? []).map(h =>
        el('li', { 'data-testid': 'history-row' }, `#${String(h.seq)} ${alertTitle(String(h.type))}`),
      ),
    );
    const s = b.stats;
    this.stats.textContent =
      `game ${b.game ?? '?'}, seq ${b.seq ?? '?'} (${b.source}); ${s.events} events, ${s.duplicates} duplicates, ` +
      `${s.gaps} gaps, ${s.replays} replay requests` +
      (b.missing && b.missing.length ? `; missing ${b.missing.length}` : '') +
      (s.last_latency_ms !== null ? `; latency ${s.last_latency_ms} ms (max ${s.max_latency_ms})` : '');
    this.tick();
  }

  tick(): void {
    const b = this.board;
    if (!b) return;
    for (const side of ['white', 'black'] as const) {
      const e = side === 'white' ? this.white : this.black;
      const ms = remaining(b, side);
      e.textContent = `${side === 'white' ? b.white ?? 'White' : b.black ?? 'Black'}  ${formatClock(ms)}`;
      e.dataset.ms = String(ms ?? '');
      e.classList.toggle('running', b.clock?.running === side && !b.result);
    }
  }

  private async acknowledge(alert: number): Promise<void> {
    const error = await control(new URL('../', this.base), 'acknowledge', { board: this.id, alert });
    if (error) window.alert(error);
  }

  private async replay(): Promise<void> {
    const error = await control(new URL('../', this.base), 'replay', { board: this.id });
    window.alert(error ?? 'Replay requested: the board publishes the game again.');
  }
}
