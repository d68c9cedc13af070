// The one live connection: an EventSource on /api/stream, with its state shown to the user.
//
// EventSource retries by itself after a dropped stream (the engine suggests `retry: 2000`), but a
// failed reconnect that gets an HTTP error (the dashboard answers 502 while the engine is down)
// closes it for good; then this class opens a new one with a capped backoff. A stream that goes
// quiet (no frame for STALE_MS while nominally open) is shown as stale and recycled after
// RECYCLE_MS, which covers half-open connections.

import type { AlertEvent, BacktestProgressEvent, BacktestRun, FillView, StatePayload } from '../shared/api.ts';

export type ConnState = 'connecting' | 'live' | 'stale' | 'reconnecting' | 'disconnected';

export interface StreamHandlers {
  state(p: StatePayload): void;
  fill(f: FillView): void;
  alert(a: AlertEvent): void;
  backtestProgress(p: BacktestProgressEvent): void;
  backtestComplete(r: BacktestRun): void;
  status(s: ConnState, detail: string): void;
}

const STALE_MS = 3000;
const RECYCLE_MS = 10_000;
const BACKOFF_MS = [500, 1000, 2000, 3000, 5000];

export class StreamConnection {
  private es: EventSource | null = null;
  private state: ConnState = 'connecting';
  private lastEventAt = 0;
  private openedAt = 0;
  private attempt = 0;
  private retryTimer: number | null = null;
  private watchdog: number | null = null;
  /** Streams opened so far (1 + reconnects), for the status tooltip. */
  opens = 0;

  constructor(
    private readonly url: string,
    private readonly h: StreamHandlers,
  ) {}

  get status(): ConnState {
    return this.state;
  }

  start(): void {
    this.open();
    this.watchdog = window.setInterval(() => this.check(), 1000);
  }

  stop(): void {
    if (this.watchdog !== null) clearInterval(this.watchdog);
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.es?.close();
    this.es = null;
  }

  private set(s: ConnState, detail: string): void {
    this.state = s;
    this.h.status(s, detail);
  }

  private parse<T>(ev: MessageEvent, f: (x: T) => void): void {
    let data: T;
    try {
      data = JSON.parse(String(ev.data)) as T;
    } catch {
      return; // a malformed frame is skipped, not fatal
    }
    f(data);
  }

  private open(): void {
    this.retryTimer = null;
    this.opens++;
    this.openedAt = Date.now();
    this.lastEventAt = 0;
    const es = new EventSource(this.url);
    this.es = es;
    this.set(this.opens === 1 ? 'connecting' : 'reconnecting', this.opens === 1 ? 'opening the live stream' : `reconnecting (attempt ${this.attempt})`);
    es.addEventListener('state', (ev) =>
      this.parse<StatePayload>(ev, (p) => {
        this.lastEventAt = Date.now();
        this.attempt = 0;
        if (this.state !== 'live') this.set('live', 'receiving state frames');
        this.h.state(p);
      }),
    );
    es.addEventListener('fill', (ev) => this.parse<FillView>(ev, (f) => this.h.fill(f)));
    es.addEventListener('alert', (ev) => this.parse<AlertEvent>(ev, (a) => this.h.alert(a)));
    es.addEventListener('backtest_progress', (ev) => this.parse<BacktestProgressEvent>(ev, (p) => this.h.backtestProgress(p)));
    es.addEventListener('backtest_complete', (ev) => this.parse<BacktestRun>(ev, (r) => this.h.backtestComplete(r)));
    es.addEventListener('shutdown', () => this.set('reconnecting', 'the engine is shutting down; waiting for it to return'));
    es.onerror = () => {
      if (es !== this.es) return;
      if (es.readyState === EventSource.CLOSED) {
        // The reconnect got an HTTP error (engine down behind the dashboard): retry ourselves.
        es.close();
        this.es = null;
        this.scheduleReopen();
      } else {
        this.set('reconnecting', 'stream dropped; the browser is reconnecting');
      }
    };
  }

  private scheduleReopen(): void {
    if (this.retryTimer !== null) return;
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt++;
    this.set('disconnected', `engine unreachable; retrying in ${(delay / 1000).toFixed(1)} s`);
    this.retryTimer = window.setTimeout(() => this.open(), delay);
  }

  private check(): void {
    if (!this.es || this.es.readyState !== EventSource.OPEN) return;
    const since = Date.now() - (this.lastEventAt || this.openedAt);
    if (since > RECYCLE_MS) {
      this.es.close();
      this.es = null;
      this.scheduleReopen();
    } else if (since > STALE_MS && this.state === 'live') {
      this.set('stale', `no data for ${Math.round(since / 1000)} s`);
    }
  }
}
