// DenseBook against a naive Map-based reference book: a million seeded random updates (adds,
// cancels, trades, touch levels emptying, the price trending far enough that the ring index
// wraps many times), compared after every update; plus the edge cases one by one.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ASK, BID, MD_ADD, MD_CANCEL, MD_TRADE } from '../../../src/core/events.ts';
import { Rng } from '../../../src/core/rng.ts';
import { DenseBook, NO_PRICE } from '../../../src/book/dense-book.ts';

const LEVELS = 15;

/**
 * The reference: one Map price -> size per side, bests found by looking at every key.
 * `half` = null models an unbounded book. With a number it models the documented window of
 * the dense book: levels are kept only while within `half - 1` ticks of the anchor, which
 * moves to a best price that changes to more than half/2 ticks from it; an update farther
 * than `half - 1` from the anchor is counted and ignored; the anchor is forgotten when the
 * book is empty. The mechanism (Maps, full scans) shares nothing with the ring arrays.
 */
class RefBook {
  readonly bids = new Map<number, number>();
  readonly asks = new Map<number, number>();
  bestBid = NO_PRICE;
  bestAsk = NO_PRICE;
  anchor = NO_PRICE;
  outOfRange = 0;
  /** Levels dropped because the window moved away from them. */
  evicted = 0;
  constructor(readonly half: number | null) {}

  apply(kind: number, side: number, price: number, qty: number): void {
    if (this.half !== null) {
      if (this.anchor === NO_PRICE) this.anchor = price;
      else if (Math.abs(price - this.anchor) >= this.half) {
        this.outOfRange++;
        return;
      }
    }
    const m = side === BID ? this.bids : this.asks;
    const after = Math.max(0, (m.get(price) ?? 0) + (kind === MD_ADD ? qty : -qty));
    if (after > 0) m.set(price, after);
    else m.delete(price);
    const before = side === BID ? this.bestBid : this.bestAsk;
    this.recomputeBests();
    const now = side === BID ? this.bestBid : this.bestAsk;
    if (this.half !== null) {
      if (now !== before && now !== NO_PRICE && Math.abs(now - this.anchor) > this.half / 2) {
        this.anchor = now;
        for (const book of [this.bids, this.asks]) {
          for (const p of [...book.keys()])
            if (Math.abs(p - this.anchor) >= this.half) {
              book.delete(p);
              this.evicted++;
            }
        }
        this.recomputeBests();
      }
      if (this.bids.size === 0 && this.asks.size === 0) this.anchor = NO_PRICE;
    }
  }

  private recomputeBests(): void {
    let bb = NO_PRICE;
    for (const p of this.bids.keys()) if (bb === NO_PRICE || p > bb) bb = p;
    let ba = NO_PRICE;
    for (const p of this.asks.keys()) if (ba === NO_PRICE || p < ba) ba = p;
    this.bestBid = bb;
    this.bestAsk = ba;
  }

  size(side: number, price: number): number {
    return (side === BID ? this.bids : this.asks).get(price) ?? 0;
  }

  /** Best `n` levels of a side: walks tick by tick from the best until it has them all. */
  top(side: number, n: number, prices: number[], sizes: number[]): number {
    const m = side === BID ? this.bids : this.asks;
    const best = side === BID ? this.bestBid : this.bestAsk;
    if (best === NO_PRICE) return 0;
    const want = Math.min(n, m.size);
    let count = 0;
    for (let p = best; count < want; p += side === BID ? -1 : 1) {
      const s = m.get(p);
      if (s !== undefined) {
        prices[count] = p;
        sizes[count] = s;
        count++;
      }
    }
    return count;
  }
}

/**
 * Random L2 feed around a trending centre. Adds land within `band` ticks of the centre and
 * never at or through the other side's best (so the book stays uncrossed, as a real feed);
 * when the touch lags the centre, the lagging side's best is worn away by trades and cancels,
 * so the touch follows the centre. With `trimBand`, levels leaving the band are cancelled
 * (participants pulling far orders); without it they are left behind, far from the price.
 */
class Feed {
  centre: number;
  dir = 1;
  kind = 0;
  side = 0;
  price = 0;
  qty = 0;
  private pending: number[] = [];
  private readonly tmpP: number[] = [];
  private readonly tmpS: number[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly ref: RefBook,
    start: number,
    private readonly band: number,
    private readonly trimBand: boolean,
  ) {
    this.centre = start;
  }

