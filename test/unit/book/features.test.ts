// FeatureExtractor: hand-built event sequences with hand-computed values, invariants over a
// random feed, and a million events through book + extractor without allocating.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { measureAllocation, UNDER_COVERAGE } from '../../helpers/allocation.ts';
import { ASK, BID, EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, EV_TS, MD_ADD, MD_CANCEL, MD_TRADE, NS_PER_S } from '../../../src/core/events.ts';
import { Rng } from '../../../src/core/rng.ts';
import { DenseBook, NO_PRICE } from '../../../src/book/dense-book.ts';
import {
  F_IMB_L1,
  F_IMB_L5,
  F_MICRO_OFFSET,
  F_MOMENTUM,
  F_OFI,
  F_SPREAD,
  F_TRADE_IMB,
  F_VOL,
  F_VPIN,
  FEATURE_COUNT,
  FEATURE_DEFAULTS,
  FEATURE_NAMES,
  FeatureExtractor,
  type FeatureOptions,
} from '../../../src/book/features.ts';

const S = NS_PER_S;
const close = (got: number, want: number, eps = 1e-9, msg = ''): void => {
  assert.ok(Math.abs(got - want) <= eps, `${msg} got ${got}, want ${want}`);
};

/** A book and an extractor fed one hand-written event at a time. */
class Harness {
  readonly book = new DenseBook(256);
  readonly fx: FeatureExtractor;
  // the record sits at a non-zero offset to check that `off` is honoured
  readonly data = new Float64Array(EV_STRIDE * 4).fill(-1);
  readonly off = EV_STRIDE * 2;
  constructor(opts?: FeatureOptions) {
    this.fx = new FeatureExtractor(opts);
  }
  ev(ts: number, kind: number, side: number, price: number, qty: number): FeatureExtractor {
    const d = this.data,
      o = this.off;
    d[o + EV_TS] = ts;
    d[o + EV_KIND] = kind;
    d[o + EV_SIDE] = side;
    d[o + EV_PRICE] = price;
    d[o + EV_QTY] = qty;
    this.book.apply(kind, side, price, qty);
    this.fx.onEvent(this.book.bestBid, this.book.bestAsk, this.book, d, o);
    return this.fx;
  }
  add(ts: number, side: number, price: number, qty: number): FeatureExtractor {
    return this.ev(ts, MD_ADD, side, price, qty);
  }
  cancel(ts: number, side: number, price: number, qty: number): FeatureExtractor {
    return this.ev(ts, MD_CANCEL, side, price, qty);
  }
  trade(ts: number, side: number, price: number, qty: number): FeatureExtractor {
    return this.ev(ts, MD_TRADE, side, price, qty);
  }
  /** The OFI contribution of one event (same timestamp as the last: no decay in between). */
  dOfi(ts: number, kind: number, side: number, price: number, qty: number): number {
    const before = this.fx.ofi;
    this.ev(ts, kind, side, price, qty);
    return this.fx.ofi - before;
  }
}

test('options: documented defaults, bad values rejected', () => {
  const fx = new FeatureExtractor();
  assert.equal({ ...fx.opts }, { ...FEATURE_DEFAULTS });
  assert.is(FEATURE_DEFAULTS.ofiTauNs, 1e9);
  assert.is(FEATURE_DEFAULTS.volHorizonNs, 10e9);
  assert.is(FEATURE_DEFAULTS.vpinBuckets, 50);
  assert.is(new FeatureExtractor({ vpinBuckets: 7, ofiTauNs: 5e8 }).opts.vpinBuckets, 7);
  assert.is(new FeatureExtractor({ vpinBuckets: 7, ofiTauNs: 5e8 }).opts.ofiTauNs, 5e8);
  assert.throws(() => new FeatureExtractor({ ofiTauNs: 0 }), /ofiTauNs/);
  assert.throws(() => new FeatureExtractor({ volHorizonNs: -1 }), /volHorizonNs/);
  assert.throws(() => new FeatureExtractor({ vpinBucketVolume: NaN }), /vpinBucketVolume/);
  assert.throws(() => new FeatureExtractor({ vpinBuckets: 2.5 }), /vpinBuckets/);
  assert.throws(() => new FeatureExtractor({ volFloor: -0.1 }), /volFloor/);
});

