import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Rng } from '../../../src/core/rng.ts';
import { SeededLatency } from '../../../src/exchange/latency.ts';

const AT = new Float64Array(1); // send time: the seeded model does not depend on it

const P = { orderLatencyNs: 250_000, marketDataLatencyNs: 100_000, responseLatencyNs: 200_000, jitterNs: 20_000 };

test('deterministic per seed, different across seeds', () => {
  const a = new SeededLatency(P, new Rng(7));
  const b = new SeededLatency(P, new Rng(7));
  const c = new SeededLatency(P, new Rng(8));
  let same = 0,
    diff = 0;
  for (let i = 0; i < 1000; i++) {
    const x = a.orderEntry(AT, 0),
      y = b.orderEntry(AT, 0),
      z = c.orderEntry(AT, 0);
    if (x === y) same++;
    if (x !== z) diff++;
    assert.is(a.marketData(AT, 0), b.marketData(AT, 0));
    assert.is(a.response(AT, 0), b.response(AT, 0));
  }
  assert.is(same, 1000);
  assert.ok(diff > 900, `seeds 7 and 8 agree too often: ${1000 - diff}`);
});

test('each leg is base + integer jitter within [-jitter, +jitter], covering the range', () => {
  const m = new SeededLatency({ orderLatencyNs: 1000, marketDataLatencyNs: 500, responseLatencyNs: 2000, jitterNs: 5 }, new Rng(1));
  const legs: Array<[() => number, number]> = [
    [() => m.orderEntry(AT, 0), 1000],
    [() => m.marketData(AT, 0), 500],
    [() => m.response(AT, 0), 2000],
  ];
  for (const [leg, base] of legs) {
    const seen = new Set<number>();
    let sum = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) {
      const v = leg();
      assert.ok(Number.isInteger(v), `not an integer: ${v}`);
      assert.ok(v >= base - 5 && v <= base + 5, `out of bounds: ${v}`);
      seen.add(v);
      sum += v;
    }
    assert.is(seen.size, 11); // every value in base-5..base+5 occurs
    assert.ok(Math.abs(sum / n - base) < 0.2, `mean ${sum / n} far from ${base}`);
  }
});

test('never negative when the jitter exceeds the base', () => {
  const m = new SeededLatency({ orderLatencyNs: 100, marketDataLatencyNs: 0, responseLatencyNs: 10, jitterNs: 1000 }, new Rng(3));
  let zeros = 0;
  for (let i = 0; i < 10000; i++) {
    const a = m.orderEntry(AT, 0),
      b = m.marketData(AT, 0),
      c = m.response(AT, 0);
    assert.ok(a >= 0 && b >= 0 && c >= 0);
    assert.ok(a <= 1100 && b <= 1000 && c <= 1010);
    if (b === 0) zeros++;
  }
  assert.ok(zeros > 4000, `clamping at zero should be common here, got ${zeros}`);
});

test('zero jitter gives exactly the base and draws no random numbers', () => {
  const rng = new Rng(11);
  const m = new SeededLatency({ orderLatencyNs: 250_000, marketDataLatencyNs: 100_000, responseLatencyNs: 200_000, jitterNs: 0 }, rng);
  for (let i = 0; i < 100; i++) {
    assert.is(m.orderEntry(AT, 0), 250_000);
    assert.is(m.marketData(AT, 0), 100_000);
    assert.is(m.response(AT, 0), 200_000);
  }
  assert.is(rng.nextU32(), new Rng(11).nextU32());
});

test('rejects negative or non-finite parameters', () => {
  assert.throws(() => new SeededLatency({ ...P, orderLatencyNs: -1 }, new Rng(1)), /orderLatencyNs/);
  assert.throws(() => new SeededLatency({ ...P, jitterNs: NaN }, new Rng(1)), /jitterNs/);
  // The draws are int32 nanoseconds: a wider jitter would wrap, so it is refused.
  assert.throws(() => new SeededLatency({ ...P, jitterNs: 2 ** 31 }, new Rng(1)), /jitterNs must be at most 2147483647/);
});

test("the config's largest jitter (1 s) stays within [-jitter, +jitter]", () => {
  const m = new SeededLatency({ ...P, marketDataLatencyNs: 30e9, jitterNs: 1e9 }, new Rng(3));
  let lo = Infinity,
    hi = -Infinity;
  for (let i = 0; i < 5000; i++) {
    const v = m.marketData(AT, 0) - 30e9;
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  assert.ok(lo >= -1e9 && hi <= 1e9, `${lo}..${hi}`);
  assert.ok(lo < -0.99e9 && hi > 0.99e9, `covers the range: ${lo}..${hi}`);
});

test.run();
