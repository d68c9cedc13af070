// Order book keyed by order id, built from Databento MBO records, turned into the engine's L2
// events (one level change per event) with each touched order's queue priority for l3_fifo.
//
// Rules (Databento's and CME's):
// - A (add): a new order at the back of its level; its priority is the add's emitted index.
// - C (cancel): removes `size` from the order (the whole order when nothing is left).
// - M (modify): a new price, or a larger size, loses priority (cancel + add at the back, as at
//   CME); a smaller size at the same price keeps it (CME keeps priority on a quantity decrease).
// - F (fill): the resting order traded `size`: one MD_TRADE on the order's side and price. A fill
//   does not change the book in DBN: the C or M that follows removes the filled size, so that
//   removal is credited against the fill instead of emitted a second time as a cancel.
// - T (trade print, aggressor side) and N: no book change, nothing emitted (F carries the trade).
// - R (clear): every order is cancelled.
// A C or F of an order never added (a file that starts mid-session without a snapshot) is counted
// and skipped; an M of one is counted and taken as an add (it rests there from now on).
//
// With `perOrder` false (the L2 queue models), consecutive changes of the same kind at the same
// level within one event (up to F_LAST) merge into one L2 event, as a price-level feed reports
// them; with perOrder (l3_fifo) every order change is its own event so each carries its priority.

import { ASK, BID, MD_ADD, MD_CANCEL, MD_TRADE, EV_KIND, EV_PRICE, EV_QTY, EV_SIDE } from '../../core/events.ts';
import { FLAGS } from '../../data/dbn/index.ts';
import type { EventQueue } from './event-queue.ts';
import { OrderIdIndex } from './order-id-index.ts';

const F_LAST = FLAGS.F_LAST;
const A = 0x41;
const C = 0x43;
const M = 0x4d;
const F = 0x46;
const R = 0x52;
const SIDE_ASK = 0x41;
const SIDE_BID = 0x42;

export interface MboCounts {
  /** Cancels and fills of orders never seen, skipped. */
  unknownCancels: number;
  unknownFills: number;
  /** Modifies of orders never seen, taken as adds. */
  unknownModifies: number;
  /** Adds of an id already resting (the old order is replaced). */
  duplicateAdds: number;
}

export class MboBook {
  private readonly out: EventQueue;
  private readonly perOrder: boolean;
  /** Order id -> slot in the column arrays below. */
  private readonly index = new OrderIdIndex();
  private side = new Int8Array(1024);
  private price = new Float64Array(1024); // ticks
  private size = new Float64Array(1024); // size in the book (DBN's view)
  private credit = new Float64Array(1024); // filled, not yet removed by its C/M
  private prio = new Int32Array(1024);
  private idHi = new Int32Array(1024); // the order id's high and low 32 bits
  private idLo = new Int32Array(1024);
  /** When the slot's order was indexed (a count from 1), 0 when the slot is free. */
  private born = new Float64Array(1024);
  private births = 0;
  private free = new Int32Array(1024);
  private freeCount = 0;
  private used = 0;
  /** The last queued event may absorb the next change of the same kind/level (same event). */
  private isOpen = false;
  readonly counts: MboCounts = { unknownCancels: 0, unknownFills: 0, unknownModifies: 0, duplicateAdds: 0 };

  constructor(out: EventQueue, perOrder: boolean) {
    this.out = out;
    this.perOrder = perOrder;
  }

  /** An event (up to F_LAST) is under way: its last queued L2 event may still grow. */
  get open(): boolean {
    return this.isOpen && !this.perOrder;
  }

  /** Resting orders. */
  get orders(): number {
    return this.index.size;
  }

  /** Displayed size at a level, summed over its orders (tests and checks; O(orders)). */
  levelSize(side: number, price: number): number {
    let q = 0;
    for (let s = 0; s < this.used; s++) if (this.born[s] > 0 && this.side[s] === side && this.price[s] === price) q += this.size[s] - this.credit[s];
    return q;
  }

  /**
   * One MBO record, at the output queue's time (EventQueue.ts: the engine's time, ns after the
   * session date's New York midnight, which the adapter sets per record; not an argument: hot-path
   * rule 3). `price` in ticks (ignored where DBN has
   * none), action and side as character codes, the order id as its high and low 32 bits (int32:
   * see order-id-index.ts).
   */
  apply(action: number, sideChar: number, price: number, size: number, idHi: number, idLo: number, flags: number): void {
    const side = sideChar === SIDE_BID ? BID : sideChar === SIDE_ASK ? ASK : -1;
    if (action === A) this.add(side, price, size, idHi, idLo);
    else if (action === C) this.cancel(size, idHi, idLo);
    else if (action === M) this.modify(side, price, size, idHi, idLo);
    else if (action === F) this.fill(size, idHi, idLo);
    else if (action === R) this.clear();
    if ((flags & F_LAST) !== 0) this.isOpen = false;
  }

  private add(side: number, price: number, size: number, hi: number, lo: number): void {
    if (side < 0 || !(size > 0)) return;
    const old = this.index.get(hi, lo);
    if (old >= 0) {
      this.counts.duplicateAdds++;
      this.remove(old, this.size[old] - this.credit[old]);
    }
    const s = this.alloc(hi, lo);
    this.side[s] = side;
    this.price[s] = price;
    this.size[s] = size;
    this.credit[s] = 0;
    this.prio[s] = this.emit(MD_ADD, side, price, size, -1);
  }