test('feature vector layout: names, indices, values mirror the scalar outputs', () => {
  assert.is(FEATURE_NAMES.length, FEATURE_COUNT);
  assert.is(new Set(FEATURE_NAMES).size, FEATURE_COUNT);
  const idx = [F_MICRO_OFFSET, F_SPREAD, F_IMB_L1, F_IMB_L5, F_OFI, F_TRADE_IMB, F_VOL, F_VPIN, F_MOMENTUM];
  assert.equal(
    [...idx].sort((a, b) => a - b),
    [...Array(FEATURE_COUNT).keys()],
  );
  assert.is(FEATURE_NAMES[F_OFI], 'ofi_norm');
  assert.is(FEATURE_NAMES[F_VPIN], 'vpin');
  assert.not.ok(
    FEATURE_NAMES.some((n) => n === 'mid' || n === 'microprice'),
    'no absolute price in the vector',
  );
  const h = new Harness({ vpinBucketVolume: 5, vpinBuckets: 2 });
  h.add(0, BID, 1000, 30);
  h.add(0, ASK, 1001, 10);
  h.add(S / 2, BID, 999, 12);
  h.trade(S, ASK, 1001, 6);
  h.trade(2 * S, BID, 1000, 4);
  const fx = h.fx,
    v = fx.values;
  assert.is(v.length, FEATURE_COUNT);
  assert.is(v[F_MICRO_OFFSET], fx.microprice - fx.mid);
  assert.is(v[F_SPREAD], fx.spread);
  assert.is(v[F_IMB_L1], fx.imbalanceL1);
  assert.is(v[F_IMB_L5], fx.imbalanceL5);
  assert.is(v[F_OFI], fx.ofiNorm);
  assert.is(v[F_TRADE_IMB], fx.tradeImbalance);
  assert.is(v[F_VOL], fx.volatility);
  assert.is(v[F_VPIN], fx.vpin);
  assert.is(v[F_MOMENTUM], fx.momentum);
  assert.ok(v.every((x) => Number.isFinite(x)));
  assert.ok(v.some((x) => x !== 0));
  // the surrounding records were not touched
  assert.ok(h.data.subarray(0, h.off).every((x) => x === -1));
  assert.ok(h.data.subarray(h.off + EV_STRIDE).every((x) => x === -1));
});

test('before a two-sided book: every value finite, nothing made up', () => {
  const h = new Harness();
  const fx = h.fx;
  assert.not.ok(fx.ready);
  assert.is(fx.volatility, 1, 'volInit before any data');
  assert.equal([...fx.values], [0, 0, 0, 0, 0, 0, 1, 0, 0]);
  h.add(0, BID, 1000, 30);
  h.add(0, BID, 999, 30);
  assert.not.ok(fx.twoSided);
  assert.not.ok(fx.ready);
  assert.is(fx.mid, 0);
  assert.is(fx.momentum, 0);
  assert.is(fx.ofi, 0, 'no OFI from a one-sided book');
  assert.ok(fx.values.every((x) => Number.isFinite(x)));
  h.add(0, ASK, 1001, 10);
  assert.ok(fx.twoSided && fx.ready);
  assert.is(fx.mid, 1000.5);
});

test('mid, spread, microprice and L1 imbalance', () => {
  const h = new Harness();
  h.add(0, BID, 1000, 30);
  const fx = h.add(0, ASK, 1001, 10);
  assert.is(fx.mid, 1000.5);
  assert.is(fx.spread, 1);
  // (1000 * 10 + 1001 * 30) / 40 = 40030 / 40
  assert.is(fx.microprice, 1000.75);
  assert.is(fx.values[F_MICRO_OFFSET], 0.25);
  assert.is(fx.imbalanceL1, 0.5); // (30 - 10) / 40
  h.add(0, ASK, 1001, 30);
  // (1000 * 40 + 1001 * 30) / 70 = 70030 / 70; (30 - 40) / 70
  close(fx.microprice, 70030 / 70);
  close(fx.microprice, 1000.4285714285714, 1e-12);
  close(fx.imbalanceL1, -1 / 7);
  // ask side emptied: last two-sided values held
  h.cancel(0, ASK, 1001, 40);
  assert.not.ok(fx.twoSided);
  assert.is(fx.mid, 1000.5);
  close(fx.imbalanceL1, -1 / 7);
  h.add(0, ASK, 1002, 10);
  assert.ok(fx.twoSided);
  assert.is(fx.mid, 1001);
  assert.is(fx.spread, 2);
  assert.is(fx.values[F_SPREAD], 2);
  // (1000 * 10 + 1002 * 30) / 40 = 1001.5
  assert.is(fx.microprice, 1001.5);
  assert.is(fx.values[F_MICRO_OFFSET], 0.5);
  assert.is(fx.imbalanceL1, 0.5);
});

