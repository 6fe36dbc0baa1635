// The DOM: board (chessground, view only), clocks, alerts, move list and, on
// the arbiter page, the alert history. Everything is redrawn from the Model.
//
// The players' display speaks plainly (what to do, or "Arbiter called"); the
// arbiter page gives each alert's side, squares and Article. Screen readers
// get the alerts through live regions, the clocks as named timers, and the
// board as a text description of the position and the last move.

import { Chessground } from '@lichess-org/chessground';
import type { Api } from '@lichess-org/chessground/api';
import type { DrawShape } from '@lichess-org/chessground/draw';
import type { Color, Key, Role } from '@lichess-org/chessground/types';
import { describe, expectedOn, figurine, forPlayers, pieceName, reasonText, sideName } from './describe';
import type { Status } from './feed';
import { formatClock, formatGameTime, moveLabel, piecesOf, type Model, type Player } from './model';
import type { KnownEvent, MoveRecord, Side } from './types';

export type ViewKind = 'display' | 'arbiter';

const ROLES: Record<string, Role> = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };
const ROLE_ORDER = 'kqrbnp';
const PLURAL: Record<string, string> = { k: 'king', q: 'queens', r: 'rooks', b: 'bishops', n: 'knights', p: 'pawns' };
const SINGULAR: Record<string, string> = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };

/** A page that has never been live shows "no connection" only after this long (ms). */
const FIRST_CONNECT_GRACE = 3000;

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

/** Set the text only when it changes (live regions announce every change). */
function setText(e: HTMLElement, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}

interface ClockEls {
  root: HTMLElement;
  name: HTMLElement;
  time: HTMLElement;
  label: HTMLElement;
}

/** "White: king e1, queen d1, rooks a1 and h1, …" for a FEN's board. */
export function positionText(fen: string): string {
  const pieces = piecesOf(fen);
  const sides: string[] = [];
  for (const side of ['white', 'black'] as const) {
    const parts: string[] = [];
    for (const r of ROLE_ORDER) {
      const letter = side === 'white' ? r.toUpperCase() : r;
      const squares = [...pieces].filter(([, p]) => p === letter).map(([sq]) => sq).sort();
      if (squares.length === 0) continue;
      const name = squares.length === 1 ? SINGULAR[r] : PLURAL[r];
      parts.push(`${name} ${squares.length === 1 ? squares[0] : `${squares.slice(0, -1).join(', ')} and ${squares.at(-1)}`}`);
    }
    sides.push(`${sideName(side)}: ${parts.join(', ') || 'no pieces'}.`);
  }
  const toMove = fen.split(' ')[1] === 'b' ? 'Black' : 'White';
  return `${sides.join(' ')} ${toMove} to move.`;
}

/** "3. Nf3, white knight from g1 to f3" for the last move of the list. */
export function lastMoveText(mv: MoveRecord | null, fenAfter: string): string {
  if (!mv) return 'No move yet.';
  const n = Math.ceil(mv.ply / 2);
  const to = mv.uci.slice(2, 4);
  const piece = piecesOf(fenAfter).get(to);
  const what = piece ? `${pieceName(piece)} from ${mv.uci.slice(0, 2)} to ${to}` : `${mv.uci.slice(0, 2)} to ${to}`;
  return `Last move: ${n}${mv.side === 'white' ? '.' : '…'} ${mv.san}, ${what}.`;
}

/** The squares an alert speaks of. */
function squaresOf(e: KnownEvent): string[] {
  switch (e.type) {
    case 'displaced':
      return e.squares;
    case 'illegal_move':
      return [e.from, e.to].filter((sq): sq is string => !!sq);
    case 'promotion_pending':
    case 'touch_move':
    case 'sensor_fault':
      return [e.square];
    default:
      return [];
  }
}

export class View {
  readonly cg: Api;
  private readonly root: HTMLElement;
  private readonly clocks: Record<Side, ClockEls>;
  private readonly boardEl: HTMLElement;
  private readonly overlay: HTMLElement;
  private readonly callout: HTMLElement;
  private readonly banner: HTMLElement;
  private readonly alerts: HTMLElement;
  private readonly moves: HTMLOListElement;
  private readonly history: HTMLTableSectionElement;
  private readonly title: HTMLElement;
  private readonly info: HTMLElement;
  private readonly profile: HTMLElement;
  private readonly conn: HTMLElement;
  private readonly lost: HTMLElement;
  private readonly lostTitle: HTMLElement;
  private readonly lostDetail: HTMLElement;
  private readonly position: HTMLElement;
  private readonly lastMove: HTMLElement;
  private readonly orientation: Color;
  private alertsKey = '';
  private calloutKey = '';
  private historyKey = '';
  private movesKey = '';
  /** Page time the feed was lost at (null: live); the clocks show that moment. */
  private lostAt: number | null = null;
  private everLive = false;
  private readonly loadedAt = performance.now();