  private emit(kind: number, side: number, price: number, qty: number): void {
    this.kind = kind;
    this.side = side;
    this.price = price;
    this.qty = qty;
  }

  /** Price of the k-th best level of a side (0 = the best), or NO_PRICE when it has fewer. */
  private level(side: number, k: number): number {
    return this.ref.top(side, k + 1, this.tmpP, this.tmpS) === k + 1 ? this.tmpP[k] : NO_PRICE;
  }

  next(): void {
    const rng = this.rng;
    const ref = this.ref;
    if (this.pending.length > 0) {
      const [side, price] = this.pending.splice(0, 2);
      this.emit(MD_CANCEL, side, price, ref.size(side, price));
      return;
    }
    if (rng.next() < 1e-4) this.dir = -this.dir;
    if (rng.next() < 0.02) {
      const leaving = this.dir > 0 ? this.centre - this.band : this.centre + this.band;
      this.centre += this.dir;
      if (this.trimBand) {
        if (ref.size(BID, leaving) > 0) this.pending.push(BID, leaving);
        if (ref.size(ASK, leaving) > 0) this.pending.push(ASK, leaving);
      }
    }
    const bb = ref.bestBid;
    const ba = ref.bestAsk;
    // The touch lags the centre: wear the lagging side down.
    if (ba !== NO_PRICE && ba < this.centre - 1 && rng.next() < 0.5) return this.wear(ASK, ba);
    if (bb !== NO_PRICE && bb > this.centre + 1 && rng.next() < 0.5) return this.wear(BID, bb);
    const r = rng.next();
    if (r < 0.5) {
      const side = rng.int(2);
      return this.add(side, Math.min(this.band, Math.floor(rng.exp() * 6)));
    }
    if (r < 0.8) {
      const side = rng.int(2);
      const u = rng.next();
      if (u < 0.02) {
        // cancel at a price with nothing resting: a no-op
        const price = side === BID ? this.centre - this.band - 2 : this.centre + this.band + 2;
        if (ref.size(side, price) === 0) return this.emit(MD_CANCEL, side, price, 1 + rng.int(5));
      }
      const p = this.level(side, rng.int(8));
      if (p === NO_PRICE) return this.wear(side, side === BID ? bb : ba);
      const s = ref.size(side, p);
      let qty: number;
      if (u < 0.04)
        qty = s + 1 + rng.int(5); // more than rests: clamps at zero
      else if (u < 0.35) qty = s;
      else qty = 1 + rng.int(s);
      return this.emit(MD_CANCEL, side, p, qty);
    }
    const side = rng.int(2);
    const best = side === BID ? bb : ba;
    if (best === NO_PRICE) return this.add(side, 0);
    return this.wear(side, best);
  }

  /** An add `k` ticks from the centre on the side's own half, never at or through the other side. */
  private add(side: number, k: number): void {
    const bb = this.ref.bestBid;
    const ba = this.ref.bestAsk;
    let price = side === BID ? this.centre - k : this.centre + 1 + k;
    if (side === BID && ba !== NO_PRICE && price >= ba) price = ba - 1;
    if (side === ASK && bb !== NO_PRICE && price <= bb) price = bb + 1;
    if (Math.abs(price - this.centre) > this.band) return this.wear(side, side === BID ? bb : ba);
    this.emit(MD_ADD, side, price, 1 + this.rng.int(40));
  }

  /** A trade (70 %) or cancel at the best of a side: all of it 30 % of the time. */
  private wear(side: number, best: number): void {
    if (best === NO_PRICE) return this.emit(MD_CANCEL, side, this.centre, 1);
    const s = this.ref.size(side, best);
    const qty = this.rng.next() < 0.3 ? s : 1 + this.rng.int(Math.min(s, 10));
    this.emit(this.rng.next() < 0.7 ? MD_TRADE : MD_CANCEL, side, best, qty);
  }
}

interface RunStats {
  updates: number;
  compared: number;
  path: number; // total ticks travelled by the centre
  lowBid: number;
  highBid: number;
  touchEmptied: number; // updates that emptied the best level of a side
  trades: number;
  clamped: number; // cancels of more than rested
  noops: number; // cancels where nothing rested
  outOfRange: number;
  evicted: number;
  maxBidLevels: number;
}

/**
 * Drives `n` feed updates into a DenseBook and the reference and compares them after every
 * update for the first `everyUntil` updates, then after every `thenEvery`-th.
 */