test('top-5 imbalance: weights exp(-k/2) over 5 ticks, follows the best', () => {
  const h = new Harness();
  const w = (k: number) => Math.exp(-k / 2);
  h.add(0, BID, 1000, 30);
  h.add(0, BID, 999, 20);
  h.add(0, BID, 997, 40);
  h.add(0, BID, 995, 1000); // 5 ticks below the best: outside
  h.add(0, ASK, 1001, 10);
  h.add(0, ASK, 1002, 10);
  const fx = h.add(0, ASK, 1006, 500); // outside
  let wb = 30 + 20 * w(1) + 40 * w(3);
  let wa = 10 + 10 * w(1);
  close(fx.imbalanceL5, (wb - wa) / (wb + wa), 1e-12);
  close(fx.imbalanceL5, 0.5213, 1e-4); // 34.9905 / 67.1211
  h.add(0, BID, 995, 50); // outside: no change
  h.add(0, ASK, 1006, 50);
  close(fx.imbalanceL5, (wb - wa) / (wb + wa), 1e-12);
  h.add(0, BID, 998, 10); // inside, not at the best
  wb += 10 * w(2);
  close(fx.imbalanceL5, (wb - wa) / (wb + wa), 1e-12);
  h.cancel(0, ASK, 1002, 4);
  wa -= 4 * w(1);
  close(fx.imbalanceL5, (wb - wa) / (wb + wa), 1e-12);
  // best bid emptied: the window slides down to 999..995 and now includes 995
  h.cancel(0, BID, 1000, 30);
  wb = 20 + 10 * w(1) + 40 * w(2) + 0 * w(3) + 1050 * w(4);
  close(fx.imbalanceL5, (wb - wa) / (wb + wa), 1e-12);
  // best ask taken out by trades: 1002 is the best, 1006 now 4 ticks away
  h.trade(0, ASK, 1001, 10);
  wa = 6 + 550 * w(4);
  close(fx.imbalanceL5, (wb - wa) / (wb + wa), 1e-12);
  assert.ok(fx.imbalanceL5 > 0);
});

/** bid 1000 x100, 999 x70; ask `ask` x100, ask+1 x60; all at t = 0. */
function ofiBook(ask = 1001): Harness {
  const h = new Harness();
  h.add(0, BID, 1000, 100);
  h.add(0, BID, 999, 70);
  h.add(0, ASK, ask, 100);
  h.add(0, ASK, ask + 1, 60);
  assert.is(h.fx.ofi, 0, 'building the book adds no OFI');
  assert.is(h.fx.depthAvg, 100);
  return h;
}

test('OFI: queue changes at unchanged best prices', () => {
  let h = ofiBook();
  assert.is(h.dOfi(0, MD_ADD, BID, 1000, 20), 20, 'bid queue grows: buying pressure');
  close(h.fx.ofiNorm, 0.2, 1e-12, 'normalised by the average best depth 100');
  assert.is(h.fx.values[F_OFI], h.fx.ofiNorm);
  h = ofiBook();
  assert.is(h.dOfi(0, MD_CANCEL, BID, 1000, 30), -30, 'bid queue shrinks');
  h = ofiBook();
  assert.is(h.dOfi(0, MD_TRADE, BID, 1000, 10), -10, 'sell market order hits the bid');
  h = ofiBook();
  assert.is(h.dOfi(0, MD_ADD, ASK, 1001, 25), -25, 'ask queue grows: selling pressure');
  h = ofiBook();
  assert.is(h.dOfi(0, MD_CANCEL, ASK, 1001, 40), 40, 'ask queue shrinks');
  h = ofiBook();
  assert.is(h.dOfi(0, MD_TRADE, ASK, 1001, 15), 15, 'buy market order lifts the ask');
  h = ofiBook();
  assert.is(h.dOfi(0, MD_ADD, BID, 999, 50), 0, 'below the best: not OFI');
  assert.is(h.dOfi(0, MD_CANCEL, ASK, 1002, 60), 0, 'behind the best: not OFI');
  // accumulates at one timestamp exactly
  h = ofiBook();
  h.add(0, BID, 1000, 20);
  h.cancel(0, ASK, 1001, 40);
  h.trade(0, BID, 1000, 5);
  assert.is(h.fx.ofi, 20 + 40 - 5);
});

