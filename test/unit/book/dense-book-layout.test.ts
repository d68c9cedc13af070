// DenseBook keeps both sides in one array (`slots`), with `bids` and `asks` as views of its two
// halves: the market generator and the feature extractor read `bids[price & mask]` and
// `asks[price & mask]` directly, so those views must always show the book's sizes. And the
// book stays allocation-free on both inputs it gets: float64 fields (the engine's records) and
// int32 fields.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ASK, BID, DenseBook } from '../../../src/book/dense-book.ts';
import { MD_ADD, MD_CANCEL, MD_TRADE } from '../../../src/core/events.ts';
import { measureAllocation } from '../../helpers/allocation.ts';

test('bids and asks are the two halves of one array, indexed by price & mask', () => {
  const b = new DenseBook(64);
  b.apply(MD_ADD, BID, 1000, 5);
  b.apply(MD_ADD, ASK, 1001, 7);
  assert.is(b.slots.length, 128);
  assert.is(b.bids.buffer, b.slots.buffer);
  assert.is(b.asks.buffer, b.slots.buffer);
  assert.is(b.bids.length, 64);
  assert.is(b.asks.length, 64);
  assert.is(b.slots[1000 & b.mask], 5);
  assert.is(b.slots[64 + (1001 & b.mask)], 7);
  assert.is(b.bids[1000 & b.mask], 5);
  assert.is(b.asks[1001 & b.mask], 7);
  assert.is(b.asks[1000 & b.mask], 0, 'a bid at 1000 is not an ask at 1000');
  assert.is(b.bids[1001 & b.mask], 0);
});

test('the views follow every change: resize, empty, trade and clear()', () => {
  const b = new DenseBook(256);
  const seen = (side: number, price: number): number => (side === BID ? b.bids : b.asks)[price & b.mask];
  b.apply(MD_ADD, BID, 5000, 10);
  b.apply(MD_ADD, BID, 4999, 4);
  b.apply(MD_ADD, ASK, 5001, 6);
  b.apply(MD_CANCEL, BID, 5000, 3); // resized, stays non-empty
  assert.is(seen(BID, 5000), 7);
  assert.is(b.bestBid, 5000);
  b.apply(MD_TRADE, BID, 5000, 9); // more than rests: clamped at zero, the touch moves down
  assert.is(seen(BID, 5000), 0);
  assert.is(b.bestBid, 4999);
  assert.is(b.bidLevels, 1);
  b.apply(MD_ADD, ASK, 5001, 1);
  assert.is(seen(ASK, 5001), 7);
  assert.is(b.bestAskSize, 7);
  b.clear();
  assert.ok(b.slots.every((s) => s === 0));
  b.apply(MD_ADD, ASK, 9000, 2); // rebuilds anywhere after clear()
  assert.is(seen(ASK, 9000), 2);
  assert.is(b.size(ASK, 9000), 2);
});

/** A deterministic feed around a wandering centre (adds, cancels and trades on both sides). */
function feed(n: number): { kind: Int32Array; side: Int32Array; price: Int32Array; qty: Int32Array } {
  const kind = new Int32Array(n),
    side = new Int32Array(n),
    price = new Int32Array(n),
    qty = new Int32Array(n);
  let x = 0x9e3779b9,
    centre = 20_000;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const r = x >>> 0;
    if (r % 97 === 0) centre += (r & 2) - 1;
    side[i] = r & 1;
    price[i] = side[i] === BID ? centre - ((r >>> 1) % 20) : centre + 1 + ((r >>> 1) % 20);
    kind[i] = (r >>> 8) % 3 === 0 ? MD_ADD : (r >>> 8) % 3 === 1 ? MD_CANCEL : MD_TRADE;
    if ((r >>> 12) % 4 === 0) kind[i] = MD_ADD;
    qty[i] = 1 + ((r >>> 16) % 5);
  }
  return { kind, side, price, qty };
}

test('1M updates allocate nothing, from int32 and from float64 fields', async () => {
  const n = 1_000_000;
  const f = feed(n);
  const rec = new Float64Array(n * 4);
  for (let i = 0; i < n; i++) [rec[4 * i], rec[4 * i + 1], rec[4 * i + 2], rec[4 * i + 3]] = [f.kind[i], f.side[i], f.price[i], f.qty[i]];
  const ints = new DenseBook(4096),
    doubles = new DenseBook(4096);
  // Each pass starts from an empty book: measureAllocation may run a pass again (a GC left by an
  // earlier test file), and the books are compared after however many passes each had.
  const fromInts = (): void => {
    ints.clear();
    for (let i = 0; i < n; i++) ints.apply(f.kind[i], f.side[i], f.price[i], f.qty[i]);
  };
  const fromDoubles = (): void => {
    doubles.clear();
    for (let o = 0; o < 4 * n; o += 4) doubles.apply(rec[o], rec[o + 1], rec[o + 2], rec[o + 3]);
  };
  fromInts(); // warm-up: optimised code installed before the measured passes
  fromDoubles();
  // Up to 3 attempts: under load the optimised code may arrive late (see measureAllocation).
  const a = await measureAllocation(fromInts, { attempts: 3 });
  const b = await measureAllocation(fromDoubles, { attempts: 3 });
  assert.is(a.gcs, 0, `int32 fields: ${a.gcs} GCs in 1M updates`);
  assert.is(b.gcs, 0, `float64 fields: ${b.gcs} GCs in 1M updates`);
  // Both books saw the same updates, so they agree (and the feed kept both sides non-empty).
  assert.is(ints.bestBid, doubles.bestBid);
  assert.is(ints.bestAsk, doubles.bestAsk);
  assert.ok(ints.hasTwoSides());
  assert.equal(Array.from(ints.slots), Array.from(doubles.slots));
  assert.is(ints.outOfRange, 0);
});

test.run();
