// The engine thread's wake of the market-data thread after orders waits while the next input is
// due within the burst window, never longer than the bound (src/runtime/md-wake.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MD_WAKE_BURST_MS, mdWakeMaxDeferMs, mdWakeNow } from '../src/runtime/md-wake.ts';

test('the bound is the burst window, or half the order latency in wall time when shorter', () => {
  assert.is(MD_WAKE_BURST_MS, 0.01);
  assert.is(mdWakeMaxDeferMs(100_000, 4), 0.01); // 100 µs at speed 4: 25 µs of wall time, half 12.5 µs
  assert.is(mdWakeMaxDeferMs(100_000, 20), 0.0025); // 5 µs of wall time: at most 2.5 µs
  assert.is(mdWakeMaxDeferMs(1_000_000, 1), 0.01);
});

test('a wake waits while the next input is due within the window, and goes otherwise', () => {
  const max = 0.01;
  assert.is(mdWakeNow(0.005, 0, max), false, 'next event 5 µs away: same burst');
  assert.is(mdWakeNow(-0.002, 0.001, max), false, 'next event already due: handle it first');
  assert.is(mdWakeNow(0.011, 0, max), true, 'next event 11 µs away: wake now');
  assert.is(mdWakeNow(Infinity, 0, max), true, 'nothing pending: wake now');
});

test('a wake never waits past the bound, even inside a long burst', () => {
  assert.is(mdWakeNow(0.001, 0.0099, 0.01), false);
  assert.is(mdWakeNow(0.001, 0.01, 0.01), true);
  assert.is(mdWakeNow(0.001, 0.003, 0.0025), true);
});

test.run();