function run(opts: {
  seed: number;
  n: number;
  capacity: number;
  band: number;
  trim: boolean;
  windowedRef: boolean;
  everyUntil: number;
  thenEvery: number;
}): RunStats {
  const rng = new Rng(opts.seed);
  const book = new DenseBook(opts.capacity);
  const ref = new RefBook(opts.windowedRef ? opts.capacity >> 1 : null);
  const start = 20_000;
  const feed = new Feed(rng, ref, start, opts.band, opts.trim);
  const dp = new Int32Array(LEVELS),
    ds = new Int32Array(LEVELS);
  const rp: number[] = [],
    rs: number[] = [];
  const st: RunStats = {
    updates: 0,
    compared: 0,
    path: 0,
    lowBid: Infinity,
    highBid: -Infinity,
    touchEmptied: 0,
    trades: 0,
    clamped: 0,
    noops: 0,
    outOfRange: 0,
    evicted: 0,
    maxBidLevels: 0,
  };
  const fail = (i: number, what: string, got: unknown, want: unknown): never => {
    throw new assert.Assertion({
      message: `update ${i} (kind ${feed.kind} side ${feed.side} price ${feed.price} qty ${feed.qty}): ${what}: dense ${got} != reference ${want}`,
      operator: 'equal',
      actual: got,
      expects: want,
    });
  };
  let lastCentre = feed.centre;
  for (let i = 0; i < opts.n; i++) {
    feed.next();
    const { kind, side, price, qty } = feed;
    const rested = ref.size(side, price);
    const wasBest = side === BID ? ref.bestBid : ref.bestAsk;
    if (kind !== MD_ADD && rested === 0) st.noops++;
    else if (kind !== MD_ADD && qty > rested) st.clamped++;
    if (kind === MD_TRADE) st.trades++;
    if (kind !== MD_ADD && price === wasBest && qty >= rested) st.touchEmptied++;
    ref.apply(kind, side, price, qty);
    book.apply(kind, side, price, qty);
    st.updates++;
    st.path += Math.abs(feed.centre - lastCentre);
    lastCentre = feed.centre;
    if (ref.bestBid !== NO_PRICE) {
      if (ref.bestBid < st.lowBid) st.lowBid = ref.bestBid;
      if (ref.bestBid > st.highBid) st.highBid = ref.bestBid;
    }
    if (ref.bestBid !== NO_PRICE && ref.bestAsk !== NO_PRICE && ref.bestBid >= ref.bestAsk) {
      fail(i, 'generator crossed the book', ref.bestBid, ref.bestAsk);
    }
    if (ref.bids.size > st.maxBidLevels) st.maxBidLevels = ref.bids.size;
    if (i >= opts.everyUntil && i % opts.thenEvery !== 0) continue;
    st.compared++;
    if (book.bestBid !== ref.bestBid) fail(i, 'best bid', book.bestBid, ref.bestBid);
    if (book.bestAsk !== ref.bestAsk) fail(i, 'best ask', book.bestAsk, ref.bestAsk);
    if (book.bestBidSize !== ref.size(BID, ref.bestBid)) fail(i, 'best bid size', book.bestBidSize, ref.size(BID, ref.bestBid));
    if (book.bestAskSize !== ref.size(ASK, ref.bestAsk)) fail(i, 'best ask size', book.bestAskSize, ref.size(ASK, ref.bestAsk));
    const two = ref.bestBid !== NO_PRICE && ref.bestAsk !== NO_PRICE;
    if (!Object.is(book.spread(), two ? ref.bestAsk - ref.bestBid : NaN)) fail(i, 'spread', book.spread(), ref.bestAsk - ref.bestBid);
    if (!Object.is(book.mid(), two ? (ref.bestAsk + ref.bestBid) / 2 : NaN)) fail(i, 'mid', book.mid(), (ref.bestAsk + ref.bestBid) / 2);
    if (book.bidLevels !== ref.bids.size) fail(i, 'bid level count', book.bidLevels, ref.bids.size);
    if (book.askLevels !== ref.asks.size) fail(i, 'ask level count', book.askLevels, ref.asks.size);
    if (book.outOfRange !== ref.outOfRange) fail(i, 'outOfRange', book.outOfRange, ref.outOfRange);
    if (book.size(side, price) !== ref.size(side, price)) fail(i, 'size at the updated level', book.size(side, price), ref.size(side, price));
    for (const s of [BID, ASK]) {
      const n = book.levels(s, LEVELS, dp, ds);
      const m = ref.top(s, LEVELS, rp, rs);
      if (n !== m) fail(i, `level count of side ${s}`, n, m);
      for (let k = 0; k < n; k++) {
        if (dp[k] !== rp[k]) fail(i, `price of level ${k} side ${s}`, dp[k], rp[k]);
        if (ds[k] !== rs[k]) fail(i, `size of level ${k} side ${s}`, ds[k], rs[k]);
      }
    }
  }
  st.outOfRange = ref.outOfRange;
  st.evicted = ref.evicted;
  if (process.env.BOOK_STATS) console.log(st);
  return st;
}

