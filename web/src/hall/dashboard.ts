// The arbiter's dashboard, made for a whole round (1,500 boards):
//
// - the arbiter's queue: open alerts by severity (a completed illegal move
//   first), then by age; alerts the board resolved by itself leave it for
//   the history without an Ack (decided by the hall). While the pointer or
//   the keyboard is in the queue its rows never move: news waits behind an
//   "N new" button. Optional sound and desktop notification; the open
//   count in the page's title.
// - the boards as a grid of mini boards or a compact table, filtered (open
//   alerts, offline, low on time, finished, playing) and searched (board or
//   player); both virtualised: only the rows in view are in the DOM.
// - the round panel: boards playing and finished, the results, and the
//   broadcast push's status (GET push.json, polled).
//
// The feed's updates are batched per animation frame and only what changed
// is touched.

import {
  alertDetail,
  alertHeadline,
  alertSquares,
  closedText,
  control,
  el,
  formatClock,
  lastMoveText,
  remaining,
  setServerNow,
  timeOfDay,
} from './common';
import { MiniBoard } from './miniboard';
import type { BoardSummary, Fault, HallAlert, HallSnapshot, PushStatus } from './types';

/** Natural order: b2 before b10. */
const collator = new Intl.Collator(undefined, { numeric: true });

/** Remaining time below which a running game counts as low on time. */
export const LOW_MS = 5 * 60_000;
const CARD_W = 200;
const CARD_H = 284;
const GAP = 8;
const ROW_H = 34;
/** Table rows drawn beyond the visible ones, above and below (one row of cards in the grid). */
const OVERSCAN = 10;
/** Queue rows drawn at most (the rest counted). */
const QUEUE_SHOWN = 150;
const HISTORY_KEPT = 100;
/** The least time between two frames drawn for the feed's updates (ms). */
const FEED_FRAME_MS = 200;

type View = 'grid' | 'table';
type Filter = 'all' | 'alerts' | 'offline' | 'low' | 'finished' | 'playing';
const FILTERS: [Filter, string][] = [
  ['all', 'All boards'],
  ['alerts', 'Open alerts'],
  ['offline', 'Offline'],
  ['low', 'Low on time'],
  ['finished', 'Finished'],
  ['playing', 'Playing'],
];

interface Card {
  root: HTMLAnchorElement;
  mini: MiniBoard;
  name: HTMLElement;
  players: HTMLElement;
  last: HTMLElement;
  white: HTMLElement;
  black: HTMLElement;
  status: HTMLElement;
  badge: HTMLElement;
  id: string | null;
}

interface Row {
  root: HTMLTableRowElement;
  cells: HTMLTableCellElement[];
  link: HTMLAnchorElement;
  id: string | null;
}

/** Sets a text only when it differs (each set makes a new text node and a layout). */
function setText(e: HTMLElement, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}

const worstKey = (b: BoardSummary) => (b.worst ? b.worst.severity * 1e12 + b.worst.id : Infinity);
const queueCmp = (a: HallAlert, b: HallAlert) => a.severity - b.severity || a.id - b.id;

export class Dashboard {
  private readonly boards = new Map<string, BoardSummary>();
  /** Every open alert, by id. */
  private readonly open = new Map<number, HallAlert>();
  /** Closed alerts (resolved or acknowledged), by id. */
  private readonly closed = new Map<number, HallAlert>();
  /** Updates received since the last frame. */
  private readonly incoming = new Map<string, BoardSummary>();
  private frame = 0;
  private lastFrame = 0;
  private view: View = 'grid';
  private filter: Filter = 'all';
  private search = '';
  /** The boards shown, in order (filtered and searched). */
  private shown: BoardSummary[] = [];
  private orderDirty = true;
  /** The arbiter changed the filter, search or view: redraw even under the pointer. */
  private listForced = false;
  private queueDirty = true;
  private historyDirty = true;
  /** The queue's rows, by alert id, in the order drawn. */
  private readonly queueRows = new Map<number, HTMLLIElement>();
  private queueHeld = false;
  private pointerInQueue = false;
  private pointerInList = false;
  private readonly cards: Card[] = [];
  private readonly rows: Row[] = [];
  private readonly grid: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly tbody: HTMLTableSectionElement;
  private readonly scroller: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly queueList: HTMLElement;
  private readonly queueCount: HTMLElement;
  private readonly queueMore: HTMLElement;
  private readonly newButton: HTMLButtonElement;
  private readonly historyList: HTMLElement;
  private readonly historySummary: HTMLElement;
  private readonly live: HTMLElement;
  private readonly conn: HTMLElement;
  private readonly title: HTMLElement;
  private readonly counts: HTMLElement;
  private readonly faults: HTMLElement;
  private readonly round: Record<string, HTMLElement> = {};
  private readonly push: HTMLElement;
  private readonly filterButtons = new Map<Filter, HTMLButtonElement>();
  private readonly viewButtons = new Map<View, HTMLButtonElement>();
  private sound = false;
  private notify = false;
  private audio: AudioContext | null = null;
  /** When each alert's row first showed on this page (browser ms), for tests and the benchmark. */
  readonly shownAt = new Map<number, number>();
  /** Main-thread time spent on frames (ms), for the benchmark. */
  frameMs = 0;
  hall = '';
  ready = false;