test('OFI: best prices moving', () => {
  let h = ofiBook(1002); // spread 2
  assert.is(h.dOfi(0, MD_ADD, BID, 1001, 30), 30, 'bid improves: + the new bid queue');
  h = ofiBook(1002);
  assert.is(h.dOfi(0, MD_ADD, ASK, 1001, 40), -40, 'ask improves (moves down): - the new ask queue');
  h = ofiBook(1002);
  assert.is(h.dOfi(0, MD_CANCEL, BID, 1000, 100), -100, 'best bid emptied, bid moves down: - the old bid queue');
  h = ofiBook(1002);
  assert.is(h.dOfi(0, MD_TRADE, ASK, 1002, 100), 100, 'best ask traded through, ask moves up: + the old ask queue');
  // a price-level move that keeps the best: only the best counts
  h = ofiBook(1002);
  assert.is(h.dOfi(0, MD_TRADE, BID, 1000, 100), -100);
  assert.is(h.fx.mid, (999 + 1002) / 2);
});

test('OFI: exponential time decay and depth normalisation', () => {
  const h = ofiBook();
  h.add(0, BID, 1000, 20); // ofi 20; best depth now (120 + 100) / 2 = 110
  assert.is(h.fx.ofi, 20);
  h.add(S, BID, 990, 1); // deep: no OFI, but 1 s of decay (tau 1 s)
  close(h.fx.ofi, 20 * Math.exp(-1), 1e-12);
  close(h.fx.ofi, 7.357588823, 1e-8);
  // average depth: 100 -> 110 with tau 10 s over 1 s: 100 + (1 - e^-0.1) * 10
  close(h.fx.depthAvg, 100 + (1 - Math.exp(-0.1)) * 10, 1e-9);
  close(h.fx.depthAvg, 100.95162582, 1e-8);
  close(h.fx.ofiNorm, (20 * Math.exp(-1)) / (100 + (1 - Math.exp(-0.1)) * 10), 1e-12);
  const o = h.fx.ofi;
  h.add(S, BID, 990, 1); // same timestamp: no decay at all
  assert.is(h.fx.ofi, o);
  h.add(11 * S, BID, 990, 1);
  close(h.fx.ofi, 20 * Math.exp(-11), 1e-12);
  // a timestamp going backwards is not a negative dt: no growth
  const o2 = h.fx.ofi;
  h.add(10 * S, BID, 990, 1);
  assert.is(h.fx.ofi, o2);
  // a custom time constant
  const h2 = new Harness({ ofiTauNs: 0.5 * S });
  h2.add(0, BID, 1000, 100);
  h2.add(0, ASK, 1001, 100);
  h2.add(0, BID, 1000, 20);
  h2.add(S, BID, 990, 1);
  close(h2.fx.ofi, 20 * Math.exp(-2), 1e-12);
});

test('trade-flow imbalance with the same decay', () => {
  const h = ofiBook();
  const fx = h.fx;
  assert.is(fx.tradeImbalance, 0, 'no trades yet');
  h.trade(0, ASK, 1001, 10); // resting on the ask: a buy
  assert.is(fx.tradeImbalance, 1);
  h.trade(0, BID, 1000, 5); // a sell
  close(fx.tradeImbalance, 5 / 15, 1e-15);
  assert.is(fx.buyVolume, 10);
  assert.is(fx.sellVolume, 5);
  h.trade(S, BID, 1000, 10);
  // buys 10/e, sells 5/e + 10: (3.6788 - 11.8394) / 15.5182
  const b = 10 * Math.exp(-1),
    s = 5 * Math.exp(-1) + 10;
  close(fx.tradeImbalance, (b - s) / (b + s), 1e-12);
  close(fx.tradeImbalance, -0.525873, 1e-6);
  assert.is(fx.values[F_TRADE_IMB], fx.tradeImbalance);
  h.add(S, BID, 999, 5); // not a trade: unchanged
  close(fx.tradeImbalance, (b - s) / (b + s), 1e-12);
  // long after, one small buy dominates the decayed history
  h.trade(60 * S, ASK, 1001, 1);
  assert.ok(fx.tradeImbalance > 0.999999, `${fx.tradeImbalance}`);
});

