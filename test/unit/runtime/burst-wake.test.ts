// The engine thread's wakes (of the market-data thread after orders, of the inference worker after
// a feature vector) wait while the next input is due within the burst window, never longer than
// the bound, and none is lost (src/runtime/burst-wake.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BurstWakes, WAKE_BURST_MS, wakeMaxDeferMs, wakeNow } from '../../../src/runtime/burst-wake.ts';

test('the bound is the burst window, or half the order latency in wall time when shorter', () => {
  assert.is(WAKE_BURST_MS, 0.01);
  assert.is(wakeMaxDeferMs(100_000, 4), 0.01); // 100 µs at speed 4: 25 µs of wall time, half 12.5 µs
  assert.is(wakeMaxDeferMs(100_000, 20), 0.0025); // 5 µs of wall time: at most 2.5 µs
  assert.is(wakeMaxDeferMs(1_000_000, 1), 0.01);
});

test('a wake waits while the next input is due within the window, and goes otherwise', () => {
  const max = 0.01;
  assert.is(wakeNow(0.005, 0, max), false, 'next event 5 µs away: same burst');
  assert.is(wakeNow(-0.002, 0.001, max), false, 'next event already due: handle it first');
  assert.is(wakeNow(0.011, 0, max), true, 'next event 11 µs away: wake now');
  assert.is(wakeNow(Infinity, 0, max), true, 'nothing pending: wake now');
});

test('a wake never waits past the bound, even inside a long burst', () => {
  assert.is(wakeNow(0.001, 0.0099, 0.01), false);
  assert.is(wakeNow(0.001, 0.01, 0.01), true);
  assert.is(wakeNow(0.001, 0.003, 0.0025), true);
});

function recorder(targets: number, maxDeferMs = 0.01) {
  const sent: number[] = [];
  return { sent, wakes: new BurstWakes(targets, maxDeferMs, (t) => sent.push(t)) };
}

test('wakes asked for within a burst go together when it ends, each target once', () => {
  const { sent, wakes } = recorder(3);
  assert.is(wakes.waiting, false);
  wakes.ask(0, 100); // orders
  wakes.ask(2, 100.001); // a feature vector
  wakes.ask(0, 100.002); // more orders
  assert.ok(wakes.waiting);
  wakes.flush(0.004, 100.003); // next input 4 µs away
  assert.equal(sent, [], 'the burst goes on');
  wakes.flush(Infinity, 100.004); // nothing pending
  assert.equal(sent, [0, 2]);
  assert.is(wakes.waiting, false);
  wakes.flush(Infinity, 100.005);
  assert.equal(sent, [0, 2], 'nothing twice');
});

test('the bound counts from the oldest wake not sent', () => {
  const { sent, wakes } = recorder(2, 0.0025);
  wakes.ask(1, 200);
  wakes.ask(0, 200.002);
  wakes.flush(0.001, 200.0024);
  assert.equal(sent, []);
  wakes.flush(0.001, 200.003);
  assert.equal(sent, [0, 1], 'the oldest waited 3 µs: both go');
});

test('sendAll sends whatever waits, so the engine thread never sleeps on a wake not sent', () => {
  const { sent, wakes } = recorder(2);
  wakes.sendAll();
  assert.equal(sent, []);
  wakes.ask(1, 300);
  wakes.sendAll();
  assert.equal(sent, [1]);
  assert.is(wakes.waiting, false);
});

test.run();