  constructor(
    mount: HTMLElement,
    private readonly base: URL,
  ) {
    this.sound = localStorage.getItem('touchmove-hall-sound') === '1';
    this.notify = localStorage.getItem('touchmove-hall-notify') === '1' && 'Notification' in window;
    this.title = el('h1', { class: 'h-title' }, 'touchmove hall');
    this.counts = el('span', { class: 'h-counts', 'data-testid': 'counts' });
    this.conn = el('span', { class: 'h-conn', 'data-testid': 'connection', 'data-status': 'connecting' }, 'connecting');
    const soundButton = this.toggle('Sound', this.sound, on => {
      this.sound = on;
      localStorage.setItem('touchmove-hall-sound', on ? '1' : '0');
      if (on) this.beep();
    });
    const notifyButton = this.toggle('Notify', this.notify, on => {
      this.notify = on;
      localStorage.setItem('touchmove-hall-notify', on ? '1' : '0');
      if (on && 'Notification' in window && Notification.permission === 'default') void Notification.requestPermission();
    });
    const pgn = el('a', { href: 'round.pgn', class: 'h-link' }, 'Round PGN');
    const header = el('header', { class: 'h-head' }, this.title, this.counts, this.conn, soundButton, notifyButton, pgn);

    // The queue.
    this.queueCount = el('span', { class: 'h-qcount', 'data-testid': 'queue-count' }, '0');
    this.newButton = el('button', { type: 'button', class: 'h-new', 'data-testid': 'queue-new', hidden: '' }, '');
    this.newButton.addEventListener('click', () => this.release(true));
    this.queueList = el('ul', { class: 'h-queue-list', 'data-testid': 'queue', 'aria-label': 'Open alerts, most severe first' });
    this.queueMore = el('p', { class: 'h-none', hidden: '' });
    this.historyList = el('ul', { class: 'h-closed-list', 'data-testid': 'history' });
    this.historySummary = el('summary', {}, 'Resolved and acknowledged');
    const queue = el(
      'section',
      { class: 'h-queue', 'data-testid': 'alert-strip', 'data-count': '0', 'aria-labelledby': 'h-queue-title' },
      el('h2', { id: 'h-queue-title' }, "Arbiter's queue ", this.queueCount),
      this.newButton,
      this.queueList,
      this.queueMore,
      el('details', { class: 'h-closed' }, this.historySummary, this.historyList),
    );
    const hold = () => this.hold();
    queue.addEventListener('pointerenter', () => {
      this.pointerInQueue = true;
      hold();
    });
    queue.addEventListener('pointerleave', () => {
      this.pointerInQueue = false;
      this.release(false);
    });
    // Keyboard focus holds the rows too (a click's focus does not: the
    // pointer leaving is enough).
    queue.addEventListener('focusin', ev => {
      if ((ev.target as Element).matches(':focus-visible')) hold();
    });
    queue.addEventListener('focusout', () => setTimeout(() => this.release(false), 0));

    // The round.
    const stat = (key: string, label: string) => {
      this.round[key] = el('dd', { 'data-testid': `round-${key}` }, '0');
      return [el('dt', {}, label), this.round[key]];
    };
    this.push = el('div', { class: 'h-push', 'data-testid': 'push-status', hidden: '' });
    const roundPanel = el(
      'section',
      { class: 'h-round', 'data-testid': 'round-panel', 'aria-labelledby': 'h-round-title' },
      el('h2', { id: 'h-round-title' }, 'Round'),
      el(
        'dl',
        {},
        ...stat('boards', 'Boards'),
        ...stat('playing', 'Playing'),
        ...stat('finished', 'Finished'),
        ...stat('white', '1-0'),
        ...stat('draw', '½-½'),
        ...stat('black', '0-1'),
        ...stat('offline', 'Offline'),
      ),
      this.push,
    );

    // The boards.
    const filters = el('div', { class: 'h-filters', role: 'group', 'aria-label': 'Show' });
    for (const [f, label] of FILTERS) {
      const b = el('button', { type: 'button', class: 'h-chip', 'data-filter': f, 'aria-pressed': String(f === 'all') }, label);
      b.addEventListener('click', () => this.setFilter(f));
      this.filterButtons.set(f, b);
      filters.append(b);
    }
    const views = el('div', { class: 'h-views', role: 'group', 'aria-label': 'View' });
    for (const [v, label] of [
      ['grid', 'Grid'],
      ['table', 'Table'],
    ] as [View, string][]) {
      const b = el('button', { type: 'button', class: 'h-chip', 'data-view': v, 'aria-pressed': String(v === 'grid') }, label);
      b.addEventListener('click', () => this.setView(v));
      this.viewButtons.set(v, b);
      views.append(b);
    }
    const search = el('input', {
      type: 'search',
      class: 'h-search',
      placeholder: 'Board or player',
      'aria-label': 'Search by board or player',
      'data-testid': 'search',
    });
    search.addEventListener('input', () => {
      this.search = search.value.trim().toLowerCase();
      this.orderDirty = this.listForced = true;
      this.schedule(true);
    });
    const toolbar = el('div', { class: 'h-toolbar' }, views, filters, search);
    this.grid = el('div', { class: 'h-vgrid', 'data-testid': 'boards' });
    this.tbody = el('tbody');
    const head = el(
      'tr',
      {},
      ...['Board', 'White', 'Black', 'Move', 'White clock', 'Black clock', 'State', 'Alert'].map(h => el('th', { scope: 'col' }, h)),
    );
    this.table = el('table', { class: 'h-table', 'data-testid': 'board-table', hidden: '' }, el('thead', {}, head), this.tbody);
    this.spacer = el('div', { class: 'h-spacer' }, this.grid, this.table);
    this.scroller = el('div', { class: 'h-scroller', tabindex: '0', 'aria-label': 'Boards' }, this.spacer);
    this.scroller.addEventListener('scroll', () => this.schedule(true), { passive: true });
    this.scroller.addEventListener('pointerenter', () => (this.pointerInList = true));
    this.scroller.addEventListener('pointerleave', () => {
      this.pointerInList = false;
      this.schedule(true);
    });
    new ResizeObserver(() => this.schedule(true)).observe(this.scroller);
    const main = el('main', { class: 'h-main', 'aria-label': 'Boards of the round' }, toolbar, this.scroller);

    this.faults = el('footer', { class: 'h-faults', 'data-testid': 'faults', hidden: '' });
    this.live = el('div', { class: 'h-sr', 'aria-live': 'polite', 'data-testid': 'live' });
    const side = el('aside', { class: 'h-sidebar', 'aria-label': 'Alerts and round' }, queue, roundPanel);
    mount.append(el('div', { class: 'h-app h-dash' }, header, el('div', { class: 'h-dash-body' }, side, main), this.faults, this.live));
    void this.pollPush();
    setInterval(() => void this.pollPush(), 5000);
  }