test('VPIN over equal-volume buckets', () => {
  const h = new Harness({ vpinBucketVolume: 10, vpinBuckets: 3 });
  h.add(0, BID, 1000, 100_000);
  h.add(0, ASK, 1001, 100_000);
  const fx = h.fx;
  const buy = (q: number) => h.trade(0, ASK, 1001, q);
  const sell = (q: number) => h.trade(0, BID, 1000, q);
  buy(9);
  assert.is(fx.vpin, 0, 'no full bucket yet');
  assert.is(fx.vpinFilled, 0);
  buy(1); // bucket 1: 10 buy -> 1
  assert.is(fx.vpinFilled, 1);
  assert.is(fx.vpin, 1);
  sell(4);
  buy(6); // bucket 2: |6 - 4| / 10 = 0.2
  close(fx.vpin, (1 + 0.2) / 2, 1e-15);
  buy(5);
  sell(5); // bucket 3: 0
  close(fx.vpin, (1 + 0.2 + 0) / 3, 1e-15);
  sell(7);
  buy(3); // bucket 4: 0.4; window (0.2, 0, 0.4)
  assert.is(fx.vpinFilled, 3);
  close(fx.vpin, 0.2, 1e-15);
  buy(25); // two full buy buckets (1, 1) and 5 buy left over; window (0.4, 1, 1)
  close(fx.vpin, 2.4 / 3, 1e-15);
  sell(8); // 5 sell close the bucket (5/5 -> 0); 3 sell carried; window (1, 1, 0)
  close(fx.vpin, 2 / 3, 1e-15);
  buy(7); // bucket (7 buy, 3 sell) -> 0.4; window (1, 0, 0.4)
  close(fx.vpin, 1.4 / 3, 1e-15);
  assert.is(fx.values[F_VPIN], fx.vpin);
  // book events do not move VPIN
  h.add(0, BID, 999, 50);
  close(fx.vpin, 1.4 / 3, 1e-15);
});

test('volatility responds to mid changes and decays to the floor', () => {
  const h = new Harness({ volHorizonNs: 10 * S, volInit: 1, volFloor: 0.05 });
  const fx = h.fx;
  h.add(0, BID, 1000, 50);
  h.add(0, ASK, 1001, 10);
  h.add(0, ASK, 1002, 10);
  h.add(0, ASK, 1004, 10);
  // prior Q = volInit^2 * 10 s = 10 tick^2; no mid change yet
  assert.is(fx.volatility, 1);
  h.cancel(0, ASK, 1001, 10); // mid 1000.5 -> 1001: Q = 10 + 0.25
  close(fx.volatility, Math.sqrt(10.25 / 10), 1e-12);
  h.add(10 * S, BID, 990, 1); // one horizon later, no change: Q = 10.25 / e
  const q = 10.25 * Math.exp(-1);
  close(fx.volatility, Math.sqrt(q / 10), 1e-12);
  close(fx.volatility, 0.614065, 1e-6);
  h.trade(10 * S, ASK, 1002, 10); // ask 1002 -> 1004: mid 1001 -> 1002, Q += 1
  close(fx.volatility, Math.sqrt((q + 1) / 10), 1e-12);
  assert.ok(fx.volatility > 0.69);
  assert.is(fx.values[F_VOL], fx.volatility);
  // bigger moves, bigger volatility: a 3-tick jump adds 9 tick^2
  const v1 = fx.volatility;
  h.add(10 * S, BID, 1003, 5); // mid 1002 -> 1003.5
  close(fx.volatility, Math.sqrt((q + 1 + 2.25) / 10), 1e-12);
  assert.ok(fx.volatility > v1);
  // quiet for a long time: decays to the floor, never below
  h.add(20 * S, BID, 990, 1);
  assert.ok(fx.volatility < Math.sqrt((q + 3.25) / 10), 'decays');
  h.add(1000 * S, BID, 990, 1);
  assert.is(fx.volatility, 0.05);
});

test('momentum: mid minus its time-weighted EWMA', () => {
  const h = new Harness({ momentumTauNs: 5 * S });
  const fx = h.fx;
  h.add(0, BID, 1000, 50);
  h.add(0, ASK, 1001, 10);
  h.add(0, ASK, 1002, 10);
  assert.is(fx.momentum, 0);
  h.cancel(0, ASK, 1001, 10); // mid 1000.5 -> 1001 at once: EWMA still 1000.5
  assert.is(fx.momentum, 0.5);
  h.add(5 * S, BID, 990, 1); // one time constant later: 0.5 e^-1 left
  close(fx.momentum, 0.5 * Math.exp(-1), 1e-9);
  close(fx.momentum, 0.18394, 1e-5);
  h.cancel(5 * S, BID, 1000, 50); // bid empties, next bid 990: mid 996 -> strongly negative
  close(fx.momentum, 996 - (1001 - 0.5 * Math.exp(-1)), 1e-9);
  assert.is(fx.values[F_MOMENTUM], fx.momentum);
  h.add(500 * S, BID, 989, 1);
  close(fx.momentum, 0, 1e-9);
});

/**
 * An allocation-free random L2 feed built on the book it feeds: adds within a band around a
 * wandering centre, never through the other side; cancels and trades near the touch; time
 * steps of 0-2 ms, a third of events sharing the previous timestamp.
 */
