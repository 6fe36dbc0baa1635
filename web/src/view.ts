// The DOM: board (chessground, view only), clocks, alerts, move list and, on
// the arbiter page, the alert history. Everything is redrawn from the Model.

import { Chessground } from '@lichess-org/chessground';
import type { Api } from '@lichess-org/chessground/api';
import type { DrawShape } from '@lichess-org/chessground/draw';
import type { Color, Key, Role } from '@lichess-org/chessground/types';
import { describe, expectedOn, figurine, pieceName, reasonText } from './describe';
import type { Status } from './feed';
import { formatClock, formatGameTime, type Model } from './model';
import type { KnownEvent, Side } from './types';

export type ViewKind = 'display' | 'arbiter';

const ROLES: Record<string, Role> = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

interface ClockEls {
  root: HTMLElement;
  name: HTMLElement;
  time: HTMLElement;
}

export class View {
  readonly cg: Api;
  private readonly root: HTMLElement;
  private readonly clocks: Record<Side, ClockEls>;
  private readonly overlay: HTMLElement;
  private readonly banner: HTMLElement;
  private readonly alerts: HTMLElement;
  private readonly moves: HTMLOListElement;
  private readonly history: HTMLTableSectionElement;
  private readonly title: HTMLElement;
  private readonly profile: HTMLElement;
  private readonly conn: HTMLElement;
  private readonly orientation: Color;

  constructor(
    mount: HTMLElement,
    private readonly model: Model,
    kind: ViewKind,
    orientation: Color,
  ) {
    this.orientation = orientation;
    const top: Side = orientation === 'white' ? 'black' : 'white';
    const bottom: Side = top === 'white' ? 'black' : 'white';
    const clock = (side: Side, where: string): ClockEls => {
      const name = el('div', { class: 'tm-clock-name' });
      const time = el('div', { class: 'tm-clock-time', 'data-testid': `clock-${side}-time` }, '–:––');
      const root = el('div', { class: `tm-clock tm-${where} ${side}`, 'data-testid': `clock-${side}` }, name, time);
      return { root, name, time };
    };
    this.clocks = { [top]: clock(top, 'top'), [bottom]: clock(bottom, 'bottom') } as Record<Side, ClockEls>;

    this.title = el('span', { class: 'tm-title', 'data-testid': 'players' });
    this.profile = el('span', { class: 'tm-profile', 'data-testid': 'profile' });
    this.conn = el('span', { class: 'tm-conn', 'data-testid': 'connection' }, 'connecting');
    const other =
      kind === 'arbiter'
        ? el('a', { href: './', class: 'tm-link' }, 'display')
        : el('a', { href: 'arbiter.html', class: 'tm-link' }, 'arbiter');
    const header = el('header', { class: 'tm-head' }, this.title, this.profile, this.conn, other);

    const cgEl = el('div', { class: 'cg-wrap' });
    this.overlay = el('div', { class: 'tm-overlay', 'data-testid': 'board-overlay' });
    this.banner = el('div', { class: 'tm-banner', 'data-testid': 'game-over', hidden: '' });
    const board = el('div', { class: 'tm-board', 'data-testid': 'board' }, cgEl, this.overlay, this.banner);

    this.alerts = el('ul', { class: 'tm-alerts', 'data-testid': 'alerts' });
    this.moves = el('ol', { class: 'tm-moves', 'data-testid': 'move-list' });
    this.history = el('tbody');
    const historyTable = el(
      'section',
      { class: 'tm-history', 'data-testid': 'alert-history' },
      el('h2', {}, 'Alert history'),
      el(
        'table',
        {},
        el(
          'thead',
          {},
          el('tr', {}, el('th', {}, 'game'), el('th', {}, 'clock'), el('th', {}, '#'), el('th', {}, 'what'), el('th', {}, 'detail')),
        ),
        this.history,
      ),
    );

    this.root = el(
      'div',
      { class: `tm-app tm-${kind}`, 'data-view': kind },
      header,
      this.clocks[top].root,
      el('div', { class: 'tm-board-area' }, board),
      this.clocks[bottom].root,
      this.alerts,
      this.moves,
      ...(kind === 'arbiter' ? [historyTable] : []),
    );
    mount.replaceChildren(this.root);

    this.cg = Chessground(cgEl, {
      viewOnly: true,
      coordinates: true,
      orientation,
      animation: { enabled: true, duration: 150 },
      highlight: { lastMove: true, check: true },
      drawable: { enabled: false, visible: true },
    });
  }