  private toggle(label: string, on: boolean, set: (on: boolean) => void): HTMLButtonElement {
    const b = el('button', { type: 'button', class: 'h-chip', 'aria-pressed': String(on) }, label);
    b.addEventListener('click', () => {
      const next = b.getAttribute('aria-pressed') !== 'true';
      b.setAttribute('aria-pressed', String(next));
      set(next);
    });
    return b;
  }

  setConnection(status: 'connecting' | 'live' | 'offline', broker?: boolean): void {
    const text = status !== 'live' ? `hall ${status}` : broker === false ? 'broker down' : 'live';
    this.conn.textContent = text;
    this.conn.dataset.status = status === 'live' && broker === false ? 'broker-down' : status;
  }

  /** The whole hall (first message, or after falling behind). */
  snapshot(s: HallSnapshot): void {
    setServerNow(s.now_ms);
    this.hall = s.hall;
    this.title.textContent = `touchmove hall ${s.hall}`;
    this.boards.clear();
    this.incoming.clear();
    this.open.clear();
    for (const b of s.boards) this.take(b, false);
    for (const a of s.closed ?? []) this.closed.set(a.id, a);
    this.setConnection('live', s.connected);
    this.setFaults(s.fault_count, s.faults);
    this.orderDirty = true;
    this.queueDirty = true;
    this.render();
    this.ready = true;
  }

