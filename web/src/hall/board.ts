// One board's full view: the board (with the worst open alert's squares
// marked and an illegal move drawn as an arrow from its square to its
// square), move list, clocks, the arbiter's alerts in plain words
// (acknowledge each; the ones the board resolved say so), the board's
// history in plain words, and a replay request.

import { Chessground } from '@lichess-org/chessground';
import type { Api } from '@lichess-org/chessground/api';
import type { Key } from '@lichess-org/chessground/types';
import type { DrawShape } from '@lichess-org/chessground/draw';
import {
  alertDetail,
  alertHeadline,
  alertSquares,
  closedText,
  control,
  historyText,
  el,
  formatClock,
  remaining,
  setServerNow,
  timeOfDay,
} from './common';
import type { BoardSummary } from './types';

/** Game time as m:ss (h:mm:ss past the hour). */
function gameTime(t: unknown): string {
  return typeof t === 'number' ? formatClock(t) : '';
}

export class BoardPage {
  readonly cg: Api;
  private readonly boardEl: HTMLElement;
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
    this.title = el('h1', { class: 'h-title', 'data-testid': 'players' }, id);
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
      el('h2', {}, 'What happened on the board'),
      this.history,
      el('h2', {}, 'Connection'),
      this.stats,
    );
    mount.append(el('div', { class: 'h-app h-boardpage' }, header, el('main', { class: 'h-boardbody' }, boardCol, side)));
    this.cg = Chessground(cgEl, {
      viewOnly: true,
      coordinates: true,
      animation: { enabled: true, duration: 150 },
      highlight: { lastMove: true, check: true },
      drawable: { enabled: false, visible: true },
    });
    cgEl.setAttribute('role', 'img');
    cgEl.setAttribute('aria-label', `Board ${id}`);
    this.boardEl = cgEl;
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
    this.title.textContent = `${b.id}: ${b.white ?? '?'} – ${b.black ?? '?'}${b.result ? `  ${b.result.result} (${b.result.reason.replace(/_/g, ' ')})` : ''}`;
    this.status.textContent = b.status;
    this.status.className = `h-status ${b.status}`;
    const uci = b.last_move?.uci;
    // The worst open alert's squares, and an illegal move as an arrow.
    const worst = b.worst;
    const marks = alertSquares(worst);
    const shapes: DrawShape[] =
      marks.from && marks.to
        ? [{ orig: marks.from as Key, dest: marks.to as Key, brush: 'red' }]
        : marks.squares.map(s => ({ orig: s as Key, brush: 'red' }));
    if (b.fen)
      this.cg.set({
        fen: b.fen,
        lastMove: uci ? [uci.slice(0, 2) as Key, uci.slice(2, 4) as Key] : undefined,
        highlight: { custom: new Map(marks.squares.map(s => [s as Key, 'h-mark'])) },
      });
    this.cg.setAutoShapes(shapes);
    const wrap = this.boardEl;
    wrap.setAttribute(
      'aria-label',
      `Board ${b.id}${b.last_move ? `, last move ${b.last_move.san}` : ''}${
        worst ? `; ${alertHeadline(worst)}${marks.squares.length ? ` on ${marks.squares.join(', ')}` : ''}` : ''
      }`,
    );
    wrap.dataset.marks = marks.squares.join(' ');
    wrap.dataset.arrow = marks.from && marks.to ? `${marks.from}${marks.to}` : '';
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
                class: `h-alert sev${a.severity}${a.acknowledged ? ' acknowledged' : ''}${a.active ? ' active' : ''}${a.open ? '' : ' closed'}`,
                'data-testid': 'board-alert',
                'data-id': String(a.id),
                'data-type': a.type,
                'data-open': String(a.open),
              },
              el('span', { class: 'h-alert-title' }, alertHeadline(a)),
              el('span', { class: 'h-alert-detail' }, alertDetail(a)),
              el('time', { class: 'h-alert-time' }, timeOfDay(a.first_seen_ms)),
            );
            if (a.open) {
              const ack = el('button', { type: 'button', class: 'h-ack', 'aria-label': `Ack: ${alertHeadline(a)}` }, 'Ack');
              ack.addEventListener('click', () => void this.acknowledge(a.id));
              li.append(ack);
            } else li.append(el('span', { class: 'h-acked' }, closedText(a)));
            return li;
          })
        : [el('li', { class: 'h-none' }, 'No alerts')]),
    );
    this.history.replaceChildren(
      ...(b.history ?? []).map(h =>
        el(
          'li',
          { 'data-testid': 'history-row', 'data-type': String(h.type) },
          el('time', {}, gameTime(h.t_ms)),
          ' ',
          historyText(h),
        ),
      ),
    );
    const s = b.stats;
    const missing = b.missing?.length ?? 0;
    this.stats.textContent =
      (b.status === 'offline' ? 'The board is offline. ' : b.status === 'online' ? 'The board is online. ' : '') +
      (missing || b.gap
        ? `Part of the record has not arrived yet (${missing || 'some'} message${missing === 1 ? '' : 's'}); the hall asked the board to send it again.`
        : b.source === 'state'
          ? 'Shown from the board\'s last summary; the full record is on its way.'
          : 'The record is complete.') +
      (s.last_latency_ms !== null ? ` Board to hall: ${s.last_latency_ms} ms.` : '');
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