class Flow {
  ts = 0;
  private centre: number;
  constructor(
    private readonly rng: Rng,
    private readonly book: DenseBook,
    private readonly rec: Float64Array,
    private readonly off: number,
    base: number,
  ) {
    this.centre = base;
  }
  private put(kind: number, side: number, price: number, qty: number): void {
    const r = this.rec,
      o = this.off;
    r[o + EV_TS] = this.ts;
    r[o + EV_KIND] = kind;
    r[o + EV_SIDE] = side;
    r[o + EV_PRICE] = price;
    r[o + EV_QTY] = qty;
  }
  // Only rng.int(): its small-integer result needs no boxing, whereas a double returned by a
  // call V8 does not inline (rng.next() from this large method) is a HeapNumber allocation,
  // which would be charged to the code under test.
  next(): void {
    const rng = this.rng,
      b = this.book;
    if (rng.int(3) !== 0) this.ts += 1 + rng.int(2_000_000);
    if (rng.int(100) === 0) this.centre += rng.int(2) === 0 ? -1 : 1;
    const bb = b.bestBid,
      ba = b.bestAsk;
    const r = rng.int(100);
    if (ba !== NO_PRICE && ba < this.centre && r < 30) return this.put(MD_TRADE, ASK, ba, b.bestAskSize);
    if (bb !== NO_PRICE && bb > this.centre + 1 && r < 30) return this.put(MD_TRADE, BID, bb, b.bestBidSize);
    const side = rng.int(2);
    const best = side === BID ? bb : ba;
    if (r < 50 || best === NO_PRICE) {
      let k = 0; // geometric, mean 3
      while (k < 20 && rng.int(4) !== 0) k++;
      let p = side === BID ? this.centre - k : this.centre + 1 + k;
      if (side === BID && ba !== NO_PRICE && p >= ba) p = ba - 1;
      if (side === ASK && bb !== NO_PRICE && p <= bb) p = bb + 1;
      return this.put(MD_ADD, side, p, 1 + rng.int(100));
    }
    if (r < 85) {
      const p = side === BID ? best - rng.int(6) : best + rng.int(6);
      const sz = b.size(side, p);
      return this.put(MD_CANCEL, side, p, sz === 0 ? 1 : rng.int(5) === 0 ? sz : 1 + rng.int(sz));
    }
    const sz = side === BID ? b.bestBidSize : b.bestAskSize;
    this.put(MD_TRADE, side, best, Math.min(sz, 1 + rng.int(8)));
  }
}

function step(flow: Flow, book: DenseBook, fx: FeatureExtractor, rec: Float64Array, off: number): void {
  flow.next();
  book.apply(rec[off + EV_KIND], rec[off + EV_SIDE], rec[off + EV_PRICE], rec[off + EV_QTY]);
  fx.onEvent(book.bestBid, book.bestAsk, book, rec, off);
}

test('random feed: L5 imbalance equals a full recomputation, values stay in range', () => {
  const book = new DenseBook(4096);
  const fx = new FeatureExtractor({ vpinBucketVolume: 200 });
  const rec = new Float64Array(EV_STRIDE);
  const flow = new Flow(new Rng(99), book, rec, 0, 20_000);
  let checked = 0,
    trades = 0;
  for (let i = 0; i < 200_000; i++) {
    step(flow, book, fx, rec, 0);
    if (rec[EV_KIND] === MD_TRADE) trades++;
    if (!fx.twoSided) continue;
    let wb = 0,
      wa = 0;
    for (let k = 0; k < 5; k++) {
      wb += Math.exp(-k / 2) * book.size(BID, book.bestBid - k);
      wa += Math.exp(-k / 2) * book.size(ASK, book.bestAsk + k);
    }
    const want = (wb - wa) / (wb + wa);
    if (Math.abs(fx.imbalanceL5 - want) > 1e-9) assert.unreachable(`event ${i}: imbalanceL5 ${fx.imbalanceL5} != ${want}`);
    if (fx.mid !== book.mid() || fx.spread !== book.spread()) assert.unreachable(`event ${i}: mid/spread`);
    const v = fx.values;
    for (let k = 0; k < FEATURE_COUNT; k++) if (!Number.isFinite(v[k])) assert.unreachable(`event ${i}: ${FEATURE_NAMES[k]} = ${v[k]}`);
    if (Math.abs(v[F_IMB_L1]) > 1 || Math.abs(v[F_TRADE_IMB]) > 1 || v[F_VPIN] < 0 || v[F_VPIN] > 1) assert.unreachable(`event ${i}: out of range`);
    if (v[F_VOL] < fx.opts.volFloor) assert.unreachable(`event ${i}: volatility under the floor`);
    if (Math.abs(v[F_MICRO_OFFSET]) > v[F_SPREAD] / 2) assert.unreachable(`event ${i}: microprice outside the spread`);
    checked++;
  }
  assert.ok(checked > 190_000, `${checked} events checked`);
  assert.ok(trades > 10_000, `${trades} trades`);
  assert.ok(fx.vpinFilled === 50, 'VPIN window filled');
  assert.ok(fx.vpin > 0 && fx.vpin < 1);
  assert.ok(book.bestBidSize > 0 && fx.depthAvg > 20, `average best depth ${fx.depthAvg}`);
});

