// The arbiter's dashboard: every board at a glance, alerts first and loud.
// A strip of open alerts on top (acknowledge from there); board cards with
// open alerts sorted first and highlighted, offline boards as alerts.

import { Chessground } from '@lichess-org/chessground';
import type { Api } from '@lichess-org/chessground/api';
import type { Key } from '@lichess-org/chessground/types';
import {
  alertDetail,
  alertTitle,
  control,
  el,
  formatClock,
  hallNow,
  lastMoveText,
  remaining,
  setServerNow,
  timeOfDay,
} from './common';
import type { BoardSummary, Fault, HallAlert, HallSnapshot } from './types';

interface Card {
  root: HTMLElement;
  cg: Api;
  players: HTMLElement;
  last: HTMLElement;
  white: HTMLElement;
  black: HTMLElement;
  status: HTMLElement;
  badge: HTMLElement;
  fen: string | null;
}

/** Natural order: b2 before b10. */
const collator = new Intl.Collator(undefined, { numeric: true });

export class Dashboard {
  private readonly boards = new Map<string, BoardSummary>();
  private readonly cards = new Map<string, Card>();
  private readonly grid: HTMLElement;
  private readonly strip: HTMLElement;
  private readonly stripList: HTMLElement;
  private readonly conn: HTMLElement;
  private readonly title: HTMLElement;
  private readonly counts: HTMLElement;
  private readonly faults: HTMLElement;
  /** When each alert first showed on this page (browser ms), for tests. */
  readonly shownAt = new Map<number, number>();
  hall = '';
  ready = false;

  constructor(
    mount: HTMLElement,
    private readonly base: URL,
  ) {
    this.title = el('span', { class: 'h-title' }, 'touchmove hall');
    this.counts = el('span', { class: 'h-counts', 'data-testid': 'counts' });
    this.conn = el('span', { class: 'h-conn', 'data-testid': 'connection', 'data-status': 'connecting' }, 'connecting');
    const pgn = el('a', { href: 'round.pgn', class: 'h-link' }, 'round PGN');
    const header = el('header', { class: 'h-head' }, this.title, this.counts, this.conn, pgn);
    this.stripList = el('ul', { class: 'h-strip-list' });
    this.strip = el('section', { class: 'h-strip', 'data-testid': 'alert-strip', 'data-count': '0' }, this.stripList);
    this.grid = el('main', { class: 'h-grid', 'data-testid': 'boards' });
    this.faults = el('footer', { class: 'h-faults', 'data-testid': 'faults', hidden: '' });
    mount.append(el('div', { class: 'h-app' }, header, this.strip, this.grid, this.faults));
  }

  setConnection(status: 'connecting' | 'live' | 'offline', broker?: boolean): void {
    const text = status !== 'live' ? `hall ${status}` : broker === false ? 'broker down' : 'live';
    this.conn.textContent = text;
    this.conn.dataset.status = status === 'live' && broker === false ? 'broker-down' : status;
  }

  snapshot(s: HallSnapshot): void {
    setServerNow(s.now_ms);
    this.hall = s.hall;
    this.title.textContent = `touchmove hall ${s.hall}`;
    document.title = `hall ${s.hall}`;
    const ids = new Set(s.boards.map(b => b.id));
    for (const id of [...this.boards.keys()]) if (!ids.has(id)) this.boards.delete(id);
    for (const b of s.boards) this.boards.set(b.id, b);
    this.setConnection('live', s.connected);
    this.setFaults(s.fault_count, s.faults);
    this.render();
    this.ready = true;
  }

  board(nowMs: number, b: BoardSummary | null): void {
    setServerNow(nowMs);
    if (!b) return;
    this.boards.set(b.id, b);
    this.render();
  }

  meta(m: { now_ms: number; connected: boolean; fault_count: number; faults: Fault[] }): void {
    setServerNow(m.now_ms);
    this.setConnection('live', m.connected);
    this.setFaults(m.fault_count, m.faults);
  }

  private setFaults(count: number, faults: Fault[]): void {
    this.faults.hidden = count === 0;
    this.faults.dataset.count = String(count);
    const last = faults[faults.length - 1];
    this.faults.textContent = last
      ? `${count} bad MQTT message${count === 1 ? '' : 's'}; last at ${timeOfDay(last.at_ms)} on ${last.topic}: ${last.message}`
      : '';
  }

  /** Boards in the page's order: open alerts first (oldest first), then natural order. */
  order(): BoardSummary[] {
    const oldest = (b: BoardSummary) => Math.min(...b.alerts.filter(a => !a.acknowledged).map(a => a.id));
    return [...this.boards.values()].sort((a, b) => {
      const [x, y] = [oldest(a), oldest(b)];
      if (x !== y) return x - y; // Infinity (no open alert) last
      return collator.compare(a.id, b.id);
    });
  }

  openAlerts(): HallAlert[] {
    return [...this.boards.values()]
      .flatMap(b => b.alerts.filter(a => !a.acknowledged))
      .sort((a, b) => b.id - a.id);
  }

