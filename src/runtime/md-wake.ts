// The engine thread's wake of the market-data thread after it sent orders. A futex wake of a
// thread blocked on the other vCPU took the engine thread 5-10 µs here, and 30-50 µs in a third
// of the wakes or more (docs/performance.md, round sixteen). Order-triggering events often come
// in bursts (a trade and the level changes it causes, microseconds apart), and the next event of
// a burst waited for that wake. So the wake waits while the engine's next input is due within
// MD_WAKE_BURST_MS, for at most mdWakeMaxDeferMs. The order itself is in the ring at once: a
// market-data thread that is awake reads it without a wake, and one that wakes late still
// executes it at its arrival time in exchange time (it takes orders and market events in time
// order), so only the wall time at which the exchange acts can move, by at most the bound.

/** Wall ms: a next input due within this is part of the same burst. */
export const MD_WAKE_BURST_MS = 0.01;

/** The longest a wake may wait, wall ms: MD_WAKE_BURST_MS, or half the order latency in wall time when that is shorter. */
export function mdWakeMaxDeferMs(orderLatencyNs: number, speed: number): number {
  return Math.min(MD_WAKE_BURST_MS, orderLatencyNs / 1e6 / speed / 2);
}

/** True when a wake asked `waitedMs` ago should go now, the engine's next input due in `untilDueMs` (Infinity: none). */
export function mdWakeNow(untilDueMs: number, waitedMs: number, maxDeferMs: number): boolean {
  return untilDueMs > MD_WAKE_BURST_MS || waitedMs >= maxDeferMs;
}
