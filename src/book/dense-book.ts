// Dense L2 order book: level sizes in one typed array (bids, then asks) indexed by price tick. The index is
// `price & mask`, a ring over the tick axis, so the window follows the price without ever
// copying. The window is the capacity - 1 prices within capacity/2 - 1 ticks of the anchor.
// The anchor is re-centred on a best price that changes to more than capacity/4 ticks from
// it, so (while the spread is under capacity/4) the window always holds every level within
// capacity/4 - 1 ticks of its side's best (1023 ticks at the default capacity), and it
// re-centres only every capacity/4 ticks of drift, not on every touch change.
// An update outside the window would alias onto another price; it is ignored and counted in
// `outOfRange`. When the anchor moves, the levels it leaves behind outside the window are
// dropped (their slots now belong to prices on the other edge), and when the book is empty
// the anchor is forgotten, so a book can rebuild at any price.
// No allocation per update (hot-path rule 2): a level change is one array store plus, when the touch empties,
// a short scan to the next non-empty level; a re-centre costs one slot check per tick moved.

import { ASK, BID, MD_ADD, MD_CANCEL, MD_TRADE } from '../core/events.ts';
import { NO_PRICE } from './no-price.ts';

export { NO_PRICE };

/** Mid price in ticks of a touch (may be a half tick); NaN when a side is empty. */
export function touchMid(bestBid: number, bestAsk: number): number {
  return bestBid !== NO_PRICE && bestAsk !== NO_PRICE ? (bestBid + bestAsk) * 0.5 : NaN;
}

/** Size change sign by event kind: MD_ADD +1, MD_CANCEL and MD_TRADE -1 (others 0). */
const KIND_SIGN = new Int32Array(8);
KIND_SIGN[MD_ADD] = 1;
KIND_SIGN[MD_CANCEL] = -1;
KIND_SIGN[MD_TRADE] = -1;

export class DenseBook {
  // Fields set in the constructor are `declare`d: a plain declaration is emitted as a class
  // field, which first holds undefined, and V8 then keeps it as a generic tagged value, checked
  // and untagged on every read in the hot path. Declared, the first store is the number (or the
  // typed array) and the field keeps that representation.
  declare readonly capacity: number;
  declare readonly mask: number;
  /** Both sides in one array, bids in [0, capacity), asks in [capacity, 2 capacity): a level's
   * slot is `side * capacity + (price & mask)`, so a size change needs no branch on the side. */
  declare readonly slots: Int32Array;
  /** Views of `slots`: bids[price & mask], asks[price & mask]. */
  declare readonly bids: Int32Array;
  declare readonly asks: Int32Array;
  bestBid = NO_PRICE;
  bestAsk = NO_PRICE;
  /** Non-empty levels per side; lets a scan stop when a side is empty. */
  bidLevels = 0;
  askLevels = 0;
  /** Updates ignored because they were outside the window. */
  outOfRange = 0;
  private anchor = NO_PRICE;
  declare private readonly halfM1: number; // capacity/2 - 1
  declare private readonly capM2: number; // capacity - 2
  declare private readonly sideShift: number; // log2(capacity): side << sideShift is the side's half of `slots`
  // The sign table on the instance, not read from the module: bundled, a module constant is a
  // mutable variable, and each read of it is a load, a type check and a branch.
  private readonly kindSign = KIND_SIGN;

  constructor(capacityTicks = 4096) {
    if (capacityTicks < 64 || (capacityTicks & (capacityTicks - 1)) !== 0) {
      throw new Error(`book capacity must be a power of two >= 64, got ${capacityTicks}`);
    }
    this.capacity = capacityTicks;
    this.mask = capacityTicks - 1;
    this.halfM1 = (capacityTicks >> 1) - 1;
    this.capM2 = capacityTicks - 2;
    this.sideShift = 31 - Math.clz32(capacityTicks);
    this.slots = new Int32Array(2 * capacityTicks);
    this.bids = this.slots.subarray(0, capacityTicks);
    this.asks = this.slots.subarray(capacityTicks);
  }

  clear(): void {
    this.slots.fill(0);
    this.bestBid = this.bestAsk = this.anchor = NO_PRICE;
    this.bidLevels = this.askLevels = 0;
    this.outOfRange = 0;
  }

