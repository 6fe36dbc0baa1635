// Keeps a Model in step with the daemon: `GET /state` on every (re)connect of
// the `GET /events` stream, then the events that follow the snapshot's seq.

import type { Model } from './model';
import { KNOWN_TYPES, type AnyEvent, type StateSnapshot } from './types';

export type Status = 'connecting' | 'live' | 'offline';

/**
 * A stream can stay open with nobody behind it (a hung daemon, a network that
 * went away without closing the connection): `GET /health` is asked every
 * HEALTH_EVERY ms (HEALTH_AGAIN ms after a miss), and two unanswered in a row
 * (HEALTH_TIMEOUT each) count as the feed lost: at most 14 s. Two answered
 * while the stream does not open start it again.
 */
const HEALTH_EVERY = 5000;
const HEALTH_AGAIN = 1000;
const HEALTH_TIMEOUT = 4000;

interface Arrival {
  ev: AnyEvent;
  now: number;
  wall: number;
}

export class Feed {
  private source: EventSource | null = null;
  private syncing = false;
  private syncAgain = false;
  private buffer: Arrival[] = [];
  private retryTimer: number | undefined;
  private restartTimer: number | undefined;
  private watchTimer: number | undefined;
  private misses = 0;
  private unopened = 0;

  constructor(
    private readonly base: URL,
    private readonly model: Model,
    private readonly changed: () => void,
    private readonly status: (s: Status) => void,
  ) {}

  start(): void {
    if (!this.source) this.status('connecting');
    if (this.watchTimer === undefined) this.watch();
    const es = new EventSource(new URL('events', this.base));
    this.source = es;
    es.addEventListener('open', () => void this.resync());
    es.addEventListener('error', () => {
      if (this.source !== es) return;
      if (es.readyState === EventSource.CLOSED) {
        // Refused (an HTTP error, a full server): the browser gives up, the page does not.
        this.status('offline');
        es.close();
        window.clearTimeout(this.restartTimer);
        this.restartTimer = window.setTimeout(() => this.start(), 2000);
      } else this.status('connecting');
    });
    const onMessage = (m: MessageEvent) => this.receive(m.data);
    // Unnamed messages are the contract; named ones (`event: move`) are read as well.
    es.addEventListener('message', onMessage);
    for (const t of KNOWN_TYPES) es.addEventListener(t, onMessage as EventListener);
  }

  /** Drop the stream and open a new one. */
  private restart(): void {
    this.source?.close();
    this.source = null;
    window.clearTimeout(this.restartTimer);
    this.start();
  }

  private watch(delay = HEALTH_EVERY): void {
    this.watchTimer = window.setTimeout(async () => {
      const answered = await fetch(new URL('health', this.base), {
        cache: 'no-store',
        signal: AbortSignal.timeout(HEALTH_TIMEOUT),
      }).then(
        () => true,
        () => false,
      );
      if (this.source?.readyState === EventSource.OPEN) {
        this.unopened = 0;
        this.misses = answered ? 0 : this.misses + 1;
        if (this.misses >= 2) {
          this.misses = 0;
          this.restart();
        }
      } else if (this.source) {
        this.misses = 0;
        this.unopened = answered ? this.unopened + 1 : 0;
        if (this.unopened >= 2) {
          this.unopened = 0;
          this.restart();
        }
      }
      this.watch(answered ? HEALTH_EVERY : HEALTH_AGAIN);
    }, delay);
  }

  private receive(data: unknown): void {
    let ev: AnyEvent;
    try {
      ev = JSON.parse(String(data));
    } catch {
      console.warn('touchmove: event is not JSON', data);
      return;
    }
    if (typeof ev !== 'object' || ev === null || typeof ev.type !== 'string' || typeof ev.seq !== 'number') {
      console.warn('touchmove: event lacks type or seq', ev);
      return;
    }
    const arrival = { ev, now: performance.now(), wall: Date.now() };
    if (this.syncing) this.buffer.push(arrival);
    else this.handle(arrival);
  }

  private handle(a: Arrival): void {
    switch (this.model.verdict(a.ev)) {
      case 'applied':
        this.model.apply(a.ev, a.now, a.wall);
        this.changed();
        break;
      case 'resync':
        this.buffer.push(a);
        void this.resync();
        break;
      case 'stale':
        break;
    }
  }

  /** Take a fresh snapshot, then apply what arrived meanwhile. */
  async resync(): Promise<void> {
    if (this.syncing) {
      this.syncAgain = true;
      return;
    }
    this.syncing = true;
    this.syncAgain = false;
    try {
      const res = await fetch(new URL('state', this.base), { cache: 'no-store' });
      if (!res.ok) throw new Error(`GET /state: HTTP ${res.status}`);
      const snap = (await res.json()) as StateSnapshot;
      this.model.applySnapshot(snap, performance.now());
      // Live only with the stream open: a snapshot alone does not keep the clocks true.
      this.status(this.source?.readyState === EventSource.OPEN ? 'live' : 'connecting');
    } catch (err) {
      console.warn('touchmove: cannot read the state', err);
      this.syncing = false;
      window.clearTimeout(this.retryTimer);
      this.retryTimer = window.setTimeout(() => void this.resync(), 1000);
      return;
    }
    const pending = this.buffer.sort((x, y) => x.ev.seq - y.ev.seq);
    this.buffer = [];
    let gap = false;
    for (const a of pending) {
      const v = this.model.verdict(a.ev);
      if (v === 'applied') this.model.apply(a.ev, a.now, a.wall);
      else if (v === 'resync') {
        gap = true;
        this.buffer.push(a);
      }
    }
    this.syncing = false;
    this.changed();
    if (this.syncAgain) void this.resync();
    else if (gap) {
      // Events beyond the snapshot with a hole before them: look again shortly.
      window.clearTimeout(this.retryTimer);
      this.retryTimer = window.setTimeout(() => void this.resync(), 500);
    }
  }

  stop(): void {
    this.source?.close();
    this.source = null;
    window.clearTimeout(this.retryTimer);
    window.clearTimeout(this.restartTimer);
    window.clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
  }
}
