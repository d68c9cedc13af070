// Live stream fan-out (Server-Sent Events). One hub serves every client:
// - a single timer builds the state frame at `hz` (only while clients are connected), once for
//   all clients; discrete events (fill, alert, backtest_progress, backtest_complete) are formatted
//   once and queued to every client. A frame is encoded to bytes once and the same buffer is
//   written to every socket, with a completion callback made once per client: a tick allocates
//   per frame, not per client (1,000 clients at 10 Hz is 10,000 writes a second);
// - each client has at most one write in flight. While it is busy, newer state frames replace the
//   pending one (coalescing: a slow client gets fewer, fresher frames, never a backlog of stale
//   state) and discrete events wait in a bounded queue;
// - a client whose write has been stuck longer than `stallTimeoutMs`, or whose event queue
//   overflows, is dropped (its socket destroyed) and counted. Nothing a client does can block the
//   engine or the other clients: the hub never awaits a client;
// - the runtime/backtest subscriptions and the timers exist only while at least one client is
//   connected; the last disconnect frees them.

export interface SseSink {
  /**
   * Writes raw SSE bytes. `done`, when given, is called once the transport has taken them (the
   * Node socket flushed them), with an error if the connection failed. Writes are taken in order.
   */
  write(chunk: Uint8Array, done?: (err?: Error | null) => void): void;
  /** Ends the response normally (after pending writes). */
  close(): Promise<unknown> | void;
  /** Tears the connection down at once (a stuck client). */
  destroy(): void;
}

export interface SseHubOptions {
  hz: number;
  maxClients: number;
  /** Interval of keep-alive comments (ms). */
  keepAliveMs?: number;
  /** A write pending longer than this drops the client (ms). */
  stallTimeoutMs?: number;
  /** Discrete SSE events a client may have undelivered before it is dropped. */
  maxQueuedFrames?: number;
  /** Builds the state payload (serialized once per tick for all clients). */
  state: () => unknown;
  /** Event sources, subscribed while at least one client is connected; each returns its unsubscribe. */
  sources?: ((publish: (event: string, data: unknown) => void) => () => void)[];
  onClientCount?: (n: number) => void;
  onDrop?: (reason: 'stalled' | 'overflow' | 'error') => void;
  onCoalesce?: () => void;
  /** A state build or event serialization failed (the frame is skipped; the hub goes on). */
  onError?: (err: unknown, what: string) => void;
  /** Clock (ms), for tests. */
  now?: () => number;
}

export type DropReason = 'stalled' | 'overflow' | 'error';

export class SseClient {
  queue: Uint8Array[] = [];
  queuedFrames = 0;
  pendingState: Uint8Array | null = null;
  writing = false;
  /** Admitted, but its response head is not written yet: frames wait (see SseHub.release). */
  held = false;
  /** When the write in flight started (ms, the hub's nowMs). */
  writeStartedAt = 0;
  closed = false;
  framesSent = 0;
  readonly done: Promise<void>;
  resolveDone!: () => void;
  /** The write-completion callback, made once per client so that a write allocates nothing. */
  readonly onWritten: (err?: Error | null) => void;
  constructor(
    readonly sink: SseSink,
    written: (c: SseClient, err?: Error | null) => void,
  ) {
    this.done = new Promise((r) => (this.resolveDone = r));
    this.onWritten = (err) => written(this, err);
  }
}

/** One SSE frame as text. JSON payloads have no raw newlines, so `data:` is a single line. */
export function sseFrameText(event: string, data: unknown): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return `event: ${event}\ndata: ${text.replace(/\r\n|\r|\n/g, '\ndata: ')}\n\n`;
}

/** One SSE frame as bytes: encoded once, then written to every client as the same buffer. */
export function sseFrame(event: string, data: unknown): Buffer {
  return Buffer.from(sseFrameText(event, data));
}

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