  /**
   * Applies one market event: MD_ADD adds `qty`; MD_CANCEL and MD_TRADE remove it. `side` is BID
   * or ASK. Returns the level's size before the change, as size() read it (0 for an update
   * outside the window, which is ignored).
   */
  apply(kind: number, side: number, price: number, qty: number): number {
    // A sign table, not `kind === MD_ADD ? qty : -qty`: adds and cancels alternate almost at
    // random, and a mispredicted branch per event cost more than the table load.
    return this.update(side, price, qty * this.kindSign[kind & 7]);
  }

  /** Changes the size at one level by `delta` (clamped at zero). `side` is BID or ASK. Returns the size before, as apply(). */
  update(side: number, tickPrice: number, delta: number): number {
    // Prices are whole ticks within int32 (NO_PRICE is its least), kept int32 in the fields they
    // reach (bestBid, bestAsk, the anchor; hot-path rule 5).
    const price = tickPrice | 0;
    // In the window iff -half < price - anchor < half: one unsigned compare. An unset anchor
    // (NO_PRICE) lands outside too and is handled on the slow path.
    if ((price - this.anchor + this.halfM1) >>> 0 > this.capM2 && !this.admit(price)) return 0;
    const i = (side << this.sideShift) | (price & this.mask);
    const before = this.slots[i];
    const after = before + delta;
    // Most changes resize a level that stays non-empty: one store, no bookkeeping.
    if (before > 0 && after > 0) this.slots[i] = after;
    else this.emptyOrFill(side, price, i, before, after);
    return before;
  }

  /** update() when a level appears or empties (or a no-op on an empty level). */
  private emptyOrFill(side: number, price: number, i: number, before: number, after: number): void {
    if (after > 0) {
      this.slots[i] = after;
      if (side === BID) {
        this.bidLevels++;
        if (price > this.bestBid) this.setBestBid(price); // NO_PRICE is below every price
      } else {
        this.askLevels++;
        if (price < this.bestAsk || this.bestAsk === NO_PRICE) this.setBestAsk(price);
      }
      return;
    }
    if (before > 0) {
      this.slots[i] = 0;
      if (side === BID) {
        this.bidLevels--;
        if (price === this.bestBid) this.setBestBid(this.bidLevels === 0 ? NO_PRICE : this.scanDown(price - 1));
      } else {
        this.askLevels--;
        if (price === this.bestAsk) this.setBestAsk(this.askLevels === 0 ? NO_PRICE : this.scanUp(price + 1));
      }
    }
    // A book emptied (or a no-op on an empty book) anchors nothing.
    if ((this.bidLevels | this.askLevels) === 0) this.anchor = NO_PRICE;
  }

  /** Slow path of update(): the first price anchors an empty book; anything else is out of range. */
  private admit(price: number): boolean {
    if (this.anchor === NO_PRICE) {
      this.anchor = price;
      return true;
    }
    this.outOfRange++;
    return false;
  }

  private setBestBid(price: number): void {
    this.bestBid = price;
    if (price !== NO_PRICE && (price - this.anchor > this.capacity >> 2 || this.anchor - price > this.capacity >> 2)) this.moveAnchor(price);
  }

  private setBestAsk(price: number): void {
    this.bestAsk = price;
    if (price !== NO_PRICE && (price - this.anchor > this.capacity >> 2 || this.anchor - price > this.capacity >> 2)) this.moveAnchor(price);
  }

  /**
   * Re-anchors the window at `to`, first dropping the levels on the trailing edge that fall
   * outside it: their ring slots are the slots of the new prices on the leading edge, and a
   * stale size there would be read as a level at the new price.
   */
  private moveAnchor(to: number): void {
    const from = this.anchor;
    this.anchor = to;
    const half = this.capacity >> 1;
    let n = to > from ? to - from : from - to;
    if (n > this.capacity) n = this.capacity;
    // prices leaving: from - half + 1 upward when moving up, from + half - 1 downward when moving down
    const step = to > from ? 1 : -1;
    let p = to > from ? from - half + 1 : from + half - 1;
    let droppedBest = false;
    for (let k = 0; k < n; k++, p += step) {
      const i = p & this.mask;
      if (this.bids[i] > 0) {
        this.bids[i] = 0;
        this.bidLevels--;
      }
      if (this.asks[i] > 0) {
        this.asks[i] = 0;
        this.askLevels--;
      }
    }
    // A best can only have been dropped in a book crossed or wider than the window; find the
    // best among what is left (without moving the anchor again).
    if (this.bestBid !== NO_PRICE && (this.bestBid - to >= half || to - this.bestBid >= half)) droppedBest = true;
    if (this.bestAsk !== NO_PRICE && (this.bestAsk - to >= half || to - this.bestAsk >= half)) droppedBest = true;
    if (droppedBest) {
      this.bestBid = this.bidLevels === 0 ? NO_PRICE : this.scanDown(to + half - 1);
      this.bestAsk = this.askLevels === 0 ? NO_PRICE : this.scanUp(to - half + 1);
    }
  }