  private cancel(size: number, hi: number, lo: number): void {
    const s = this.index.get(hi, lo);
    if (s < 0) {
      this.counts.unknownCancels++;
      return;
    }
    this.reduce(s, size > this.size[s] || !(size > 0) ? this.size[s] : size);
  }

  /** The order's book size drops by `by`: its fill credit absorbs it first, the rest is a cancel. */
  private reduce(s: number, by: number): void {
    const absorbed = by < this.credit[s] ? by : this.credit[s];
    this.credit[s] -= absorbed;
    this.size[s] -= by;
    const q = by - absorbed;
    if (q > 0) this.emit(MD_CANCEL, this.side[s], this.price[s], q, this.prio[s]);
    if (!(this.size[s] > 0)) this.release(s);
  }

  private modify(side: number, price: number, size: number, hi: number, lo: number): void {
    const s = this.index.get(hi, lo);
    if (s < 0) {
      this.counts.unknownModifies++;
      this.add(side, price, size, hi, lo);
      return;
    }
    if (side < 0) side = this.side[s];
    if (price === this.price[s] && side === this.side[s] && size <= this.size[s]) {
      if (size < this.size[s]) this.reduce(s, this.size[s] - size); // keeps priority
      return;
    }
    // A new price or more size: to the back of the (new) level, as a new order.
    const shown = this.size[s] - this.credit[s];
    if (!this.perOrder && price === this.price[s] && side === this.side[s]) {
      // A price-level feed sees only the level grow; the lost priority matters to l3_fifo alone.
      this.credit[s] = 0;
      this.size[s] = size;
      this.prio[s] = this.emit(MD_ADD, side, price, size - shown, -1);
      return;
    }
    this.release(s);
    if (shown > 0) this.emit(MD_CANCEL, this.side[s], this.price[s], shown, this.prio[s]);
    this.add(side, price, size, hi, lo);
  }

  private fill(size: number, hi: number, lo: number): void {
    const s = this.index.get(hi, lo);
    if (s < 0) {
      this.counts.unknownFills++;
      return;
    }
    const shown = this.size[s] - this.credit[s];
    const q = size < shown ? size : shown;
    if (!(q > 0)) return;
    this.credit[s] += q;
    this.emit(MD_TRADE, this.side[s], this.price[s], q, this.prio[s]);
  }

  /**
   * The book as it stands, emitted as adds (the window's start after a warm-up, whose events
   * were dropped): by side and price, each level's orders in queue order, each order's priority
   * now its add's. Call with an empty queue whose emitted count restarted (EventQueue.restart).
   */
  publish(): void {
    const live: number[] = [];
    for (let s = 0; s < this.used; s++) if (this.born[s] > 0 && this.size[s] - this.credit[s] > 0) live.push(s);
    live.sort((a, b) => this.side[a] - this.side[b] || this.price[a] - this.price[b] || this.prio[a] - this.prio[b]);
    this.isOpen = false;
    for (const s of live) {
      this.size[s] -= this.credit[s]; // a fill's pending removal belongs to the dropped events
      this.credit[s] = 0;
      this.prio[s] = this.emit(MD_ADD, this.side[s], this.price[s], this.size[s], -1);
    }
    this.isOpen = false;
  }

  /** Cancels every order, oldest indexed first (the order a Map of the ids would iterate in). */
  private clear(): void {
    const live: number[] = [];
    for (let s = 0; s < this.used; s++) if (this.born[s] > 0) live.push(s);
    live.sort((a, b) => this.born[a] - this.born[b]);
    for (const s of live) this.remove(s, this.size[s] - this.credit[s]);
  }

  private remove(s: number, shown: number): void {
    if (shown > 0) this.emit(MD_CANCEL, this.side[s], this.price[s], shown, this.prio[s]);
    this.release(s);
  }

  /** Queues an L2 event, merging it into the open one when it continues it; returns its index. */
  private emit(kind: number, side: number, price: number, qty: number, prio: number): number {
    const out = this.out;
    if (!this.perOrder && this.isOpen && out.length > 0) {
      const d = out.data;
      const o = out.lastOffset();
      if (d[o + EV_KIND] === kind && d[o + EV_SIDE] === side && d[o + EV_PRICE] === price) {
        d[o + EV_QTY] += qty;
        return out.emitted - 1;
      }
    }
    this.isOpen = true;
    const k = out.push(kind, side, price, qty, prio);
    return kind === MD_ADD ? k : prio;
  }

  private alloc(hi: number, lo: number): number {
    let s: number;
    if (this.freeCount > 0) s = this.free[--this.freeCount];
    else {
      if (this.used === this.side.length) this.grow();
      s = this.used++;
    }
    this.index.set(hi, lo, s);
    this.idHi[s] = hi;
    this.idLo[s] = lo;
    this.born[s] = ++this.births;
    return s;
  }

  private release(s: number): void {
    this.index.delete(this.idHi[s], this.idLo[s]);
    this.born[s] = 0;
    this.free[this.freeCount++] = s;
  }

  private grow(): void {
    const n = this.side.length * 2;
    const g = <T extends Int8Array | Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.side = g(this.side, (k) => new Int8Array(k));
    this.price = g(this.price, (k) => new Float64Array(k));
    this.size = g(this.size, (k) => new Float64Array(k));
    this.credit = g(this.credit, (k) => new Float64Array(k));
    this.prio = g(this.prio, (k) => new Int32Array(k));
    this.idHi = g(this.idHi, (k) => new Int32Array(k));
    this.idLo = g(this.idLo, (k) => new Int32Array(k));
    this.born = g(this.born, (k) => new Float64Array(k));
    this.free = g(this.free, (k) => new Int32Array(k));
  }
}
