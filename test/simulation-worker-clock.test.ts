// The clock of the simulation's worker threads: wallMs() is the shared time base
// (performance.timeOrigin + performance.now()) read without garbage, SimClock.nowNs() keeps
// the session it found last without changing a result, and neither allocates in a loop (the
// engine thread reads both on every pass of its idle spin).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { measureAllocation, type Allocation } from './helpers/allocation.ts';
import { SimClock } from '../src/runtime/clock.ts';
import { wallMs } from '../src/runtime/wall-clock.ts';

test('wallMs() reads the shared time base: between two reads of performance.timeOrigin + now()', () => {
  for (let i = 0; i < 1000; i++) {
    const a = performance.timeOrigin + performance.now();
    const w = wallMs();
    const b = performance.timeOrigin + performance.now();
    // The offset is measured to well under 1 µs; 5 µs leaves room for the float64 rounding of
    // an epoch-ms value (0.24 µs) and nothing else.
    assert.ok(w >= a - 0.005 && w <= b + 0.005, `wallMs ${w} outside [${a}, ${b}]`);
  }
});

test('nowNs() of a clock that kept its last session equals a fresh clock, across sessions', () => {
  // 4 simulated hours per wall second: a wall minute crosses a day's 6.5 h session several times.
  const origin = 1_700_000_000_000;
  const make = () => new SimClock('2024-01-02', 9.5 * 3600e9, 16 * 3600e9, 14_400, origin);
  const kept = make();
  for (let ms = -5; ms < 60_000; ms += 3.7) {
    const w = origin + ms;
    assert.is(kept.nowNs(w), make().nowNs(w), `nowNs at +${ms} ms`);
  }
  // And jumping back to an earlier session (the cache is not a one-way street).
  assert.is(kept.nowNs(origin + 10), make().nowNs(origin + 10));
});

test('nowNs() allocates nothing over 1M calls', async () => {
  const clock = new SimClock('2024-01-02', 9.5 * 3600e9, 16 * 3600e9, 4, 1_700_000_000_000);
  const out = new Float64Array(1);
  const loop = (n: number) => {
    for (let i = 0; i < n; i++) out[0] += clock.nowNs(1_700_000_000_000 + i * 1e-3);
  };
  // Optimised first, as in the worker: the interpreter boxes every double it computes (on a
  // busy machine the optimising compiler may be late, hence the attempts).
  for (let k = 0; k < 8; k++) loop(100_000);
  const m = await measureAllocation(() => loop(1_000_000), { attempts: 5 });
  assert.is(m.gcs, 0, `garbage collections during the loop: ${JSON.stringify(m)}`);
  assert.ok(m.newSpaceGrowth < 1 << 20, `new space grew ${m.newSpaceGrowth} bytes`);
});

test('wallMs() allocates nothing over 1M calls in a fresh thread; performance.now() does', () => {
  const fixture = fileURLToPath(new URL('./fixtures/wall-clock-gc.ts', import.meta.url));
  const r = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', fixture], { encoding: 'utf8' })) as { wall: Allocation; perf: Allocation };
  assert.is(r.wall.gcs, 0, `wallMs(): ${JSON.stringify(r.wall)}`);
  // The meter is not blind: a native call returning a new heap number each time allocates.
  assert.ok(r.perf.gcs > 0 || r.perf.newSpaceGrowth > 1 << 20, `performance.now(): ${JSON.stringify(r.perf)}`);
});

test.run();