test('1M random updates, band kept by the feed: equals an unbounded Map book after every update', () => {
  const capacity = 128;
  const st = run({ seed: 12345, n: 1_000_000, capacity, band: 24, trim: true, windowedRef: false, everyUntil: 1_000_000, thenEvery: 1 });
  assert.is(st.compared, 1_000_000);
  assert.is(st.outOfRange, 0, 'every level stays inside the window, so nothing is ignored');
  // The run covered what it claims to cover.
  assert.ok(st.path > 50 * capacity, `centre travelled ${st.path} ticks`);
  assert.ok(st.highBid - st.lowBid > 4 * capacity, `best bid ranged over ${st.highBid - st.lowBid} ticks`);
  assert.ok(st.touchEmptied > 20_000, `touch emptied ${st.touchEmptied} times`);
  assert.ok(st.trades > 100_000, `${st.trades} trades`);
  assert.ok(st.clamped > 1000 && st.noops > 1000, `clamped ${st.clamped}, no-ops ${st.noops}`);
  assert.ok(st.maxBidLevels >= LEVELS, `at most ${st.maxBidLevels} bid levels`);
});

test('random updates with levels left far behind: stale levels are dropped, never aliased', () => {
  const capacity = 64;
  const st = run({ seed: 777, n: 300_000, capacity, band: 20, trim: false, windowedRef: true, everyUntil: 300_000, thenEvery: 1 });
  assert.is(st.compared, 300_000);
  assert.ok(st.highBid - st.lowBid > 4 * capacity, `best bid ranged over ${st.highBid - st.lowBid} ticks`);
  assert.ok(st.touchEmptied > 5_000, `touch emptied ${st.touchEmptied} times`);
  assert.ok(st.evicted > 1_000, `${st.evicted} levels left behind and dropped`);
  assert.ok(st.outOfRange > 0, `${st.outOfRange} updates outside the window`);
});

test('empty book', () => {
  const b = new DenseBook(64);
  assert.is(b.bestBid, NO_PRICE);
  assert.is(b.bestAsk, NO_PRICE);
  assert.is(b.bestBidSize, 0);
  assert.is(b.bestAskSize, 0);
  assert.not.ok(b.hasTwoSides());
  assert.ok(Number.isNaN(b.mid()));
  assert.ok(Number.isNaN(b.spread()));
  const p = new Int32Array(5),
    s = new Int32Array(5);
  assert.is(b.levels(BID, 5, p, s), 0);
  assert.is(b.levels(ASK, 5, p, s), 0);
  assert.is(b.depth(BID, 5), 0);
  assert.is(b.size(BID, 100), 0);
  // a cancel on an empty book changes nothing
  b.apply(MD_CANCEL, BID, 100, 5);
  assert.is(b.bestBid, NO_PRICE);
  assert.is(b.bidLevels, 0);
  // ...and does not pin the window there: a book far away still builds
  b.apply(MD_ADD, BID, 100_000, 5);
  assert.is(b.outOfRange, 0);
  assert.is(b.bestBid, 100_000);
});

test('one side empty', () => {
  const b = new DenseBook(64);
  b.apply(MD_ADD, BID, 1000, 10);
  b.apply(MD_ADD, BID, 998, 4);
  assert.is(b.bestBid, 1000);
  assert.is(b.bestBidSize, 10);
  assert.is(b.bestAsk, NO_PRICE);
  assert.is(b.bestAskSize, 0);
  assert.not.ok(b.hasTwoSides());
  assert.ok(Number.isNaN(b.mid()));
  assert.ok(Number.isNaN(b.spread()));
  const p = new Int32Array(5),
    s = new Int32Array(5);
  assert.is(b.levels(ASK, 5, p, s), 0);
  assert.is(b.levels(BID, 5, p, s), 2);
  assert.equal([...p.subarray(0, 2)], [1000, 998]);
  assert.equal([...s.subarray(0, 2)], [10, 4]);
  assert.is(b.depth(BID, 3), 14);
  b.apply(MD_ADD, ASK, 1002, 7);
  assert.ok(b.hasTwoSides());
  assert.is(b.mid(), 1001);
  assert.is(b.spread(), 2);
});