  setStatus(s: Status): void {
    this.conn.textContent = s;
    this.conn.dataset.status = s;
  }

  /** Redraw all but the clock digits. */
  render(): void {
    const m = this.model;
    this.title.textContent = `${m.white} – ${m.black}`;
    this.profile.textContent = m.profile;
    this.clocks.white.name.textContent = m.white;
    this.clocks.black.name.textContent = m.black;
    this.renderBoard();
    this.renderAlerts();
    this.renderMoves();
    this.renderHistory();
    if (m.result) {
      this.banner.hidden = false;
      this.banner.replaceChildren(el('strong', {}, m.result.result), el('span', {}, reasonText(m.result.reason)));
    } else this.banner.hidden = true;
    this.root.classList.toggle('tm-over', !!m.result);
    this.tick(performance.now());
  }

  /** Redraw the clock digits for page time `now`. */
  tick(now: number): void {
    const m = this.model;
    for (const side of ['white', 'black'] as const) {
      const c = this.clocks[side];
      const ms = m.remaining(side, now);
      const text = ms === null ? '–:––' : formatClock(ms);
      if (c.time.textContent !== text) c.time.textContent = text;
      c.root.classList.toggle('running', m.clock?.running === side && !m.result);
      c.root.classList.toggle('low', ms !== null && ms < 20_000);
      c.root.classList.toggle('flagged', ms !== null && ms <= 0);
      c.root.dataset.ms = ms === null ? '' : String(Math.round(ms));
    }
  }

