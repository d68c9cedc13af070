// MBP-10 records -> the engine's L2 events. Each record carries the top 10 levels per side after
// its event; at every F_LAST record (the end of an exchange event, where Databento says the book
// is consistent) the book becomes exactly those levels: a level that left the top 10 is
// cancelled, a changed one gets the difference as an add or a cancel (all removals of the record
// before its additions, so the book never crosses in between). Depth below the 10th level is
// unknown and kept empty: the book is whatever the levels say, so a file may start anywhere.
// A trade (action T, `side` = the aggressor's) is one MD_TRADE on the resting side at its price,
// capped at the size shown there; it advances queues as on the synthetic feed, and the levels of
// the record that follows settle the book.

import { ASK, BID, MD_ADD, MD_CANCEL, MD_TRADE } from '../../core/events.ts';
import type { EventQueue } from './event-queue.ts';
import { FLAGS } from '../../data/dbn/index.ts';

const F_LAST = FLAGS.F_LAST;

export const MBP_LEVELS = 10;
const T = 0x54;
const SIDE_ASK = 0x41;
const SIDE_BID = 0x42;

export class Mbp10Book {
  private readonly out: EventQueue;
  /** The book's levels per side (BID, ASK), best first. */
  private readonly px = [new Float64Array(MBP_LEVELS), new Float64Array(MBP_LEVELS)];
  private readonly sz = [new Float64Array(MBP_LEVELS), new Float64Array(MBP_LEVELS)];
  private readonly n = new Int32Array(2);
  /** Trades skipped because no size was shown at their price on the resting side. */
  tradesOffBook = 0;

  constructor(out: EventQueue) {
    this.out = out;
  }

  /** Levels on a side now (tests): price and size of level i < levels(side). */
  levels(side: number): number {
    return this.n[side];
  }
  levelPrice(side: number, i: number): number {
    return this.px[side][i];
  }
  levelSize(side: number, i: number): number {
    return this.sz[side][i];
  }

  /**
   * One MBP-10 record, at the output queue's time (EventQueue.ts, set by the adapter: see
   * MboBook.apply): `price` in ticks; the level arrays in ticks and contracts, best first, a NaN
   * price (DBN's UNDEF_PRICE) or zero size ending a side.
   */
  apply(
    action: number,
    side: number,
    price: number,
    size: number,
    flags: number,
    bidPx: Float64Array,
    bidSz: Float64Array,
    askPx: Float64Array,
    askSz: Float64Array,
  ): void {
    if (action === T) this.trade(side, price, size);
    if ((flags & F_LAST) === 0) return;
    this.remove(BID, bidPx, bidSz);
    this.remove(ASK, askPx, askSz);
    this.insert(BID, bidPx, bidSz);
    this.insert(ASK, askPx, askSz);
  }

  /** The levels as they stand, emitted as adds (the window's start after a warm-up whose events were dropped). */
  publish(): void {
    for (let side = BID; side <= ASK; side++) for (let i = 0; i < this.n[side]; i++) this.out.push(MD_ADD, side, this.px[side][i], this.sz[side][i], -1);
  }

  private trade(aggressor: number, price: number, size: number): void {
    let rest: number;
    if (aggressor === SIDE_BID) rest = ASK;
    else if (aggressor === SIDE_ASK) rest = BID;
    else if (this.n[ASK] > 0 && price >= this.px[ASK][0]) rest = ASK;
    else if (this.n[BID] > 0 && price <= this.px[BID][0]) rest = BID;
    else {
      this.tradesOffBook++;
      return;
    }
    const i = this.find(rest, price);
    const shown = i < 0 ? 0 : this.sz[rest][i];
    const q = size < shown ? size : shown;
    if (!(q > 0)) {
      this.tradesOffBook++;
      return;
    }
    this.sz[rest][i] -= q;
    this.out.push(MD_TRADE, rest, price, q, -1);
  }

  /** Cancels what the record no longer shows at each of our levels. */
  private remove(side: number, px: Float64Array, sz: Float64Array): void {
    const m = count(px, sz);
    const cp = this.px[side];
    const cs = this.sz[side];
    for (let i = 0; i < this.n[side]; i++) {
      let want = 0;
      for (let j = 0; j < m; j++) {
        if (px[j] === cp[i]) {
          want = sz[j];
          break;
        }
      }
      if (cs[i] > want) this.out.push(MD_CANCEL, side, cp[i], cs[i] - want, -1);
    }
  }

  /** Adds what the record shows beyond our levels, then takes its levels as ours. */
  private insert(side: number, px: Float64Array, sz: Float64Array): void {
    const m = count(px, sz);
    for (let j = 0; j < m; j++) {
      const i = this.find(side, px[j]);
      const have = i < 0 ? 0 : this.sz[side][i];
      if (sz[j] > have) this.out.push(MD_ADD, side, px[j], sz[j] - have, -1);
    }
    const cp = this.px[side];
    const cs = this.sz[side];
    for (let k = 0; k < m; k++) {
      cp[k] = px[k]; // a loop, not set(subarray()): a subarray is a new object per call
      cs[k] = sz[k];
    }
    this.n[side] = m;
  }

  private find(side: number, price: number): number {
    const p = this.px[side];
    for (let i = 0; i < this.n[side]; i++) if (p[i] === price) return i;
    return -1;
  }
}

/** Levels in use: up to the first undefined price or empty level. */
function count(px: Float64Array, sz: Float64Array): number {
  let m = 0;
  while (m < MBP_LEVELS && px[m] === px[m] && sz[m] > 0) m++;
  return m;
}