test('random feed: the volatility and momentum, kept as of the last mid change, equal an eager decay at every event', () => {
  // The reference decays everything at every event, as the definitions read; the extractor
  // decays Q and mid - EWMA over the whole interval since the last mid change. Both are the
  // same function of the feed; only rounding differs (exp(-a) exp(-b) vs exp(-(a + b))).
  const book = new DenseBook(4096);
  const fx = new FeatureExtractor();
  const o = fx.opts;
  const hs = o.volHorizonNs / S;
  const rec = new Float64Array(EV_STRIDE);
  const flow = new Flow(new Rng(7), book, rec, 0, 20_000);
  let q = o.volInit * o.volInit * hs,
    ema = 0,
    mid = 0,
    last = NaN,
    ready = false,
    moves = 0,
    worstVol = 0,
    worstMom = 0;
  for (let i = 0; i < 200_000; i++) {
    step(flow, book, fx, rec, 0);
    const ts = rec[EV_TS];
    if (last === last && ts > last) {
      q *= Math.exp(-(ts - last) / o.volHorizonNs);
      if (ready) ema += (1 - Math.exp(-(ts - last) / o.momentumTauNs)) * (mid - ema);
    }
    if (!(ts <= last)) last = ts;
    if (!fx.twoSided) continue;
    const m = (book.bestBid + book.bestAsk) / 2;
    if (!ready) {
      ready = true;
      ema = m;
    } else if (m !== mid) {
      q += (m - mid) * (m - mid);
      moves++;
    }
    mid = m;
    const vol = Math.sqrt(Math.max(q / hs, o.volFloor * o.volFloor));
    worstVol = Math.max(worstVol, Math.abs(fx.volatility - vol) / vol);
    worstMom = Math.max(worstMom, Math.abs(fx.momentum - (mid - ema)));
  }
  assert.ok(moves > 5_000, `${moves} mid changes`);
  assert.ok(worstVol < 1e-12, `volatility off by ${worstVol} (relative)`);
  assert.ok(worstMom < 1e-9, `momentum off by ${worstMom} ticks`);
});

test('volatilityStandInto: up to its time the sum stays at or above the band, and not much past it', () => {
  // What the engine's standing quotes rely on: while volatilityStands holds, the sum is in
  // [lo, the sum at the requote]; it stops holding at the next mid change or soon after the
  // decayed sum falls below lo.
  const book = new DenseBook(4096);
  const fx = new FeatureExtractor({}, 'volatility');
  const rec = new Float64Array(EV_STRIDE);
  const flow = new Flow(new Rng(11), book, rec, 0, 20_000);
  const rng = new Rng(12);
  const at = new Float64Array(4); // [lo, the sum at the requote, moves, until]
  const sum = new Float64Array(1);
  let bands = 0,
    heldEvents = 0,
    expired = 0,
    endedByTime = 0,
    moves = 0,
    movesAtBand = 0,
    mid = fx.mid;
  for (let i = 0; i < 300_000; i++) {
    step(flow, book, fx, rec, 0);
    if (fx.mid !== mid) moves++;
    mid = fx.mid;
    fx.writeVolatilitySum(sum, 0);
    if (bands > 0 && fx.volatilityStands(at, 2)) {
      heldEvents++;
      if (!(sum[0] >= at[0] && sum[0] <= at[1])) assert.unreachable(`event ${i}: sum ${sum[0]} outside [${at[0]}, ${at[1]}] while standing`);
      continue;
    }
    if (bands > 0 && moves === movesAtBand) {
      // no mid change: it ended by time, so the sum is now below lo (or the time is just past a
      // bound taken 1e-9 of a horizon early)
      endedByTime++;
      if (sum[0] >= at[0] * (1 + 1e-6)) assert.unreachable(`event ${i}: stopped standing with the sum ${sum[0]} still above ${at[0]}`);
    }
    if (bands > 0) expired++;
    // a new band from the sum now: the sum alone, or down to a random fraction of it
    at[1] = sum[0];
    at[0] = rng.int(4) === 0 ? sum[0] : sum[0] * (0.9 + rng.int(1000) / 10_000);
    fx.volatilityStandInto(at, 0, 2);
    movesAtBand = moves;
    bands++;
  }
  assert.ok(
    bands > 10_000 && heldEvents > 100_000 && endedByTime > 1_000,
    `${bands} bands, ${heldEvents} events standing, ${expired} ended, ${endedByTime} by time`,
  );
});