  board(nowMs: number, b: BoardSummary | null): void {
    setServerNow(nowMs);
    if (!b) return;
    this.incoming.set(b.id, b);
    this.schedule();
  }

  meta(m: { now_ms: number; connected: boolean; fault_count: number; faults: Fault[] }): void {
    setServerNow(m.now_ms);
    this.setConnection('live', m.connected);
    this.setFaults(m.fault_count, m.faults);
  }

  /**
   * Asks for a frame. The feed's updates are drawn at most every
   * {@link FEED_FRAME_MS} (a round sends hundreds a second; each frame
   * costs paint); the arbiter's own actions (scroll, filter) at once.
   */
  private schedule(now = false): void {
    if (this.frame) return;
    const wait = now ? 0 : this.lastFrame + FEED_FRAME_MS - performance.now();
    if (wait <= 0) this.frame = requestAnimationFrame(() => this.render());
    else {
      this.frame = -1;
      setTimeout(() => (this.frame = requestAnimationFrame(() => this.render())), wait);
    }
  }

  /** Takes one board's summary into the model; true if a new open alert came with it. */
  private take(b: BoardSummary, announce: boolean): boolean {
    const before = this.boards.get(b.id);
    this.boards.set(b.id, b);
    if (!before || worstKey(before) !== worstKey(b) || before.status !== b.status || !!before.result !== !!b.result)
      this.orderDirty = true;
    let fresh = false;
    const openNow = new Set<number>();
    for (const a of b.alerts) {
      if (a.open) {
        openNow.add(a.id);
        const prev = this.open.get(a.id);
        if (!prev) {
          fresh = true;
          if (announce) this.announce(a);
        }
        if (!prev || prev.active !== a.active) this.queueDirty = true;
        this.open.set(a.id, a);
      } else {
        if (this.open.delete(a.id)) this.queueDirty = true;
        if (!this.closed.has(a.id)) this.queueDirty = this.historyDirty = true;
        this.closed.set(a.id, a);
      }
    }
    if (before)
      for (const a of before.alerts)
        if (a.open && !openNow.has(a.id) && this.open.delete(a.id)) {
          // Closed and no longer listed with the board: history from what we had.
          this.closed.set(a.id, { ...a, open: false });
          this.queueDirty = this.historyDirty = true;
        }
    return fresh;
  }

  private announce(a: HallAlert): void {
    this.live.textContent = `${a.board}: ${alertHeadline(a)}`;
    if (a.severity > 2) return;
    if (this.sound) this.beep();
    if (this.notify && 'Notification' in window && Notification.permission === 'granted')
      new Notification(`${a.board}: ${alertHeadline(a)}`, { body: alertDetail(a), tag: `touchmove-${a.id}` });
  }

  private beep(): void {
    try {
      this.audio ??= new AudioContext();
      const osc = this.audio.createOscillator();
      const gain = this.audio.createGain();
      gain.gain.value = 0.15;
      osc.frequency.value = 880;
      osc.connect(gain).connect(this.audio.destination);
      osc.start();
      osc.stop(this.audio.currentTime + 0.18);
    } catch {
      // No audio output: the page stays silent.
    }
  }

  private setFaults(count: number, faults: Fault[]): void {
    this.faults.hidden = count === 0;
    this.faults.dataset.count = String(count);
    const last = faults[faults.length - 1];
    this.faults.textContent = last
      ? `${count} bad MQTT message${count === 1 ? '' : 's'}; last at ${timeOfDay(last.at_ms)} on ${last.topic}: ${last.message}`
      : '';
  }

  private setFilter(f: Filter): void {
    this.filter = f;
    for (const [k, b] of this.filterButtons) b.setAttribute('aria-pressed', String(k === f));
    this.orderDirty = this.listForced = true;
    this.scroller.scrollTop = 0;
    this.schedule(true);
  }

  private setView(v: View): void {
    this.view = v;
    for (const [k, b] of this.viewButtons) b.setAttribute('aria-pressed', String(k === v));
    this.grid.hidden = v !== 'grid';
    this.table.hidden = v !== 'table';
    this.scroller.scrollTop = 0;
    this.orderDirty = this.listForced = true;
    this.schedule(true);
  }

