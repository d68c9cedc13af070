// The engine thread's wakes of other threads: of the market-data thread after it sent orders,
// and of the inference worker after it published a feature vector. A futex wake of a thread
// blocked on the other vCPU took the engine thread 5-10 µs here, and 30-50 µs in a third of the
// wakes or more (docs/performance-archive.md, round sixteen). Order-triggering events often come in
// bursts (a trade and the level changes it causes, microseconds apart), and the next event of a
// burst waited for those wakes. So the wake waits while the engine's next input is due within
// WAKE_BURST_MS, for at most wakeMaxDeferMs. What it announces is published at once (the order
// in its ring, the feature vector in its slot, the futex word bumped): a thread that is awake
// sees it without a wake, and only the wall time at which a sleeping one acts can move, by at
// most the bound. The market-data thread still executes an order at its arrival time in
// exchange time (it takes orders and market events in time order).

/** Wall ms: a next input due within this is part of the same burst. */
export const WAKE_BURST_MS = 0.01;

/** The longest a wake may wait, wall ms: WAKE_BURST_MS, or half the order latency in wall time when that is shorter. */
export function wakeMaxDeferMs(orderLatencyNs: number, speed: number): number {
  return Math.min(WAKE_BURST_MS, orderLatencyNs / 1e6 / speed / 2);
}

/** True when a wake asked `waitedMs` ago should go now, the engine's next input due in `untilDueMs` (Infinity: none). */
export function wakeNow(untilDueMs: number, waitedMs: number, maxDeferMs: number): boolean {
  return untilDueMs > WAKE_BURST_MS || waitedMs >= maxDeferMs;
}

/**
 * The wakes asked for and not sent yet, by target number (0 .. targets-1): each target is woken
 * once per flush however often it was asked for. `send` does the wake (Atomics.notify).
 */
export class BurstWakes {
  private askedAt = -1; // wall ms of the oldest wake not sent; -1: none
  private readonly pending: Uint8Array;

  constructor(
    targets: number,
    private readonly maxDeferMs: number,
    private readonly send: (target: number) => void,
  ) {
    this.pending = new Uint8Array(targets);
  }

  /** True while a wake waits to be sent. */
  get waiting(): boolean {
    return this.askedAt >= 0;
  }

  ask(target: number, wallNow: number): void {
    this.pending[target] = 1;
    if (this.askedAt < 0) this.askedAt = wallNow;
  }

  /** Sends the wakes asked for unless the next input is due within the burst window and they have not waited too long. */
  flush(untilDueMs: number, wallNow: number): void {
    if (this.askedAt >= 0 && wakeNow(untilDueMs, wallNow - this.askedAt, this.maxDeferMs)) this.sendAll();
  }

  /** Sends every wake asked for (before the engine thread sleeps: it never sleeps on one not sent). */
  sendAll(): void {
    this.askedAt = -1;
    const p = this.pending;
    for (let i = 0; i < p.length; i++) {
      if (p[i] === 0) continue;
      p[i] = 0;
      this.send(i);
    }
  }
}