test('a level emptied at the touch moves the best to the next non-empty level', () => {
  const b = new DenseBook(64);
  b.apply(MD_ADD, BID, 1000, 10);
  b.apply(MD_ADD, BID, 997, 3);
  b.apply(MD_ADD, BID, 995, 8);
  b.apply(MD_ADD, ASK, 1001, 6);
  b.apply(MD_ADD, ASK, 1004, 2);
  b.apply(MD_CANCEL, BID, 1000, 4); // partial: best stays
  assert.is(b.bestBid, 1000);
  assert.is(b.bestBidSize, 6);
  b.apply(MD_TRADE, BID, 1000, 6); // emptied by a trade: skips the empty 999, 998
  assert.is(b.bestBid, 997);
  assert.is(b.bestBidSize, 3);
  assert.is(b.bidLevels, 2);
  b.apply(MD_CANCEL, BID, 997, 3);
  assert.is(b.bestBid, 995);
  b.apply(MD_CANCEL, BID, 995, 100); // more than rests: clamps, level gone
  assert.is(b.bestBid, NO_PRICE);
  assert.is(b.bidLevels, 0);
  assert.is(b.size(BID, 995), 0);
  b.apply(MD_TRADE, ASK, 1001, 6);
  assert.is(b.bestAsk, 1004);
  assert.ok(Number.isNaN(b.spread()));
  b.apply(MD_ADD, BID, 1003, 1); // new best above the old one
  assert.is(b.bestBid, 1003);
  assert.is(b.spread(), 1);
  b.apply(MD_ADD, ASK, 1003 + 1, 5); // add to an existing level: size only
  assert.is(b.bestAskSize, 7);
  assert.is(b.askLevels, 1);
});

test('an update outside the window is counted in outOfRange and ignored', () => {
  const b = new DenseBook(64); // window: anchor +- 31 ticks; re-centres beyond 16
  b.apply(MD_ADD, BID, 1000, 10); // anchor 1000
  b.apply(MD_ADD, ASK, 1001, 10); // 1 tick away: anchor stays
  b.apply(MD_ADD, ASK, 1031, 5); // 31 above: inside
  assert.is(b.outOfRange, 0);
  assert.is(b.size(ASK, 1031), 5);
  b.apply(MD_ADD, ASK, 1032, 5); // 32 above: outside
  assert.is(b.outOfRange, 1);
  assert.is(b.size(ASK, 1032), 0);
  assert.is(b.askLevels, 2);
  b.apply(MD_ADD, BID, 968, 5); // 32 below: outside
  assert.is(b.outOfRange, 2);
  b.apply(MD_ADD, BID, 969, 5); // 31 below: inside
  assert.is(b.outOfRange, 2);
  assert.is(b.bidLevels, 2);
  // the ignored adds did not land on their aliased slots (1032 & 63 === 968 & 63)
  assert.is(b.asks[1032 & b.mask], 0);
  assert.is(b.bids[968 & b.mask], 0);
  const p = new Int32Array(5),
    s = new Int32Array(5);
  assert.is(b.levels(ASK, 5, p, s), 2);
  assert.equal([...p.subarray(0, 2)], [1001, 1031]);
  assert.is(b.levels(BID, 5, p, s), 2);
  assert.equal([...p.subarray(0, 2)], [1000, 969]);
  // the touch moving more than capacity/4 re-centres the window: 1032 is now accepted
  b.apply(MD_TRADE, ASK, 1001, 10); // best ask 1031, 31 from the anchor: re-centre on it
  assert.is(b.bestAsk, 1031);
  b.apply(MD_ADD, ASK, 1032, 5);
  assert.is(b.outOfRange, 2);
  assert.is(b.size(ASK, 1032), 5);
  assert.is(b.size(BID, 969), 0, 'the 969 bid is outside the new window (1000..1062) and was dropped');
  assert.is(b.bidLevels, 1);
  assert.is(b.bestBid, 1000);
});

