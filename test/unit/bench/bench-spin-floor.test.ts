// The bench's host floor for a spinning thread (bench/spin-floor.ts): the quantiles of the delay
// to notice a uniformly drawn instant, solved from the gaps, against a direct count.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { delayQuantile, spinFloorOf } from '../../../bench/spin-floor.ts';

const close = (a: number, b: number, tol: number, what: string) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

test('one gap: the delay is the rest of the gap for instants inside it, 0 elsewhere', () => {
  // A 10 µs gap in 100 µs: P(delay > x) = (10 - x) / 100.
  close(delayQuantile([10], 100, 0.99), 9, 1e-12, 'p99');
  close(delayQuantile([10], 100, 0.95), 5, 1e-12, 'p95');
  close(delayQuantile([10], 100, 0.9), 0, 1e-12, "p90, at the gap's start");
  assert.is(delayQuantile([10], 100, 0.5), 0);
  assert.is(delayQuantile([], 100, 0.99), 0);
});

test('two gaps: the quantile crosses from the longest gap to both', () => {
  close(delayQuantile([4, 10], 100, 0.99), 9, 1e-12, 'only the 10 µs gap above 9 µs');
  // Above 3.5 µs: 6.5 of the 10 µs gap and 0.5 of the 4 µs gap, 7 % of the span.
  close(delayQuantile([10, 4], 100, 0.93), 3.5, 1e-12, 'p93');
});

test('quantiles match the delays of instants laid on a fine grid over a timeline of gaps', () => {
  // Deterministic gaps of 1-80 µs between stretches of 5-200 µs of running, over ~1 s.
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const gaps: number[] = [];
  const starts: number[] = [];
  let t = 0;
  while (t < 1e6) {
    t += 5 + 195 * rand();
    const g = 1 + 79 * rand() * rand();
    starts.push(t);
    gaps.push(g);
    t += g;
  }
  const span = t;
  const delays: number[] = [];
  const step = 0.25;
  let k = 0;
  for (let x = 0; x < span; x += step) {
    while (k < starts.length && starts[k] + gaps[k] <= x) k++;
    delays.push(k < starts.length && x >= starts[k] ? starts[k] + gaps[k] - x : 0);
  }
  delays.sort((a, b) => a - b);
  for (const p of [0.5, 0.9, 0.99, 0.999]) {
    const counted = delays[Math.floor(p * (delays.length - 1))];
    close(delayQuantile(gaps, span, p), counted, 0.3, `p${p * 100}`);
  }
  const f = spinFloorOf(gaps, span);
  close(f.lostPct, (100 * gaps.reduce((a, b) => a + b, 0)) / span, 1e-9, 'time away');
  assert.is(f.maxGapUs, Math.max(...gaps));
  assert.is(f.gapsOver20UsPerSec, gaps.filter((g) => g >= 20).length / (span / 1e6));
  assert.ok(f.delayUs.p99 > f.delayUs.p90 && f.delayUs.p99 < f.maxGapUs);
});

test.run();