  // The window holds capacity - 1 prices and every stored level is inside it, so a scan of
  // capacity - 1 ticks from anywhere in it finds the next level if there is one.
  private scanDown(from: number): number {
    const lim = from - this.capacity + 1;
    for (let p = from; p > lim; p--) if (this.bids[p & this.mask] > 0) return p;
    return NO_PRICE;
  }

  private scanUp(from: number): number {
    const lim = from + this.capacity - 1;
    for (let p = from; p < lim; p++) if (this.asks[p & this.mask] > 0) return p;
    return NO_PRICE;
  }

  size(side: number, price: number): number {
    if (price - this.anchor >= this.capacity >> 1 || this.anchor - price >= this.capacity >> 1) return 0;
    // The side as an index, not a branch (the exchange asks at our levels on both sides at random).
    return this.slots[(side << this.sideShift) | (price & this.mask)];
  }

  get bestBidSize(): number {
    return this.bestBid === NO_PRICE ? 0 : this.bids[this.bestBid & this.mask];
  }

  get bestAskSize(): number {
    return this.bestAsk === NO_PRICE ? 0 : this.asks[this.bestAsk & this.mask];
  }

  hasTwoSides(): boolean {
    return this.bestBid !== NO_PRICE && this.bestAsk !== NO_PRICE;
  }

  /** Mid price in ticks (may be a half tick); NaN when a side is empty. */
  mid(): number {
    return touchMid(this.bestBid, this.bestAsk);
  }

  /** Spread in ticks; NaN when a side is empty. */
  spread(): number {
    return this.hasTwoSides() ? this.bestAsk - this.bestBid : NaN;
  }

  /**
   * Writes the best `n` non-empty levels of one side, best first, into the output arrays;
   * returns how many were written.
   */
  levels(side: number, n: number, prices: Int32Array | Float64Array, sizes: Int32Array | Float64Array): number {
    // Every stored level is inside the window (capacity - 1 ticks), so a scan of at most that
    // many ticks finds them all; it stops as soon as it has n or all of the side's levels.
    let count = 0;
    const span = this.capacity - 1;
    if (side === BID) {
      if (this.bestBid === NO_PRICE) return 0;
      const all = this.bidLevels;
      for (let p = this.bestBid, seen = 0; count < n && count < all && seen < span; p--, seen++) {
        const s = this.bids[p & this.mask];
        if (s > 0) {
          prices[count] = p;
          sizes[count] = s;
          count++;
        }
      }
    } else {
      if (this.bestAsk === NO_PRICE) return 0;
      const all = this.askLevels;
      for (let p = this.bestAsk, seen = 0; count < n && count < all && seen < span; p++, seen++) {
        const s = this.asks[p & this.mask];
        if (s > 0) {
          prices[count] = p;
          sizes[count] = s;
          count++;
        }
      }
    }
    return count;
  }

  /** Total size over the best `depth` price ticks of one side (empty ticks count as zero). */
  depth(side: number, ticks: number): number {
    let sum = 0;
    if (side === BID) {
      if (this.bestBid === NO_PRICE) return 0;
      for (let k = 0; k < ticks; k++) sum += this.bids[(this.bestBid - k) & this.mask];
    } else {
      if (this.bestAsk === NO_PRICE) return 0;
      for (let k = 0; k < ticks; k++) sum += this.asks[(this.bestAsk + k) & this.mask];
    }
    return sum;
  }
}

export { BID, ASK };
