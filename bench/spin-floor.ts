// The host's floor for a thread that spins: how late a thread that never sleeps notices an
// instant, when nothing but the host stands in its way. A bare worker thread reads the monotonic
// clock in a loop, as the busy-poll engine thread does between inputs, and records every gap
// between two reads. On a virtual machine the gaps are the host's: interrupts and the hypervisor
// take the vCPU away (on the 2-vCPU machines of docs/performance.md a C loop loses ~6 % of its
// time in ~1,300 gaps a second of 20-80 µs, with no steal time reported). An instant that falls
// in a gap is noticed at its end; the busy-poll engine's tick-to-trade cannot beat that delay.

import { Worker } from 'node:worker_threads';

/** Gaps between two clock reads shorter than this are the loop itself, not the host (µs). */
const GAP_MIN_US = 1;

export interface SpinFloor {
  seconds: number;
  /** Share of the spin's time the thread was away (gaps of more than GAP_MIN_US), %. */
  lostPct: number;
  /** Gaps of 20 µs and more, per second. */
  gapsOver20UsPerSec: number;
  /** Percentiles of the delay to notice an instant drawn uniformly over the spin, µs. */
  delayUs: { p50: number; p90: number; p99: number; p999: number };
  /** The longest gap, µs. */
  maxGapUs: number;
}

const SPIN_WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const ms = () => { const t = process.hrtime(); return t[0] * 1e3 + t[1] / 1e6; };
function spin(seconds, minUs) {
  const gaps = new Float64Array(1 << 20);
  let n = 0;
  const start = ms();
  const end = start + seconds * 1e3;
  let prev = start;
  for (;;) {
    const t = ms();
    const us = (t - prev) * 1e3;
    prev = t;
    if (us > minUs && n < gaps.length) gaps[n++] = us;
    if (t >= end) break;
  }
  return { gapsUs: gaps.slice(0, n), spanUs: (prev - start) * 1e3 };
}
parentPort.postMessage(spin(workerData.seconds, workerData.minUs));`;

/**
 * The delay to notice an instant t drawn uniformly over a span of spanUs, given the gaps: the rest
 * of the gap t falls in, 0 outside gaps. P(delay > x) = sum of max(0, g - x) over the gaps / span,
 * which is linear between two gap lengths, so each quantile is solved exactly.
 */
export function delayQuantile(gapsUs: ArrayLike<number>, spanUs: number, p: number): number {
  return quantileOfLongestFirst(
    Array.from(gapsUs).sort((a, b) => b - a),
    spanUs,
    p,
  );
}

/** delayQuantile over gaps already sorted longest first. */
function quantileOfLongestFirst(g: readonly number[], spanUs: number, p: number): number {
  const target = (1 - p) * spanUs; // the area of the gaps above the quantile
  let sum = 0;
  for (let k = 1; k <= g.length; k++) {
    sum += g[k - 1];
    const next = k < g.length ? g[k] : 0;
    // With the k longest gaps above x: sum - k x = target, valid while x >= the next gap.
    const x = (sum - target) / k;
    if (x >= next) return x > 0 ? x : 0;
  }
  return 0;
}

export function spinFloorOf(gapsUs: ArrayLike<number>, spanUs: number): SpinFloor {
  let lost = 0;
  let over20 = 0;
  let max = 0;
  for (let i = 0; i < gapsUs.length; i++) {
    const g = gapsUs[i];
    lost += g;
    if (g >= 20) over20++;
    if (g > max) max = g;
  }
  const sorted = Array.from(gapsUs).sort((a, b) => b - a); // once for the four quantiles
  const q = (p: number) => quantileOfLongestFirst(sorted, spanUs, p);
  return {
    seconds: spanUs / 1e6,
    lostPct: (100 * lost) / spanUs,
    gapsOver20UsPerSec: over20 / (spanUs / 1e6),
    delayUs: { p50: q(0.5), p90: q(0.9), p99: q(0.99), p999: q(0.999) },
    maxGapUs: max,
  };
}

/** Spins a bare worker thread for `seconds` and returns the host's floor (see above). */
export async function measureSpinFloor(seconds: number): Promise<SpinFloor> {
  const w = new Worker(SPIN_WORKER, { eval: true, workerData: { seconds, minUs: GAP_MIN_US } });
  try {
    const r = await new Promise<{ gapsUs: Float64Array; spanUs: number }>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    return spinFloorOf(r.gapsUs, r.spanUs);
  } finally {
    await w.terminate();
  }
}