test('the vector does not depend on the price level', () => {
  const run = (base: number): Float64Array[] => {
    const book = new DenseBook(4096);
    const fx = new FeatureExtractor();
    const rec = new Float64Array(EV_STRIDE);
    const flow = new Flow(new Rng(5), book, rec, 0, base);
    const out: Float64Array[] = [];
    for (let i = 0; i < 20_000; i++) {
      step(flow, book, fx, rec, 0);
      if (i % 100 === 0) out.push(fx.values.slice());
    }
    return out;
  };
  const a = run(4_000),
    b = run(24_000);
  assert.is(a.length, b.length);
  for (let i = 0; i < a.length; i++) {
    for (let k = 0; k < FEATURE_COUNT; k++) close(a[i][k], b[i][k], 1e-9, `sample ${i} ${FEATURE_NAMES[k]}`);
  }
});

test('reset() returns to the initial state; a replay gives the same vectors', () => {
  const fresh = new FeatureExtractor({ vpinBucketVolume: 50 });
  const fx = new FeatureExtractor({ vpinBucketVolume: 50 });
  const runInto = (f: FeatureExtractor): number[] => {
    const book = new DenseBook(4096);
    const rec = new Float64Array(EV_STRIDE);
    const flow = new Flow(new Rng(42), book, rec, 0, 20_000);
    for (let i = 0; i < 30_000; i++) step(flow, book, f, rec, 0);
    return [...f.values];
  };
  const first = runInto(fx);
  assert.ok(fx.vpinFilled > 0 && fx.ofi !== 0 && fx.ready);
  fx.reset();
  const snap = (f: FeatureExtractor) => JSON.stringify({ ...f, opts: null });
  assert.is(snap(fx), snap(fresh), 'all public state as new');
  assert.equal([...fx.values], [...fresh.values]);
  const second = runInto(fx);
  assert.equal(second, first);
});

let sink: unknown = null;

(UNDER_COVERAGE ? test.skip : test)('1M events through book + extractor allocate nothing', async () => {
  const book = new DenseBook(4096);
  const fx = new FeatureExtractor();
  const rec = new Float64Array(EV_STRIDE * 8);
  const off = EV_STRIDE * 3;
  const flow = new Flow(new Rng(2024), book, rec, off, 20_000);
  // The checksum goes to a typed array: a double kept in a JS variable across the loop may
  // be boxed per iteration by V8 (a captured `let` always is), charging the test's own
  // allocation to the code under test.
  const check = new Float64Array(1);
  const loop = (n: number): void => {
    for (let i = 0; i < n; i++) {
      step(flow, book, fx, rec, off);
      check[0] += fx.values[F_IMB_L1];
    }
  };
  // Warm up this very function until V8 has optimised it: until then its iterations run in
  // the interpreter, which boxes every double it computes.
  for (let k = 0; k < 8; k++) loop(40_000);
  check[0] = 0;
  const m = await measureAllocation(() => loop(1_000_000));
  assert.ok(Number.isFinite(check[0]) && check[0] !== 0, 'the loop did real work');
  assert.ok(fx.events === 1_320_000);
  assert.is(m.gcs, 0, `${m.gcs} garbage collections during the loop`);
  assert.ok(m.newSpaceGrowth < 1 << 20, `new space grew ${m.newSpaceGrowth} bytes`);
  assert.ok(m.heapGrowth < 1 << 20, `heap grew ${m.heapGrowth} bytes`);

  // The detector is not blind: the same loop allocating one small array per event trips it.
  const a = await measureAllocation(() => {
    for (let i = 0; i < 1_000_000; i++) {
      step(flow, book, fx, rec, off);
      sink = [fx.mid, fx.spread];
    }
  });
  assert.ok(a.gcs > 0 || a.newSpaceGrowth > 1 << 20, `allocating loop: ${JSON.stringify(a)}`);
  assert.ok(sink !== null);
});

test.run();
