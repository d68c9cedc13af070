// The wall clock of the simulation's worker threads, without garbage. Their shared time base is
// performance.timeOrigin + performance.now() (ms, the same in every thread of the process), but
// performance.now() is a native call that returns a freshly allocated heap number, and the engine
// thread reads the clock on every pass of its idle spin. process.hrtime() reads the same
// monotonic clock into a buffer, and once inlined into an optimised caller its [s, ns] array is
// removed by escape analysis: in a fresh thread, a loop of calls ran 11.6M calls/s with no GC,
// against 9.4M calls/s and 154 scavenges a second through performance.now()
// (test/simulation-worker-clock.test.ts checks the no-GC part). The offset between the two is
// measured once per thread, from the closest of several back-to-back reads (error well under 1 µs).

function hrMs(): number {
  const t = process.hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
}

/** A clock function closing over the offset, measured once from the closest of several back-to-back reads. */
function calibrated(): () => number {
  let best = Infinity;
  let offset = 0;
  for (let i = 0; i < 64; i++) {
    const a = hrMs();
    const w = performance.timeOrigin + performance.now();
    const b = hrMs();
    if (b - a < best) {
      best = b - a;
      offset = w - (a + b) / 2;
    }
  }
  const offsetMs = offset;
  // A constant of the closure: V8 folds it into the optimised caller. Held in a module variable
  // or a typed array instead, the same loop allocated 200-400 scavenges' worth a second (measured).
  return () => {
    const t = process.hrtime();
    return offsetMs + (t[0] * 1e3 + t[1] / 1e6);
  };
}

/** performance.timeOrigin + performance.now() (ms), allocation-free when inlined into an optimised caller. */
export const wallMs: () => number = calibrated();