  private passes(b: BoardSummary): boolean {
    switch (this.filter) {
      case 'alerts':
        if (b.open_alerts === 0) return false;
        break;
      case 'offline':
        if (b.status !== 'offline') return false;
        break;
      case 'low': {
        if (b.result || !b.clock?.running) return false;
        const ms = remaining(b, b.clock.running);
        if (ms === null || ms >= LOW_MS) return false;
        break;
      }
      case 'finished':
        if (!b.result) return false;
        break;
      case 'playing':
        if (b.result) return false;
        break;
      case 'all':
    }
    if (!this.search) return true;
    const q = this.search;
    return b.id.toLowerCase().includes(q) || (b.white ?? '').toLowerCase().includes(q) || (b.black ?? '').toLowerCase().includes(q);
  }

  /** Boards in the page's order: worst open alert first (severity, then age), then natural order. */
  order(): BoardSummary[] {
    return [...this.boards.values()].sort((a, b) => worstKey(a) - worstKey(b) || collator.compare(a.id, b.id));
  }

  /** The queue's alerts in order: severity, then age. */
  openAlerts(): HallAlert[] {
    return [...this.open.values()].sort(queueCmp);
  }

  /** The queue's alert ids as drawn. */
  drawnQueue(): number[] {
    return [...this.queueRows.keys()];
  }

  closedAlerts(): HallAlert[] {
    return [...this.closed.values()].sort((a, b) => (b.resolved_ms ?? b.first_seen_ms) - (a.resolved_ms ?? a.first_seen_ms) || b.id - a.id);
  }

  /** One frame: takes the updates, then redraws what they changed. */
  render(): void {
    const t0 = performance.now();
    this.frame = 0;
    this.lastFrame = t0;
    const changed = new Set<string>();
    for (const [id, b] of this.incoming) {
      this.take(b, this.ready);
      changed.add(id);
    }
    this.incoming.clear();
    // The list's order holds while the pointer is over it (rows never
    // move under the pointer), unless the filter changed.
    if (this.orderDirty && (!this.pointerInList || this.listForced || this.shown.length === 0)) {
      this.shown = this.order().filter(b => this.passes(b));
      this.orderDirty = false;
      this.listForced = false;
      changed.clear();
      this.drawList(true);
    } else {
      for (let i = 0; i < this.shown.length; i++) {
        const b = this.boards.get(this.shown[i].id);
        if (b) this.shown[i] = b;
      }
      this.drawList(false, changed);
    }
    if (this.queueDirty) this.drawQueue();
    this.drawRound();
    this.frameMs += performance.now() - t0;
  }

  private drawRound(): void {
    let playing = 0;
    let finished = 0;
    let white = 0;
    let black = 0;
    let draw = 0;
    let offline = 0;
    let online = 0;
    for (const b of this.boards.values()) {
      if (b.status === 'offline') offline++;
      if (b.status === 'online') online++;
      if (b.result) {
        finished++;
        if (b.result.result === '1-0') white++;
        else if (b.result.result === '0-1') black++;
        else draw++;
      } else if (b.game !== null) playing++;
    }
    const set = (k: string, v: number) => {
      const s = String(v);
      if (this.round[k].textContent !== s) this.round[k].textContent = s;
    };
    set('boards', this.boards.size);
    set('playing', playing);
    set('finished', finished);
    set('white', white);
    set('draw', draw);
    set('black', black);
    set('offline', offline);
    const counts = `${this.boards.size} boards, ${online} online, ${this.shown.length} shown`;
    if (this.counts.textContent !== counts) this.counts.textContent = counts;
  }

  // ---------- the queue ----------

  private hold(): void {
    this.queueHeld = true;
  }

  /** Ends the hold (the pointer and the focus left the queue, or "N new" was pressed). */
  private release(force: boolean): void {
    const active = document.activeElement;
    const focused = !!active && this.queueList.parentElement!.contains(active) && active.matches(':focus-visible');
    if (!force && (this.pointerInQueue || focused)) return;
    this.queueHeld = false;
    this.queueDirty = true;
    this.schedule(true);
  }

