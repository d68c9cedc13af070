// The wall clock of the simulation's threads: milliseconds of the system's monotonic clock
// (CLOCK_MONOTONIC, read through process.hrtime()), the same in every thread of the process, so
// a time stamped in one thread compares with a time read in another (tick-to-trade, pacing).
//
// Why not performance.timeOrigin + performance.now(), the base before: an epoch time in ms
// (~1.7e12) holds a double's 53 bits only down to 0.24 µs, so every latency came in steps of
// 0.24 µs (tick-to-trade is now ~2 µs); the monotonic clock counts from boot, where a double
// resolves far below a nanosecond. Each thread also has its own timeOrigin, so the sum had to be
// calibrated per thread. And performance.now() is a native call that returns a freshly
// allocated heap number, where process.hrtime() fills a buffer and, inlined into an optimised
// caller, its [s, ns] array is removed by escape analysis: a loop of calls in a fresh thread
// runs with no GC (test/integration/sessions/simulation-worker-clock.test.ts), against ~150 scavenges a second
// through performance.now().

/** Monotonic wall-clock time in ms (same in every thread; allocation-free when inlined into an optimised caller). */
export function wallMs(): number {
  const t = process.hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
}