test('clear() empties the book, resets counters and lets it rebuild anywhere', () => {
  const b = new DenseBook(64);
  b.apply(MD_ADD, BID, 1000, 10);
  b.apply(MD_ADD, ASK, 1001, 10);
  b.apply(MD_ADD, ASK, 5000, 10); // out of range
  assert.is(b.outOfRange, 1);
  b.clear();
  assert.is(b.bestBid, NO_PRICE);
  assert.is(b.bestAsk, NO_PRICE);
  assert.is(b.bidLevels, 0);
  assert.is(b.askLevels, 0);
  assert.is(b.outOfRange, 0);
  assert.is(b.size(BID, 1000), 0);
  assert.ok(b.bids.every((x) => x === 0) && b.asks.every((x) => x === 0));
  b.apply(MD_ADD, BID, 9000, 3);
  b.apply(MD_ADD, ASK, 9002, 4);
  assert.is(b.outOfRange, 0);
  assert.is(b.mid(), 9001);
});

test('the price trends past the capacity: old levels do not alias onto new prices', () => {
  const b = new DenseBook(64); // window: anchor +- 31 ticks; re-centres when a best is > 16 away
  b.apply(MD_ADD, BID, 1000, 7); // a deep bid that nobody cancels; anchor 1000
  b.apply(MD_ADD, BID, 1010, 5);
  b.apply(MD_ADD, ASK, 1011, 5);
  // walk the touch up one tick at a time to 1070/1071, leaving a 5-lot bid on every tick
  // (1064 is 1000's slot on the ring)
  for (let p = 1011; p <= 1070; p++) {
    b.apply(MD_ADD, BID, p, 5);
    b.apply(MD_TRADE, ASK, p, 5);
    b.apply(MD_ADD, ASK, p + 1, 5);
  }
  assert.is(b.bestBid, 1070);
  assert.is(b.bestAsk, 1071);
  assert.is(b.outOfRange, 0);
  // the anchor re-centred at 1017, 1034, 1051, 1068: window 1037..1099
  assert.is(b.size(BID, 1064), 5);
  assert.is(b.bids[1064 & b.mask], 5, 'the deep 1000 bid is gone from the shared slot');
  assert.is(b.bidLevels, 1070 - 1037 + 1, 'bids 1037..1070 are inside the window, older ones dropped');
  const p = new Int32Array(40),
    s = new Int32Array(40);
  assert.is(b.levels(BID, 40, p, s), 34);
  assert.is(p[33], 1037);
  assert.ok(s.subarray(0, 34).every((x) => x === 5));
  // take the bids out from the top: the best walks down through the slot 1000 used to occupy
  for (let q = 1070; q >= 1065; q--) b.apply(MD_CANCEL, BID, q, 5);
  assert.is(b.bestBid, 1064);
  assert.is(b.bestBidSize, 5);
  b.apply(MD_CANCEL, BID, 1064, 5);
  assert.is(b.bestBid, 1063);
  for (let q = 1063; q >= 1037; q--) b.apply(MD_CANCEL, BID, q, 5);
  assert.is(b.bidLevels, 0);
  assert.is(b.bestBid, NO_PRICE);
  assert.is(b.size(BID, 1000), 0, 'the dropped level does not come back');
  // a fresh add on the slot of a dropped level counts from zero and becomes the best
  b.apply(MD_ADD, BID, 1064, 2);
  assert.is(b.bestBid, 1064);
  assert.is(b.bestBidSize, 2);
  assert.is(b.bidLevels, 1);
});

test('a far jump of the touch (more than the capacity) drops the whole old book', () => {
  const b = new DenseBook(64);
  b.apply(MD_ADD, BID, 1000, 3);
  b.apply(MD_ADD, BID, 990, 4);
  b.apply(MD_ADD, ASK, 1001, 5);
  // within the window a new best 20 above re-centres; repeat until far away
  let top = 1001;
  for (let k = 0; k < 10; k++) {
    b.apply(MD_ADD, ASK, top + 20, 1);
    b.apply(MD_CANCEL, ASK, top, 100);
    top += 20;
  }
  assert.is(b.bestAsk, 1201);
  assert.is(b.bestBid, NO_PRICE, 'the bids were left > 31 ticks behind and dropped');
  assert.is(b.bidLevels, 0);
  assert.is(b.askLevels, 1);
  assert.ok(b.bids.every((x) => x === 0));
});

test.run();