  private drawQueue(): void {
    const open = this.openAlerts();
    const strip = this.queueList.parentElement!;
    strip.dataset.count = String(open.length);
    this.queueCount.textContent = String(open.length);
    document.title = open.length ? `(${open.length}) hall ${this.hall}` : `hall ${this.hall}`;
    if (this.queueHeld) {
      // Rows stay where they are: closed ones are greyed, news is counted.
      let fresh = 0;
      for (const a of open) if (!this.queueRows.has(a.id)) fresh++;
      for (const [id, li] of this.queueRows) {
        const a = this.open.get(id) ?? this.closed.get(id);
        if (a) this.fillAlert(li, a);
      }
      this.newButton.hidden = fresh === 0;
      this.newButton.textContent = `${fresh} new – show`;
      return;
    }
    this.queueDirty = false;
    this.newButton.hidden = true;
    const drawn = open.slice(0, QUEUE_SHOWN);
    const keep = new Set(drawn.map(a => a.id));
    for (const [id, li] of this.queueRows)
      if (!keep.has(id)) {
        li.remove();
        this.queueRows.delete(id);
      }
    const now = Date.now();
    const items = drawn.map(a => {
      let li = this.queueRows.get(a.id);
      if (!li) {
        li = this.makeAlert(a);
        this.shownAt.set(a.id, now);
        li.dataset.shownMs = String(now);
      }
      this.fillAlert(li, a);
      return li;
    });
    this.queueRows.clear();
    for (const li of items) this.queueRows.set(Number(li.dataset.id), li);
    if (items.length === 0) this.queueList.replaceChildren(el('li', { class: 'h-none' }, 'No open alerts'));
    else if (items.some((li, i) => this.queueList.children[i] !== li) || this.queueList.children.length !== items.length)
      this.queueList.replaceChildren(...items);
    this.queueMore.hidden = open.length <= QUEUE_SHOWN;
    this.queueMore.textContent = `and ${open.length - QUEUE_SHOWN} more (filter the boards by open alerts)`;
    if (this.historyDirty) this.drawHistory();
  }

  private makeAlert(a: HallAlert): HTMLLIElement {
    const ack = el('button', { class: 'h-ack', type: 'button', 'aria-label': `Ack ${a.board}: ${alertHeadline(a)}` }, 'Ack');
    ack.addEventListener('click', ev => {
      ev.stopPropagation();
      void this.acknowledge(a.board, a.id);
    });
    return el(
      'li',
      {
        class: `h-alert sev${a.severity}`,
        'data-testid': 'hall-alert',
        'data-id': String(a.id),
        'data-board': a.board,
        'data-type': a.type,
        'data-severity': String(a.severity),
        'data-first-seen-ms': String(a.first_seen_ms),
        'data-board-wall-ms': String(a.board_wall_ms ?? ''),
      },
      el('a', { class: 'h-alert-board', href: `board/${encodeURIComponent(a.board)}` }, a.board),
      el('span', { class: 'h-sev' }, a.severity_label),
      el('span', { class: 'h-alert-title' }, alertHeadline(a)),
      el('span', { class: 'h-alert-detail' }, alertDetail(a)),
      el('time', { class: 'h-alert-time' }, timeOfDay(a.first_seen_ms)),
      ack,
    );
  }

  private fillAlert(li: HTMLLIElement, a: HallAlert): void {
    li.classList.toggle('active', a.active);
    li.classList.toggle('closed', !a.open);
    li.dataset.open = String(a.open);
    const ack = li.querySelector('button');
    if (ack) ack.disabled = !a.open;
  }

  private drawHistory(): void {
    this.historyDirty = false;
    const all = this.closedAlerts();
    for (const a of all.slice(HISTORY_KEPT)) this.closed.delete(a.id);
    const kept = all.slice(0, HISTORY_KEPT);
    this.historySummary.textContent = `Resolved and acknowledged (${kept.length})`;
    this.historyList.replaceChildren(
      ...kept.map(a =>
        el(
          'li',
          {
            class: 'h-alert closed',
            'data-testid': 'closed-alert',
            'data-id': String(a.id),
            'data-board': a.board,
            'data-type': a.type,
            'data-resolved-by': a.resolved_by ?? '',
            'data-acknowledged': String(a.acknowledged),
          },
          el('a', { class: 'h-alert-board', href: `board/${encodeURIComponent(a.board)}` }, a.board),
          el('span', { class: 'h-alert-title' }, alertHeadline(a)),
          el('span', { class: 'h-alert-detail' }, `${alertDetail(a)}; ${closedText(a)}`),
          el('time', { class: 'h-alert-time' }, timeOfDay(a.resolved_ms ?? a.first_seen_ms)),
        ),
      ),
    );
  }

  async acknowledge(board: string, alert?: number): Promise<void> {
    const error = await control(this.base, 'acknowledge', alert === undefined ? { board } : { board, alert });
    if (error) alert === undefined ? window.alert(error) : window.alert(`${board}: ${error}`);
  }

  // ---------- the boards (virtualised) ----------