export class SseHub {
  private readonly clients = new Set<SseClient>();
  private readonly o: Required<Omit<SseHubOptions, 'onClientCount' | 'onDrop' | 'onCoalesce' | 'onError'>> &
    Pick<SseHubOptions, 'onClientCount' | 'onDrop' | 'onCoalesce' | 'onError'>;
  private tickTimer: NodeJS.Timeout | null = null;
  /** The running tick loop (start()); null when stopped. */
  private ticking: (() => void) | null = null;
  private keepAliveTimer: NodeJS.Timeout | null = null;
  private unsubscribers: (() => void)[] = [];
  private closing = false;
  private readonly written = (c: SseClient, err?: Error | null) => this.onWritten(c, err);
  /**
   * The time (ms) of the current fan-out, read once by stamp() before its writes start: a clock
   * read returns a new boxed double, so reading it per client allocated 16 B per client.
   */
  private nowMs = 0;
  /** Totals, for tests and the report. */
  readonly stats = { stateFrames: 0, coalesced: 0, dropped: 0, events: 0 };

  constructor(opts: SseHubOptions) {
    // Field by field: an option passed as undefined must not override its default.
    this.o = {
      ...opts,
      keepAliveMs: opts.keepAliveMs ?? 15_000,
      stallTimeoutMs: opts.stallTimeoutMs ?? 10_000,
      maxQueuedFrames: opts.maxQueuedFrames ?? 1000,
      sources: opts.sources ?? [],
      now: opts.now ?? Date.now,
    };
    if (!(this.o.keepAliveMs >= 100)) throw new Error(`keep-alive interval must be >= 100 ms, got ${this.o.keepAliveMs}`);
    if (!(this.o.hz > 0)) throw new Error(`stream hz must be > 0, got ${this.o.hz}`);
  }

  get size(): number {
    return this.clients.size;
  }