  render(): void {
    const boards = this.order();
    const online = boards.filter(b => b.status === 'online').length;
    this.counts.textContent = `${boards.length} boards, ${online} online`;
    this.renderStrip();
    boards.forEach((b, i) => {
      const card = this.cards.get(b.id) ?? this.makeCard(b.id);
      this.fill(card, b);
      if (this.grid.children[i] !== card.root) this.grid.insertBefore(card.root, this.grid.children[i] ?? null);
    });
    for (const [id, card] of this.cards)
      if (!this.boards.has(id)) {
        card.cg.destroy();
        card.root.remove();
        this.cards.delete(id);
      }
  }

  private renderStrip(): void {
    const open = this.openAlerts();
    this.strip.dataset.count = String(open.length);
    this.strip.classList.toggle('quiet', open.length === 0);
    const items = open.map(a => {
      if (!this.shownAt.has(a.id)) this.shownAt.set(a.id, Date.now());
      const ack = el('button', { class: 'h-ack', type: 'button', title: 'Acknowledge' }, 'Ack');
      ack.addEventListener('click', ev => {
        ev.stopPropagation();
        void this.acknowledge(a.board, a.id);
      });
      const li = el(
        'li',
        {
          class: `h-alert ${a.type}${a.active ? ' active' : ' resolved'}`,
          'data-testid': 'hall-alert',
          'data-id': String(a.id),
          'data-board': a.board,
          'data-type': a.type,
          'data-first-seen-ms': String(a.first_seen_ms),
          'data-board-wall-ms': String(a.board_wall_ms ?? ''),
          'data-shown-ms': String(this.shownAt.get(a.id)),
        },
        el('a', { class: 'h-alert-board', href: `board/${encodeURIComponent(a.board)}` }, a.board),
        el('span', { class: 'h-alert-title' }, alertTitle(a.type)),
        el('span', { class: 'h-alert-detail' }, alertDetail(a) + (a.active ? '' : ' (resolved on the board)')),
        el('time', { class: 'h-alert-time' }, timeOfDay(a.first_seen_ms)),
        ack,
      );
      return li;
    });
    this.stripList.replaceChildren(
      ...(items.length ? items : [el('li', { class: 'h-none' }, 'No open alerts')]),
    );
  }

  async acknowledge(board: string, alert?: number): Promise<void> {
    const error = await control(this.base, 'acknowledge', alert === undefined ? { board } : { board, alert });
    if (error) alert === undefined ? window.alert(error) : window.alert(`${board}: ${error}`);
  }

  private makeCard(id: string): Card {
    const cgEl = el('div', { class: 'cg-wrap' });
    const players = el('div', { class: 'h-players' });
    const last = el('div', { class: 'h-last' });
    const white = el('span', { class: 'h-clock white' });
    const black = el('span', { class: 'h-clock black' });
    const status = el('span', { class: 'h-status' });
    const badge = el('span', { class: 'h-badge' });
    const name = el('span', { class: 'h-id' }, id);
    const root = el(
      'a',
      { class: 'h-card', 'data-testid': 'board-card', 'data-board': id, href: `board/${encodeURIComponent(id)}` },
      el('div', { class: 'h-card-head' }, name, status, badge),
      el('div', { class: 'h-mini' }, cgEl),
      players,
      el('div', { class: 'h-card-foot' }, last, el('span', { class: 'h-clocks' }, white, black)),
    );
    const cg = Chessground(cgEl, {
      viewOnly: true,
      coordinates: false,
      animation: { enabled: false },
      highlight: { lastMove: true, check: false },
      drawable: { enabled: false, visible: false },
    });
    const card: Card = { root, cg, players, last, white, black, status, badge, fen: null };
    this.cards.set(id, card);
    return card;
  }

  private fill(card: Card, b: BoardSummary): void {
    const open = b.alerts.filter(a => !a.acknowledged);
    card.root.classList.toggle('alerting', open.length > 0);
    card.root.classList.toggle('offline', b.status === 'offline');
    card.root.dataset.openAlerts = String(open.length);
    card.root.dataset.status = b.status;
    card.status.textContent = b.status;
    card.status.className = `h-status ${b.status}`;
    card.badge.textContent = open.length ? `${open.length} ⚠ ${alertTitle(open[0].type)}` : '';
    card.badge.hidden = open.length === 0;
    card.players.textContent = `${b.white ?? '?'} – ${b.black ?? '?'}`;
    card.last.textContent = b.result ? `${b.result.result} (${b.result.reason})` : lastMoveText(b);
    if (b.fen && b.fen !== card.fen) {
      const uci = b.last_move?.uci;
      card.cg.set({
        fen: b.fen,
        lastMove: uci ? [uci.slice(0, 2) as Key, uci.slice(2, 4) as Key] : undefined,
      });
      card.fen = b.fen;
    }
    this.tickCard(card, b);
  }

  private tickCard(card: Card, b: BoardSummary): void {
    for (const side of ['white', 'black'] as const) {
      const e = side === 'white' ? card.white : card.black;
      const ms = remaining(b, side);
      e.textContent = formatClock(ms);
      e.classList.toggle('running', b.clock?.running === side && !b.result);
      e.classList.toggle('low', ms !== null && ms < 60_000);
    }
  }

  tick(): void {
    void hallNow;
    for (const [id, card] of this.cards) {
      const b = this.boards.get(id);
      if (b) this.tickCard(card, b);
    }
  }
}