  /** Draws the rows in view; `all`: every one again, else only the `changed` boards. */
  private drawList(all: boolean, changed?: Set<string>): void {
    const width = this.scroller.clientWidth || 800;
    const height = this.scroller.clientHeight || 600;
    const top = this.scroller.scrollTop;
    if (this.view === 'grid') {
      const cols = Math.max(1, Math.floor((width - GAP) / (CARD_W + GAP)));
      const rows = Math.ceil(this.shown.length / cols);
      const rowH = CARD_H + GAP;
      this.spacer.style.height = `${rows * rowH + GAP}px`;
      const first = Math.max(0, Math.floor(top / rowH) - 1);
      const last = Math.min(rows, Math.ceil((top + height) / rowH) + 1);
      const from = first * cols;
      const to = Math.min(this.shown.length, last * cols);
      const need = to - from;
      while (this.cards.length < need) this.cards.push(this.makeCard());
      const cardW = Math.floor((width - GAP * (cols + 1)) / cols);
      for (let i = 0; i < this.cards.length; i++) {
        const card = this.cards[i];
        if (i >= need) {
          if (!card.root.hidden) card.root.hidden = true;
          card.id = null;
          continue;
        }
        const n = from + i;
        const b = this.shown[n];
        const x = GAP + (n % cols) * (cardW + GAP);
        const y = GAP + Math.floor(n / cols) * rowH;
        card.root.hidden = false;
        card.root.style.transform = `translate(${x}px, ${y}px)`;
        card.root.style.width = `${cardW}px`;
        if (all || card.id !== b.id || changed?.has(b.id)) this.fillCard(card, b);
      }
    } else {
      const total = this.shown.length;
      this.spacer.style.height = '';
      const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
      const last = Math.min(total, Math.ceil((top + height) / ROW_H) + OVERSCAN);
      const need = last - first;
      while (this.rows.length < need) this.rows.push(this.makeRow());
      const before = this.tbody.firstElementChild as HTMLTableRowElement | null;
      const topPad = before?.classList.contains('h-pad') ? before : this.pad();
      const after = this.tbody.lastElementChild as HTMLTableRowElement | null;
      const bottomPad = after?.classList.contains('h-pad') && after !== topPad ? after : this.pad();
      topPad.style.height = `${first * ROW_H}px`;
      bottomPad.style.height = `${(total - last) * ROW_H}px`;
      const used = this.rows.slice(0, need);
      used.forEach((row, i) => {
        const b = this.shown[first + i];
        if (all || row.id !== b.id || changed?.has(b.id)) this.fillRow(row, b);
      });
      const want = [topPad, ...used.map(r => r.root), bottomPad];
      const children = this.tbody.children;
      if (children.length !== want.length || want.some((r, i) => children[i] !== r)) this.tbody.replaceChildren(...want);
    }
  }

  private pad(): HTMLTableRowElement {
    return el('tr', { class: 'h-pad', 'aria-hidden': 'true' }, el('td', { colspan: '8' }));
  }

  private makeCard(): Card {
    const mini = new MiniBoard();
    const players = el('div', { class: 'h-players' });
    const last = el('div', { class: 'h-last' });
    const white = el('span', { class: 'h-clock white' });
    const black = el('span', { class: 'h-clock black' });
    const status = el('span', { class: 'h-status' });
    const badge = el('span', { class: 'h-badge' });
    const name = el('span', { class: 'h-id' });
    const root = el(
      'a',
      { class: 'h-card', 'data-testid': 'board-card' },
      el('div', { class: 'h-card-head' }, name, status, badge),
      el('div', { class: 'h-mini', 'aria-hidden': 'true' }, mini.root),
      players,
      el('div', { class: 'h-card-foot' }, last, el('span', { class: 'h-clocks' }, white, black)),
    );
    this.grid.append(root);
    return { root, mini, name, players, last, white, black, status, badge, id: null };
  }

  private fillCard(card: Card, b: BoardSummary): void {
    if (card.id !== b.id) {
      card.id = b.id;
      card.root.dataset.board = b.id;
      card.root.href = `board/${encodeURIComponent(b.id)}`;
      setText(card.name, b.id);
    }
    const worst = b.worst;
    card.root.className = `h-card${worst ? ` alerting sev${worst.severity}` : ''}${b.status === 'offline' ? ' offline' : ''}${b.result ? ' finished' : ''}`;
    card.root.dataset.openAlerts = String(b.open_alerts);
    card.root.dataset.status = b.status;
    card.root.dataset.worst = worst?.type ?? '';
    setText(card.status, b.status);
    card.status.className = `h-status ${b.status}`;
    setText(card.badge, worst ? `${b.open_alerts > 1 ? `${b.open_alerts} · ` : ''}${alertHeadline(worst)}` : '');
    card.badge.hidden = !worst;
    setText(card.players, `${b.white ?? '?'} – ${b.black ?? '?'}`);
    setText(card.last, b.result ? `${b.result.result} (${b.result.reason.replace(/_/g, ' ')})` : lastMoveText(b));
    card.mini.set(b.fen, b.last_move?.uci, alertSquares(worst).squares);
    this.tickCard(card, b);
  }