  private renderBoard(): void {
    const m = this.model;
    const displaced = m.displaced();
    const custom = new Map<Key, string>();
    const mark = (sq: string | null | undefined, cls: string) => {
      if (!sq) return;
      const k = sq as Key;
      custom.set(k, custom.has(k) ? `${custom.get(k)} ${cls}` : cls);
    };
    for (const sq of m.lifted) mark(sq, 'lifted');
    const shapes: DrawShape[] = [];
    for (const { event } of m.alerts) {
      const e = event as KnownEvent;
      if (e.type === 'touch_move') mark(e.square, 'touched');
      else if (e.type === 'promotion_pending') mark(e.square, 'promotion');
      else if (e.type === 'sensor_fault') mark(e.square, 'fault');
      else if (e.type === 'illegal_move' && !e.completed) {
        mark(e.from, 'illegal');
        mark(e.to, 'illegal');
        if (e.from && e.to) shapes.push({ orig: e.from as Key, dest: e.to as Key, brush: 'red' });
      }
    }

    // While displaced, the board shows the expected position with the pieces
    // that are missing drawn as ghosts, and squares that should be empty marked.
    let boardFen = m.fen.split(' ')[0];
    const markers: HTMLElement[] = [];
    if (displaced) {
      const expected = expectedOn(displaced.squares, displaced.expected_fen);
      const pieces = new Map(this.cgPieces(displaced.expected_fen));
      for (const [sq, letter] of expected) {
        mark(sq, 'displaced');
        if (letter) {
          pieces.delete(sq);
          shapes.push({
            orig: sq as Key,
            piece: { role: ROLES[letter.toLowerCase()], color: letter === letter.toUpperCase() ? 'white' : 'black' },
          });
        }
        markers.push(this.marker(sq, letter));
      }
      boardFen = this.fenOf(pieces);
    }
    this.overlay.replaceChildren(...markers);

    const last = m.lastMove();
    const turn: Color = m.fen.split(' ')[1] === 'b' ? 'black' : 'white';
    this.cg.set({
      fen: boardFen,
      turnColor: turn,
      lastMove: last ? [last.uci.slice(0, 2) as Key, last.uci.slice(2, 4) as Key] : undefined,
      check: last && /[+#]$/.test(last.san) ? turn : false,
      highlight: { lastMove: true, check: true, custom },
    });
    this.cg.setAutoShapes(shapes);
  }

  private marker(sq: string, letter: string): HTMLElement {
    const file = sq.charCodeAt(0) - 97;
    const rank = Number(sq[1]) - 1;
    const col = this.orientation === 'white' ? file : 7 - file;
    const row = this.orientation === 'white' ? 7 - rank : rank;
    const label = letter ? `${figurine(letter)}` : '∅';
    const m = el(
      'div',
      {
        class: 'tm-marker displaced',
        'data-square': sq,
        'data-expected': letter,
        title: letter ? `${sq}: put the ${pieceName(letter)} here` : `${sq}: should be empty`,
        style: `left:${col * 12.5}%;top:${row * 12.5}%`,
      },
      el('span', { class: 'tm-marker-label' }, label),
    );
    return m;
  }

  private cgPieces(fen: string): [string, string][] {
    const out: [string, string][] = [];
    fen
      .split(' ')[0]
      .split('/')
      .forEach((row, i) => {
        let f = 0;
        for (const ch of row) {
          if (/\d/.test(ch)) f += Number(ch);
          else out.push([`${'abcdefgh'[f++]}${8 - i}`, ch]);
        }
      });
    return out;
  }

  private fenOf(pieces: Map<string, string>): string {
    const rows: string[] = [];
    for (let r = 8; r >= 1; r--) {
      let row = '';
      let empty = 0;
      for (const f of 'abcdefgh') {
        const p = pieces.get(`${f}${r}`);
        if (p) {
          row += (empty || '') + p;
          empty = 0;
        } else empty++;
      }
      rows.push(row + (empty || ''));
    }
    return rows.join('/');
  }

  private renderAlerts(): void {
    const items = [...this.model.alerts].reverse().map(({ event }) => {
      const d = describe(event);
      const side = 'side' in event ? ` side-${event.side}` : '';
      return el(
        'li',
        { class: `tm-alert level-${d.level}${side}`, 'data-testid': 'alert', 'data-type': event.type, 'data-seq': String(event.seq) },
        el('strong', {}, d.title),
        el('span', {}, d.detail),
      );
    });
    this.alerts.replaceChildren(...items);
    this.alerts.hidden = items.length === 0;
  }

  private renderMoves(): void {
    const rows: HTMLLIElement[] = [];
    let row: HTMLLIElement | null = null;
    for (const mv of this.model.moves) {
      const number = Math.ceil(mv.ply / 2);
      if (mv.side === 'white' || !row) {
        row = el(
          'li',
          { 'data-move-number': String(number) },
          el('span', { class: 'tm-num' }, mv.side === 'white' ? `${number}.` : `${number}…`),
        );
        if (mv.side === 'black') row.append(el('span', { class: 'tm-san tm-empty' }, ''));
        rows.push(row);
      }
      row.append(el('span', { class: 'tm-san', 'data-ply': String(mv.ply), 'data-uci': mv.uci }, mv.san));
    }
    const lastSan = rows.at(-1)?.lastElementChild;
    lastSan?.classList.add('tm-current');
    this.moves.replaceChildren(...rows);
    this.moves.scrollTop = this.moves.scrollHeight;
  }

  private renderHistory(): void {
    if (!this.root.contains(this.history)) return;
    const rows = [...this.model.history].reverse().map(({ event, wall }) => {
      const d = describe(event);
      return el(
        'tr',
        { 'data-testid': 'history-row', 'data-type': event.type, class: `level-${d.level}` },
        el('td', { class: 'tm-t' }, formatGameTime(event.t_ms)),
        el('td', { class: 'tm-t' }, wall === null ? '' : new Date(wall).toLocaleTimeString()),
        el('td', { class: 'tm-t' }, String(event.seq)),
        el('td', {}, d.title),
        el('td', {}, d.detail),
      );
    });
    this.history.replaceChildren(...rows);
  }
}