  get full(): boolean {
    return this.clients.size >= this.o.maxClients;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** The current state as one frame, as text (the route prepends the `retry:` line on connect). */
  stateFrame(): string {
    return sseFrameText('state', this.o.state());
  }

  /**
   * Adds a client and sends it `first` (normally the `retry:` line and the current state).
   * With `held`, the client takes its slot now but nothing is written until release(): its
   * response head is written after Hono's middleware chain (raw-response.ts).
   * Returns null when the hub is full or closing.
   */
  attach(sink: SseSink, first: Uint8Array, held = false): SseClient | null {
    if (this.closing || this.full) return null;
    const c = new SseClient(sink, this.written);
    c.held = held;
    this.clients.add(c);
    if (this.clients.size === 1) this.start();
    this.o.onClientCount?.(this.clients.size);
    c.queue.push(first);
    this.stamp();
    this.pump(c);
    return c;
  }

  /** Lets a held client's frames go out (its response head has been written). */
  release(c: SseClient): void {
    c.held = false;
    this.stamp();
    this.pump(c);
  }

  /** Removes a client (disconnect). Idempotent. */
  detach(c: SseClient): void {
    if (!this.clients.delete(c)) return;
    c.closed = true;
    c.queue.length = 0;
    c.pendingState = null;
    c.resolveDone();
    this.o.onClientCount?.(this.clients.size);
    if (this.clients.size === 0) this.stop();
  }

  /** Sends a discrete event to every client. */
  publish(event: string, data: unknown): void {
    if (this.clients.size === 0) return;
    let frame: Buffer;
    try {
      frame = sseFrame(event, data);
    } catch (e) {
      this.o.onError?.(e, `serializing a ${event} event`);
      return;
    }
    this.stats.events++;
    this.stamp();
    for (const c of this.clients) {
      c.queue.push(frame);
      c.queuedFrames++;
      if (c.queuedFrames > this.o.maxQueuedFrames) this.drop(c, 'overflow');
      else this.pump(c);
    }
  }

  /**
   * Builds one state frame and offers it to every client (coalescing for busy ones). The frame
   * is encoded once per tick; each client gets the same buffer, so a tick allocates nothing per
   * client (test/integration/http/sse-fanout.test.ts).
   */
  tick(): void {
    if (this.clients.size === 0) return;
    this.stamp();
    const now = this.nowMs;
    let frame: Buffer | null = null;
    try {
      frame = Buffer.from(this.stateFrame());
      this.stats.stateFrames++;
    } catch (e) {
      this.o.onError?.(e, 'building the state frame');
    }
    for (const c of this.clients) {
      if (c.writing && now - c.writeStartedAt > this.o.stallTimeoutMs) {
        this.drop(c, 'stalled');
        continue;
      }
      if (frame === null) continue;
      if (c.pendingState !== null) {
        this.stats.coalesced++;
        this.o.onCoalesce?.();
      }
      c.pendingState = frame;
      this.pump(c);
    }
  }

  private keepAlive(): void {
    this.stamp();
    for (const c of this.clients) {
      c.queue.push(KEEP_ALIVE);
      this.pump(c);
    }
  }

  /**
   * Writes what the client has waiting, if it has no write in flight: queued events in order,
   * then the latest state. Only the last write carries the completion callback (the transport
   * completes writes in order), so a client has one batch in flight at a time. The time comes
   * from `nowMs`, read once for all clients by the caller (stamp()).
   */
  private pump(c: SseClient): void {
    if (c.writing || c.closed || c.held) return;
    const queued = c.queue;
    const state = c.pendingState;
    const n = queued.length;
    if (n === 0 && state === null) return;
    if (n > 0) c.queue = [];
    c.queuedFrames = 0;
    c.pendingState = null;
    c.writing = true;
    c.writeStartedAt = this.nowMs;
    try {
      for (let i = 0; i < n; i++) c.sink.write(queued[i], state === null && i === n - 1 ? c.onWritten : undefined);
      if (state !== null) c.sink.write(state, c.onWritten);
    } catch {
      this.drop(c, 'error');
    }
  }

  private stamp(): void {
    this.nowMs = this.o.now();
  }

  private onWritten(c: SseClient, err?: Error | null): void {
    if (err) {
      this.drop(c, 'error');
      return;
    }
    c.writing = false;
    c.framesSent++;
    // The write that follows starts at the last fan-out's time (at most one tick ago, i.e. a stall
    // is seen up to one tick early): reading the clock here would box a double per client.
    if (!c.closed) this.pump(c);
  }

  private drop(c: SseClient, reason: DropReason): void {
    if (c.closed) return;
    this.stats.dropped++;
    this.o.onDrop?.(reason);
    this.detach(c);
    try {
      c.sink.destroy();
    } catch {
      // already gone
    }
  }

  private start(): void {
    // Ticks on a fixed schedule (period after period from the start), not setInterval: Node
    // restarts an interval from when its callback ran, so on a busy machine every late tick
    // delayed all later ones (9.2 frames/s at stream_hz 10 measured with 1,000 clients at load
    // 11-14). A slot missed entirely is skipped, never made up with a burst.
    const period = Math.max(10, 1000 / this.o.hz); // ms, unrounded: the schedule keeps the exact rate on average
    let due = performance.now() + period;
    const run = () => {
      this.tick();
      if (this.ticking !== run) return; // the last client left during the tick (or a new schedule started)
      const now = performance.now();
      do due += period;
      while (due <= now);
      this.tickTimer = setTimeout(run, due - now);
    };
    this.ticking = run;
    this.tickTimer = setTimeout(run, period);
    this.keepAliveTimer = setInterval(() => this.keepAlive(), this.o.keepAliveMs);
    const publish = (event: string, data: unknown) => this.publish(event, data);
    this.unsubscribers = this.o.sources.map((s) => s(publish));
  }

  private stop(): void {
    this.ticking = null;
    if (this.tickTimer) clearTimeout(this.tickTimer);
    if (this.keepAliveTimer) clearInterval(this.keepAliveTimer);
    this.tickTimer = this.keepAliveTimer = null;
    const u = this.unsubscribers;
    this.unsubscribers = [];
    for (const f of u) f();
  }

  /** True while timers and subscriptions are held (at least one client). */
  get active(): boolean {
    return this.tickTimer !== null;
  }

  /**
   * Ends every stream (shutdown): idle clients get a final `shutdown` event and a normal end;
   * clients that do not finish within `graceMs` (or are mid-write) are destroyed.
   */
  async closeAll(graceMs = 1000): Promise<void> {
    this.closing = true;
    const all = [...this.clients];
    const ends = all.map(async (c) => {
      const sink = c.sink;
      const busy = c.writing;
      this.detach(c);
      if (busy) {
        sink.destroy();
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const ended = (async () => {
        await new Promise<void>((resolve, reject) =>
          sink.write(sseFrame('shutdown', { reason: 'server shutting down' }), (err) => (err ? reject(err) : resolve())),
        );
        await sink.close();
      })();
      const late = await Promise.race([
        ended.then(
          () => false,
          () => true,
        ),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs))),
      ]);
      clearTimeout(timer);
      if (late) sink.destroy();
    });
    await Promise.all(ends);
    this.stop();
  }
}