  constructor(
    mount: HTMLElement,
    private readonly model: Model,
    private readonly kind: ViewKind,
    orientation: Color,
    reducedMotion: boolean,
  ) {
    this.orientation = orientation;
    const top: Side = orientation === 'white' ? 'black' : 'white';
    const bottom: Side = top === 'white' ? 'black' : 'white';
    const clock = (side: Side, where: string): ClockEls => {
      const name = el('div', { class: 'tm-clock-name', 'data-testid': `clock-${side}-name` });
      const label = el('span', { class: 'tm-sr', id: `tm-clock-${side}-label` }, `${sideName(side)}'s clock, time left`);
      const time = el(
        'div',
        {
          class: 'tm-clock-time',
          role: 'timer',
          'aria-live': 'off',
          'aria-labelledby': `tm-clock-${side}-label`,
          'data-testid': `clock-${side}-time`,
        },
        '–:––',
      );
      const root = el(
        'section',
        { class: `tm-clock tm-${where} ${side}`, 'data-testid': `clock-${side}`, 'aria-label': sideName(side) },
        name,
        label,
        time,
      );
      return { root, name, time, label };
    };
    this.clocks = { [top]: clock(top, 'top'), [bottom]: clock(bottom, 'bottom') } as Record<Side, ClockEls>;

    this.title = el('span', { class: 'tm-title', 'data-testid': 'players' });
    this.info = el('span', { class: 'tm-info', 'data-testid': 'game-info' });
    this.profile = el('span', { class: 'tm-profile', 'data-testid': 'profile' });
    this.conn = el('span', { class: 'tm-conn', 'data-testid': 'connection', 'data-status': 'connecting' }, 'connecting');
    const other =
      kind === 'arbiter'
        ? el('a', { href: './', class: 'tm-link' }, 'Players’ display')
        : el('a', { href: 'arbiter.html', class: 'tm-link' }, 'Arbiter');
    const header = el('header', { class: 'tm-head' }, this.title, this.info, this.profile, this.conn, other);

    const cgEl = el('div', { class: 'cg-wrap' });
    this.overlay = el('div', { class: 'tm-overlay', 'data-testid': 'board-overlay' });
    this.position = el('p', { class: 'tm-sr', id: 'tm-position', 'data-testid': 'position-text' });
    const picture = el(
      'div',
      { class: 'tm-board-img', role: 'img', 'aria-label': 'Chess board', 'aria-describedby': 'tm-position' },
      cgEl,
      this.overlay,
    );
    // What the players must do, on the board itself. Announced at once.
    this.callout = el('div', { class: 'tm-callout', 'data-testid': 'board-banner', role: 'alert', hidden: '' });
    this.banner = el('div', { class: 'tm-banner', 'data-testid': 'game-over', role: 'status', hidden: '' });
    this.boardEl = el('div', { class: 'tm-board', 'data-testid': 'board' }, picture, this.callout, this.banner);
    this.lastMove = el('p', { class: 'tm-sr', 'aria-live': 'polite', 'data-testid': 'last-move' });

    this.alerts = el('ul', {
      class: 'tm-alerts',
      'data-testid': 'alerts',
      'aria-live': kind === 'arbiter' ? 'assertive' : 'polite',
      'aria-label': 'Alerts',
    });
    this.moves = el('ol', { class: 'tm-moves', 'data-testid': 'move-list', 'aria-label': 'Moves', tabindex: '0' });
    this.history = el('tbody');
    const th = (text: string, cls = '') => el('th', { scope: 'col', ...(cls ? { class: cls } : {}) }, text);
    const historyTable = el(
      'section',
      { class: 'tm-history', 'data-testid': 'alert-history', 'aria-labelledby': 'tm-history-h', tabindex: '0' },
      el('h2', { id: 'tm-history-h' }, 'Alert history'),
      el(
        'table',
        {},
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            th('Game time', 'tm-t'),
            th('Wall clock', 'tm-t'),
            th('Move', 'tm-t'),
            th('Event no.', 'tm-t'),
            th('What'),
            th('Detail'),
          ),
        ),
        this.history,
      ),
    );

    this.lostTitle = el('strong', {}, 'Connection lost — clocks stopped');
    this.lostDetail = el('span', {}, '');
    this.lost = el(
      'div',
      { class: 'tm-lost', 'data-testid': 'connection-lost', role: 'alert', hidden: '' },
      el('div', { class: 'tm-lost-box' }, this.lostTitle, this.lostDetail),
    );

    this.root = el(
      'div',
      { class: `tm-app tm-${kind}`, 'data-view': kind },
      el('h1', { class: 'tm-sr' }, kind === 'arbiter' ? 'Arbiter’s view of the game' : 'The game'),
      header,
      this.clocks[top].root,
      el('div', { class: 'tm-board-area' }, this.boardEl, this.position, this.lastMove),
      this.clocks[bottom].root,
      this.alerts,
      this.moves,
      ...(kind === 'arbiter' ? [historyTable] : []),
      this.lost,
    );
    mount.replaceChildren(this.root);

    this.cg = Chessground(cgEl, {
      viewOnly: true,
      coordinates: true,
      orientation,
      animation: { enabled: !reducedMotion, duration: 150 },
      highlight: { lastMove: true, check: true },
      drawable: { enabled: false, visible: true },
      // The drawn board is a whole number of 8 px; the overlay follows its size.
      addDimensionsCssVarsTo: this.boardEl,
    });
  }

  setStatus(s: Status): void {
    this.conn.textContent = s;
    this.conn.dataset.status = s;
    const now = performance.now();
    if (s === 'live') {
      this.lostAt = null;
      this.everLive = true;
    } else if (this.lostAt === null) this.lostAt = now;
    this.tick(now);
  }

  /** Redraw all but the clock digits. */
  render(): void {
    const m = this.model;
    setText(this.title, `${m.white} – ${m.black}`);
    const info = [m.info.event, m.info.round && `Round ${m.info.round}`, m.info.board && `Board ${m.info.board}`]
      .filter(Boolean)
      .join(' · ');
    setText(this.info, info);
    this.info.hidden = info === '';
    setText(this.profile, m.profile);
    for (const side of ['white', 'black'] as const) this.renderName(side, m.players[side]);
    this.renderBoard();
    this.renderAlerts();
    this.renderMoves();
    this.renderHistory();
    if (m.result) {
      this.banner.hidden = false;
      const text = `${m.result.result} ${reasonText(m.result.reason)}`;
      if (this.banner.dataset.text !== text) {
        this.banner.dataset.text = text;
        this.banner.replaceChildren(el('strong', {}, m.result.result), el('span', {}, reasonText(m.result.reason)));
      }
    } else this.banner.hidden = true;
    this.root.classList.toggle('tm-over', !!m.result);
    this.tick(performance.now());
  }

  /** Redraw the clock digits for page time `now`; while the feed is lost they stand at the moment it went. */
  tick(now: number): void {
    const m = this.model;
    const lost = this.lostAt !== null && (this.everLive || now - this.loadedAt > FIRST_CONNECT_GRACE);
    this.lost.hidden = !lost;
    this.root.classList.toggle('tm-offline', lost);
    if (lost) {
      setText(this.lostTitle, this.everLive ? 'Connection lost — clocks stopped' : 'No connection to the board');
      setText(
        this.lostDetail,
        this.everLive
          ? 'The clocks shown are those of the moment the connection went. Reconnecting…'
          : 'Waiting for the board…',
      );
    }
    const at = this.lostAt ?? now;
    for (const side of ['white', 'black'] as const) {
      const c = this.clocks[side];
      const ms = m.remaining(side, at);
      const text = ms === null ? '–:––' : formatClock(ms);
      setText(c.time, text);
      const running = m.clock?.running === side && !m.result && this.lostAt === null;
      c.root.classList.toggle('running', running);
      c.root.classList.toggle('low', ms !== null && ms < 20_000);
      c.root.classList.toggle('flagged', ms !== null && ms <= 0);
      c.root.dataset.ms = ms === null ? '' : String(Math.round(ms));
      setText(c.label, `${sideName(side)}'s clock${running ? ', running' : ''}, time left`);
    }
  }

  private renderName(side: Side, p: Player): void {
    const c = this.clocks[side];
    const key = `${p.title}|${p.name}|${p.elo}`;
    if (c.name.dataset.key === key) return;
    c.name.dataset.key = key;
    const parts: (Node | string)[] = [el('span', { class: 'tm-dot', 'aria-hidden': 'true' }, side === 'white' ? '○' : '●')];
    if (p.title) parts.push(el('abbr', { class: 'tm-ptitle', title: `title ${p.title}` }, p.title), ' ');
    parts.push(el('span', { class: 'tm-pname' }, p.name));
    if (p.elo) parts.push(' ', el('span', { class: 'tm-elo', title: 'rating' }, p.elo));
    c.name.replaceChildren(...parts);
    c.root.setAttribute('aria-label', `${sideName(side)}: ${[p.title, p.name, p.elo].filter(Boolean).join(' ')}`);
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
      if (e.type === 'touch_move') {
        // Which piece is the arbiter's to say, not the players' screen's.
        if (this.kind === 'arbiter') mark(e.square, 'touched');
      } else if (e.type === 'promotion_pending') mark(e.square, 'promotion');
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

    setText(this.position, `${positionText(m.fen)} ${lastMoveText(last, m.fen)}`);
    setText(this.lastMove, lastMoveText(last, m.fen));
    this.boardEl
      .querySelector('.tm-board-img')!
      .setAttribute('aria-label', `Chess board, ${this.orientation === 'white' ? 'White' : 'Black'} at the bottom`);

    this.renderCallout();
  }

  /** The banner on the board: what the players must do now, in plain words. */
  private renderCallout(): void {
    const m = this.model;
    let top: { title: string; detail: string; level: string; squares: string[] } | null = null;
    if (!m.result) {
      if (this.kind === 'display') {
        const notices = m.alerts
          .map(a => ({ n: forPlayers(a.event, m.fen), e: a.event as KnownEvent }))
          .filter(x => x.n !== null && x.n.banner)
          .sort((a, b) => a.n!.rank - b.n!.rank);
        if (notices[0]) top = { ...notices[0].n!, squares: squaresOf(notices[0].e) };
      }
      // The arbiter page lists every alert beside the board; the board stays clear.
    }
    // Over the two ranks at the top of the board, unless it would hide a square it speaks of.
    const row = (sq: string) => (this.orientation === 'white' ? 8 - Number(sq[1]) : Number(sq[1]) - 1);
    const bottom = top !== null && top.squares.some(sq => row(sq) <= 1) && !top.squares.some(sq => row(sq) >= 6);
    const key = top ? `${top.level}|${top.title}|${top.detail}|${bottom}` : '';
    if (key === this.calloutKey) return;
    this.calloutKey = key;
    this.callout.hidden = top === null;
    this.callout.className = `tm-callout${top ? ` level-${top.level}` : ''}${bottom ? ' at-bottom' : ''}`;
    this.callout.replaceChildren(...(top ? [el('strong', {}, top.title), el('span', {}, top.detail)] : []));
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

  /**
   * The list under the board. Display: the players' words, what they must do
   * first. Arbiter: every pending alert, newest first, with its Article.
   */
  private renderAlerts(): void {
    const m = this.model;
    const rows =
      this.kind === 'display'
        ? m.alerts
            .map(({ event }) => ({ event, n: forPlayers(event, m.fen) }))
            .filter(r => r.n !== null)
            .map((r, i) => ({ event: r.event, d: r.n!, order: r.n!.rank * 1000 - i }))
            .sort((a, b) => a.order - b.order)
            .map(({ event, d }) => ({ event, d }))
        : [...m.alerts].reverse().map(({ event }) => ({ event, d: describe(event) }));
    const key = rows.map(r => `${r.event.seq}:${r.d.title}:${r.d.detail}`).join('|');
    if (key === this.alertsKey) return;
    this.alertsKey = key;
    const items = rows.map(({ event, d }) => {
      const side = this.kind === 'arbiter' && 'side' in event ? ` side-${event.side}` : '';
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
    const key = this.model.moves.map(m => `${m.ply}${m.san}`).join(' ');
    if (key === this.movesKey) return;
    this.movesKey = key;
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
    if (this.kind !== 'arbiter') return;
    const h = this.model.history;
    const key = `${h.length}:${h.at(-1)?.event.seq ?? ''}:${h[0]?.event.seq ?? ''}`;
    if (key === this.historyKey) return;
    this.historyKey = key;
    const td = (label: string, text: string, cls = '') =>
      el('td', { 'data-label': label, ...(cls ? { class: cls } : {}) }, text);
    const rows = [...h].reverse().map(({ event, wall, ply }) => {
      const d = describe(event);
      return el(
        'tr',
        { 'data-testid': 'history-row', 'data-type': event.type, class: `level-${d.level}` },
        td('Game time', formatGameTime(event.t_ms), 'tm-t'),
        td('Wall clock', wall === null ? '' : new Date(wall).toLocaleTimeString(), 'tm-t'),
        td('Move', ply === null ? '' : moveLabel(ply), 'tm-t tm-move'),
        td('Event no.', String(event.seq), 'tm-t'),
        td('What', d.title, 'tm-what'),
        td('Detail', d.detail, 'tm-detail'),
      );
    });
    this.history.replaceChildren(...rows);
  }
}