  private tickCard(card: Card, b: BoardSummary): void {
    for (const side of ['white', 'black'] as const) {
      const e = side === 'white' ? card.white : card.black;
      const ms = remaining(b, side);
      const text = formatClock(ms);
      if (e.textContent !== text) e.textContent = text;
      e.classList.toggle('running', b.clock?.running === side && !b.result);
      e.classList.toggle('low', ms !== null && ms < LOW_MS);
    }
  }

  private makeRow(): Row {
    const cells = Array.from({ length: 8 }, () => el('td'));
    const link = el('a', {});
    cells[0].append(link);
    return { root: el('tr', { 'data-testid': 'board-row' }, ...cells), cells, link, id: null };
  }

  private fillRow(row: Row, b: BoardSummary): void {
    row.id = b.id;
    row.root.dataset.board = b.id;
    const worst = b.worst;
    row.root.className = `${worst ? `alerting sev${worst.severity}` : ''}${b.status === 'offline' ? ' offline' : ''}`;
    setText(row.link, b.id);
    row.link.href = `board/${encodeURIComponent(b.id)}`;
    const c = row.cells;
    setText(c[1], b.white ?? '?');
    setText(c[2], b.black ?? '?');
    setText(c[3], b.last_move ? lastMoveText(b) : '');
    setText(c[6], b.result ? b.result.result : b.status === 'offline' ? 'offline' : b.game === null ? 'waiting' : 'playing');
    setText(c[7], worst ? alertHeadline(worst) : '');
    this.tickRow(row, b);
  }

  private tickRow(row: Row, b: BoardSummary): void {
    for (const [i, side] of [
      [4, 'white'],
      [5, 'black'],
    ] as const) {
      const ms = remaining(b, side);
      const text = formatClock(ms);
      const cell = row.cells[i];
      if (cell.textContent !== text) cell.textContent = text;
      cell.classList.toggle('running', b.clock?.running === side && !b.result);
      cell.classList.toggle('low', ms !== null && ms < LOW_MS);
    }
  }

  /** The clocks in view run down. */
  tick(): void {
    if (this.view === 'grid') {
      for (const card of this.cards) {
        const b = card.id ? this.boards.get(card.id) : undefined;
        if (b && !card.root.hidden) this.tickCard(card, b);
      }
    } else {
      for (const row of this.rows) {
        const b = row.id ? this.boards.get(row.id) : undefined;
        if (b && row.root.isConnected) this.tickRow(row, b);
      }
    }
    if (this.filter === 'low') {
      this.orderDirty = true;
      this.schedule();
    }
  }

  // ---------- the broadcast push ----------

  private async pollPush(): Promise<void> {
    let status: PushStatus | null = null;
    try {
      const res = await fetch(new URL('push.json', this.base), { cache: 'no-store' });
      if (res.ok) status = (await res.json()) as PushStatus;
    } catch {
      status = null;
    }
    if (!status?.enabled || !status.rounds) {
      this.push.hidden = true;
      return;
    }
    this.push.hidden = false;
    const time = (ms: number | null) => (ms === null ? 'never' : timeOfDay(ms));
    this.push.replaceChildren(
      el('h3', {}, 'Broadcast push'),
      ...status.rounds.map(r => {
        const bad = r.games.filter(g => g.error);
        return el(
          'div',
          { class: `h-push-round${r.last_error ? ' failing' : ''}`, 'data-testid': 'push-round', 'data-round': r.round },
          el('p', {}, `Round ${r.round}: ${r.boards.length} boards, ${r.pushes} pushes, last success ${time(r.last_success_wall_ms)}`),
          ...(r.last_error
            ? [el('p', { class: 'h-push-error' }, `Last error: ${r.last_error}${r.retry_at_wall_ms ? `; next try ${time(r.retry_at_wall_ms)}` : ''}`)]
            : []),
          ...(bad.length
            ? [el('ul', {}, ...bad.map(g => el('li', { class: 'h-push-error' }, `${g.board} (${g.white} – ${g.black}): ${g.error}`)))]
            : []),
        );
      }),
    );
  }
}
