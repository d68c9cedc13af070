// The clock of the simulation's worker threads: wallMs() is the shared time base (the monotonic
// clock in ms, the same in every thread, at full resolution) read without garbage, SimClock.nowNs() keeps
// the session it found last without changing a result, and neither allocates in a loop (the
// engine thread reads both on every pass of its idle spin).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { measureAllocation, type Allocation } from '../../helpers/allocation.ts';
import { SimClock } from '../../../src/runtime/clock.ts';
import { wallMs } from '../../../src/runtime/wall-clock.ts';

test('wallMs() is the monotonic clock in ms, resolved far below a microsecond', () => {
  let steps = 0;
  let prev = wallMs();
  for (let i = 0; i < 1000; i++) {
    const a = Number(process.hrtime.bigint()) / 1e6;
    const w = wallMs();
    const b = Number(process.hrtime.bigint()) / 1e6;
    // hrtime.bigint() in ns converted to ms rounds to ~4 ps here: a few ps of slack.
    assert.ok(w >= a - 1e-8 && w <= b + 1e-8, `wallMs ${w} outside [${a}, ${b}]`);
    assert.ok(w >= prev, 'monotonic');
    if (w > prev) steps++;
    prev = w;
  }
  assert.ok(steps > 500, `distinct readings: ${steps} of 1000`);
  // The old base, an epoch time in ms, could not tell apart two readings 0.1 µs apart.
  const t = wallMs();
  assert.ok(t + 1e-4 !== t && t + 1e-7 !== t, `resolution at ${t} ms`);
});

test('wallMs() is the same clock in a worker thread: a reading there falls between two here', async () => {
  const sab = new SharedArrayBuffer(16);
  const flag = new Int32Array(sab, 0, 2);
  const at = new Float64Array(sab, 8, 1);
  // Bundled as the simulation's workers are (tsx's loader does not reach a worker thread here).
  const dir = mkdtempSync(join(tmpdir(), 'wall-clock-'));
  const file = join(dir, 'worker.mjs');
  buildSync({
    entryPoints: [fileURLToPath(new URL('../../fixtures/wall-clock-worker.ts', import.meta.url))],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
  });
  const worker = new Worker(file, { workerData: sab });
  try {
    for (let k = 1; k <= 50; k++) {
      const before = wallMs();
      Atomics.store(flag, 0, k);
      Atomics.notify(flag, 0);
      const deadline = Date.now() + 30_000;
      while (Atomics.load(flag, 1) !== k) {
        if (Date.now() > deadline) throw new Error('the worker did not answer');
        await new Promise((r) => setImmediate(r));
      }
      const after = wallMs();
      assert.ok(at[0] >= before && at[0] <= after, `worker read ${at[0]}, outside [${before}, ${after}]`);
    }
  } finally {
    await worker.terminate();
    rmSync(dir, { recursive: true, force: true });
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
  const fixture = fileURLToPath(new URL('../../fixtures/wall-clock-gc.ts', import.meta.url));
  const r = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', fixture], { encoding: 'utf8' })) as { wall: Allocation; perf: Allocation };
  assert.is(r.wall.gcs, 0, `wallMs(): ${JSON.stringify(r.wall)}`);
  // The meter is not blind: a native call returning a new heap number each time allocates.
  assert.ok(r.perf.gcs > 0 || r.perf.newSpaceGrowth > 1 << 20, `performance.now(): ${JSON.stringify(r.perf)}`);
});

test.run();
