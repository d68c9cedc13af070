// Records the engine's live stream from the dashboard server's start, so a page opened later gets
// the history its charts and fill table would have drawn (GET /dashboard/history) instead of
// starting empty. The engine's API has no history endpoint; this is the dashboard's own, bounded
// by the same caps as the page (shared/store.ts).
//
// One SSE connection to the engine, reconnected with a capped backoff while the engine is down
// or restarting (a restart resets the history, as it does in the page).

import type pino from 'pino';
import type { FillView, StatePayload } from '../shared/api.ts';
import { Store, type HistorySnapshot } from '../shared/store.ts';

const BACKOFF_MS = [250, 500, 1000, 2000, 5000];

export interface RecorderOptions {
  engineUrl: string;
  logger: pino.Logger;
}

export class StreamRecorder {
  private store = new Store();
  private ac: AbortController | null = null;
  private stopped = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;
  /** null until the first outcome; then whether the stream is up (for one log line per change). */
  private up: boolean | null = null;
  private readonly log: pino.Logger;
  /** Frames recorded (for tests and the health route). */
  frames = 0;

  constructor(private readonly o: RecorderOptions) {
    this.log = o.logger.child({ component: 'dashboard-recorder' });
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.ac?.abort();
    this.ac = null;
  }

  get connected(): boolean {
    return this.up === true;
  }

  snapshot(): HistorySnapshot | null {
    return this.store.snapshot();
  }

  private retry(why: string): void {
    this.ac = null;
    if (this.stopped) return;
    if (this.up === true) this.log.warn({ engine: this.o.engineUrl, why }, 'engine stream lost; reconnecting');
    else if (this.up === null) this.log.info({ engine: this.o.engineUrl, why }, 'waiting for the engine stream');
    this.up = false;
    const delay = BACKOFF_MS[Math.min(this.attempt++, BACKOFF_MS.length - 1)];
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }

  private async connect(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    const ac = new AbortController();
    this.ac = ac;
    let res: Response;
    try {
      res = await fetch(new URL('/api/stream', this.o.engineUrl), {
        headers: { accept: 'text/event-stream', 'accept-encoding': 'identity' },
        signal: ac.signal,
      });
    } catch (e) {
      if (!this.stopped) this.retry(e instanceof Error ? String((e as { cause?: Error }).cause?.message ?? e.message) : String(e));
      return;
    }
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel().catch(() => {});
      this.retry(`HTTP ${res.status}`);
      return;
    }
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          this.frame(buf.slice(0, i));
          buf = buf.slice(i + 2);
        }
        if (buf.length > 16 * 1024 * 1024) throw new Error('unterminated SSE frame over 16 MiB');
      }
    } catch (e) {
      if (this.stopped) return;
      this.log.info({ err: e instanceof Error ? e.message : String(e) }, 'engine stream ended');
    }
    this.retry('stream ended');
  }

  private frame(block: string): void {
    let event = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data += (data ? '\n' : '') + line.slice(line[5] === ' ' ? 6 : 5);
    }
    if (!data || (event !== 'state' && event !== 'fill')) return;
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      return;
    }
    if (event === 'state') {
      const p = payload as StatePayload;
      if (!p || typeof p !== 'object' || !Array.isArray(p.symbols) || typeof p.states !== 'object') return;
      if (this.up !== true) {
        this.log.info({ engine: this.o.engineUrl }, 'recording the engine stream');
        this.up = true;
        this.attempt = 0;
      }
      this.store.ingest(p, Date.now());
      this.frames++;
    } else this.store.addFill(payload as FillView);
  }
}
