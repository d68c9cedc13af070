// Simulated exchange: matches OUR orders against the synthetic market (docs/execution.md "Execution
// model"). Our orders are virtual, as in hftbacktest: they never change the displayed market book
// (no market impact). The exchange keeps its own copy of the market book from the market events.
//
// Built from three ports (hftbacktest style): a latency model (LatencyModel), a queue-position model
// (QueueModel: hooks for a new order, a trade, a depth change and the fill check) and a fee model
// (FeeModel). src/exchange/venue.ts builds it from the configuration for both drivers.
//
// Time: the exchange's clock is the EV_TS of the market event or the OM_TS of the order message
// being processed; the driver calls onMarketEvent / onOrderMessage in time order. Every report
// gets ER_EXCH_TS = that time and ER_TS = time + response latency on a FIFO link, so reports
// reach the engine in the order they were sent (one TCP session).
//
// Order life cycle (one ER_ACK or ER_REJECT per NEW, always first, as CME iLink does):
//   NEW    -> ER_REJECT (bad qty/price/side/duplicate live id/no free slot: REJECT_BAD_ORDER;
//             post-only that would cross: REJECT_POST_ONLY_CROSS), or
//          -> ER_ACK (ER_LEAVES = qty), then, if it crosses, ER_FILLs as taker walking the
//             displayed levels from the touch up to its limit (one fill per price level, at that
//             level's price, up to its displayed size; the book is not modified), then the IOC
//             remainder is ER_CANCELED, a limit remainder rests (queue.onNewOrder: for the L2
//             models, at the back of its level: quantity ahead = displayed size on arrival).
//          A NEW that would trade with our own resting orders triggers self-match prevention
//          first, as CME Globex applies it without an SMP instruction (tag 8000 absent: "cancel
//          resting"; the alternative, "cancel aggressing", needs tag 8000 on the new order): after
//          its ER_ACK, each resting order of ours on the other side at or through its limit that
//          it would have traded with, in price-time priority up to its quantity (CME: in FIFO
//          markets SMP cancels the orders that would have executed), is ER_CANCELED with
//          ER_REASON = CANCEL_SELF_MATCH and counted in selfMatchPrevented; the new order then goes
//          on. Only our orders are ranked: the engine's quotes are post-only, so the displayed
//          market never stands between them.
//   CANCEL -> ER_CANCELED (ER_LEAVES = unfilled qty) if live, else ER_CANCEL_REJECT
//             (REJECT_UNKNOWN_ORDER).
//   MODIFY -> (CME's cancel/replace with in-flight mitigation: OM_QTY is the new total quantity,
//             what has filled counts against it; the order keeps its id and its flags)
//             ER_MODIFY_REJECT if not live (REJECT_UNKNOWN_ORDER: filled, cancelled), malformed
//             or of the other side (REJECT_BAD_ORDER), or post-only and the new price would cross
//             (REJECT_POST_ONLY_CROSS); a rejected modify leaves the order as it was. A new total
//             no more than what has filled: ER_CANCELED (CANCEL_MODIFY_FILLED), nothing rests.
//             Same price, no more working quantity: ER_MODIFIED, the order keeps its place
//             (queue front and arrival rank unchanged: the queue models are not called). A new
//             price or more quantity: ER_MODIFIED, then the order is entered again as a NEW at
//             the new terms would be (self-match prevention, taking if it crosses and is not
//             post-only, the rest at the back of its level: queue.onNewOrder).
// While resting (maker fills, at the order's price):
//   MD_ADD / MD_CANCEL at our price/side: queue.onDepthChange(before, after) (adds join behind
//                                 us in the L2 models; a cancel may advance us).
//   MD_TRADE at our price/side:   our orders there in queue (arrival) order: queue.onTrade, then
//                                 the fill check queue.filled gives what reached the order; a
//                                 trade fills at most its size across all our orders, so what
//                                 our earlier orders took never reaches a later one.
//   MD_TRADE through our price:   (bid side strictly below our buy / ask side strictly above our
//                                 sell) fills us fully.
//   Opposite side MD_ADD at or through our price (the best ask falls to or below our buy price,
//   the best bid rises to or above our sell price): fills us fully.
// No continuous matching while the market book is crossed or locked (best bid >= best ask, both
// sides shown: recorded data's pre-open, where orders are accepted and nothing trades until the
// opening auction). Our orders may rest, their queue positions follow the depth at their level,
// but no market event fills them and a NEW takes nothing (an IOC is cancelled). When the book
// uncrosses (continuous trading resumes), each resting order of ours at or through the opposite
// touch trades as it would have in the opening auction: fully, at that touch (the price the
// continuous market opens at, never worse than its own limit), as maker. The time crossed or
// locked and the number of phase changes are counted (crossedNs, phaseChanges). The synthetic
// market never crosses: the check is one compare per event on the touch the book just set.
//
// Hot path: orders live in preallocated typed arrays (struct of arrays, fixed capacity); a compact
// list of live slots; a per-price count of our live orders (indexed like the dense book, price &
// mask) so an event at a price where we have nothing costs one array load and two compares
// against the best buy / best sell prices we have resting. No allocation per event or message
// (hot-path rule 2); fractional values (queue fronts, fees) and ns timestamps stay in typed arrays
// or number fields, and only integers and references cross calls (hot-path rules 3 and 4).
// Duplicate ids: a NEW whose OM_ID names a live order is rejected (REJECT_BAD_ORDER).

import {
  ASK,
  BID,
  CANCEL_MODIFY_FILLED,
  CANCEL_SELF_MATCH,
  ER_ACK,
  ER_CANCEL_REJECT,
  ER_CANCELED,
  ER_EXCH_TS,
  ER_FEE,
  ER_FILL,
  ER_ID,
  ER_LEAVES,
  ER_LIQ,
  ER_MODIFIED,
  ER_MODIFY_REJECT,
  ER_PRICE,
  ER_QTY,
  ER_REASON,
  ER_REJECT,
  ER_SENT,
  ER_SIDE,
  ER_STRIDE,
  ER_TS,
  ER_TYPE,
  EV_KIND,
  EV_PRICE,
  EV_QTY,
  EV_SIDE,
  EV_TS,
  FLAG_IOC,
  FLAG_POST_ONLY,
  LIQ_MAKER,
  LIQ_TAKER,
  MD_ADD,
  MD_TRADE,
  OM_CANCEL,
  OM_FLAGS,
  OM_ID,
  OM_MODIFY,
  OM_NEW,
  OM_PRICE,
  OM_QTY,
  OM_SENT,
  OM_SIDE,
  OM_TS,
  OM_TYPE,
  REJECT_BAD_ORDER,
  REJECT_NONE,
  REJECT_POST_ONLY_CROSS,
  REJECT_UNKNOWN_ORDER,
} from '../core/events.ts';
import type { RecordRing } from '../core/ring.ts';
import { DenseBook, NO_PRICE } from '../book/dense-book.ts';
import type { FeeModel } from './fees.ts';
import { FifoLink } from './fifo-link.ts';
import type { LatencyModel } from './latency.ts';
import type { QueueModel } from './queue-model.ts';

export interface SimExchangeOptions {
  fees: FeeModel;
  latency: LatencyModel;
  queue: QueueModel;
  /** Execution reports exchange -> engine (stride ER_STRIDE). */
  reports: RecordRing;
  /** Maximum number of our live resting orders (default 256). */
  maxOrders?: number;
  /** Tick window of the exchange-side market book (power of two, default 4096). */
  bookCapacity?: number;
}

const INT32_LIMIT = 2147483647;

/**
 * Size added at a level joins behind our orders there (QueueModel.onDepthChange): no model moves
 * an order then, unless its front is past the level's new size.
 */
function joinsBehind(front: number, before: number, after: number): boolean {
  return after >= before && front <= after;
}

/** Index of a market event's kind and side in SimExchange's reach table. */
function reachKey(kind: number, side: number): number {
  return ((kind & 7) << 1) | side;
}
// +1 where the bound is on the price from above (our buys), -1 from below (our sells).
const REACH_DIR = new Float64Array(16).fill(1);
REACH_DIR[reachKey(MD_ADD, BID)] = -1;
REACH_DIR[reachKey(MD_TRADE, ASK)] = -1;

export class SimExchange {
  // Fields set in the constructor are `declare`d (as in DenseBook): a plain declaration is
  // emitted as a class field that first holds undefined, and V8 then keeps it as a generic tagged
  // value, checked (and untagged, for a number) on every read on the per-event path.
  declare readonly book: DenseBook;
  declare readonly maxOrders: number;
  declare readonly fees: FeeModel;
  declare readonly latency: LatencyModel;
  declare readonly queue: QueueModel;
  declare readonly reports: RecordRing;

  /** Reports that could not be written because the reports ring was full (also reports.countDrop). */
  reportOverflows = 0;
  /** NEW messages rejected because all maxOrders slots were in use. */
  capacityRejects = 0;
  /** Our resting orders cancelled by self-match prevention. */
  selfMatchPrevented = 0;
  /** Counters for metrics. */
  makerFills = 0;
  takerFills = 0;
  /** Maker fills of orders that joined an empty level (nothing displayed ahead on arrival). */
  zeroAheadFills = 0;
  /** The market book is crossed or locked: no continuous matching (see the head of this file). */
  halted = false;
  /** Changes between continuous trading and a crossed or locked book. */
  phaseChanges = 0;
  // [0] ns spent crossed or locked up to the last change to continuous, [1] when the book last crossed.
  private readonly crossedTime = new Float64Array(2);

  // ---- our orders: struct of arrays indexed by slot ----
  declare private readonly oId: Float64Array;
  declare private readonly oSide: Int8Array;
  declare private readonly oPrice: Float64Array;
  declare private readonly oLeaves: Float64Array;
  declare private readonly oQty: Float64Array; // total quantity (filled + leaves): a modify's new total counts fills against it
  declare private readonly oPostOnly: Uint8Array; // 1: entered post-only (a modify that would cross is rejected)
  declare private readonly oFront: Float64Array;
  declare private readonly oSent: Float64Array; // OM_SENT of the message that gave the order its place (its NEW, or a modify that lost priority)
  declare private readonly oSeq: Float64Array; // arrival sequence: queue order among our orders at a level
  declare private readonly oJoinedEmpty: Uint8Array; // 1: nothing displayed ahead when it started resting
  private seq = 0;
  declare private readonly atLevel: Int32Array; // scratch: our slots at one level, in queue order
  declare private readonly oPos: Int32Array; // index of the slot in `live`
  declare private readonly live: Int32Array; // live slots, compact
  private nLive = 0;
  declare private readonly freeSlots: Int32Array;
  declare private nFree: number;
  // Live order count per side and price, indexed as the book's slots: (side << sideShift) |
  // (price & mask). One array for both sides: the side is an index, not a branch (bids and asks
  // alternate at random in the feed).
  declare private readonly ourAt: Int32Array;
  // The slot of our order at each index of ourAt while it holds exactly one (the usual case: one
  // quote per side), so an event at that level finds it without scanning the live orders.
  declare private readonly soleAt: Int32Array;
  declare private readonly sideShift: number;
  declare private readonly mask: number;
  // Our highest live buy price and lowest live sell price (+-Infinity when none), kept as one
  // bound per (kind, side) of market event for onMarketEvent's filter: an event at `price` can
  // trade with an order of ours at another level only if price * REACH_DIR[k] <= reach[k]
  // (k = reachKey(kind, side)): exact for adds, a superset of the strict test for trades (which
  // stays in the slow path). One compare replaces branches on kind and side, which alternate at
  // random in the feed. -Infinity: no event of that kind and side can. (A typed array: hot-path
  // rule 4.)
  private readonly reach = new Float64Array(16).fill(-Infinity);
  // REACH_DIR on the instance: bundled, a module constant is a variable, loaded and checked at each read.
  private readonly reachDir = REACH_DIR;
  // Read as reach[reachKey(MD_ADD, ASK)] (our highest buy) and -reach[reachKey(MD_ADD, BID)] (our
  // lowest sell), not through getters: a getter V8 does not inline returns +-Infinity boxed (hot-path
  // rule 3), which the order-message path measured as an allocation per message.
  private set maxBuy(p: number) {
    this.reach[reachKey(MD_ADD, ASK)] = p; // an ask added at or below our buy
    this.reach[reachKey(MD_TRADE, BID)] = p; // a trade at or through our buy
  }
  private set minSell(p: number) {
    this.reach[reachKey(MD_ADD, BID)] = -p;
    this.reach[reachKey(MD_TRADE, ASK)] = -p;
  }

  // The exchange clock (ns) in a typed array: the latency port reads the send time from it.
  private readonly clock = new Float64Array(1);
  private readonly link = new FifoLink();
  private wrote = false;
  declare private readonly rd: Float64Array;
  private readonly rec = new Float64Array(ER_STRIDE); // report being staged

  constructor(opts: SimExchangeOptions) {
    if (opts.reports.stride !== ER_STRIDE) throw new Error(`reports ring stride must be ${ER_STRIDE}, got ${opts.reports.stride}`);
    const maxOrders = opts.maxOrders ?? 256;
    if (!Number.isInteger(maxOrders) || maxOrders < 1) throw new Error(`maxOrders must be a positive integer, got ${maxOrders}`);
    this.fees = opts.fees;
    this.latency = opts.latency;
    this.queue = opts.queue;
    this.reports = opts.reports;
    this.rd = opts.reports.data;
    this.book = new DenseBook(opts.bookCapacity);
    this.mask = this.book.mask;
    this.maxOrders = maxOrders;
    this.oId = new Float64Array(maxOrders);
    this.oSide = new Int8Array(maxOrders);
    this.oPrice = new Float64Array(maxOrders);
    this.oLeaves = new Float64Array(maxOrders);
    this.oQty = new Float64Array(maxOrders);
    this.oPostOnly = new Uint8Array(maxOrders);
    this.oFront = new Float64Array(maxOrders);
    this.oSent = new Float64Array(maxOrders);
    this.oSeq = new Float64Array(maxOrders);
    this.oJoinedEmpty = new Uint8Array(maxOrders);
    this.atLevel = new Int32Array(maxOrders);
    this.oPos = new Int32Array(maxOrders);
    this.live = new Int32Array(maxOrders);
    this.freeSlots = new Int32Array(maxOrders);
    this.nFree = 0;
    for (let s = maxOrders - 1; s >= 0; s--) this.freeSlots[this.nFree++] = s;
    this.sideShift = 31 - Math.clz32(this.book.capacity);
    this.ourAt = new Int32Array(2 * this.book.capacity);
    this.soleAt = new Int32Array(2 * this.book.capacity);
  }

  /** Forgets all orders, the market book and the report clock (counters are kept). */
  reset(): void {
    this.book.clear();
    this.nLive = 0;
    this.nFree = 0;
    for (let s = this.maxOrders - 1; s >= 0; s--) this.freeSlots[this.nFree++] = s;
    this.ourAt.fill(0);
    this.maxBuy = -Infinity;
    this.minSell = Infinity;
    this.clock[0] = 0;
    this.link.reset();
    this.wrote = false;
    this.halted = false;
  }

  /**
   * Cancels every live order at exchange time `ts`, reporting each (ER_CANCELED): the session
   * close, or a trading client that disconnected (cancel-on-disconnect).
   */
  cancelAll(ts: number): void {
    if (ts > this.clock[0]) this.clock[0] = ts;
    while (this.nLive > 0) {
      const s = this.live[this.nLive - 1];
      this.stageSlot(ER_CANCELED, s);
      this.flush();
      this.removeSlot(s);
    }
    if (this.wrote) {
      this.reports.publish();
      this.wrote = false;
    }
  }

  // ---------------------------------------------------------------- market events

  /** One market event record (EV_* layout) at exchange time EV_TS; true when it published reports (fills). */
  onMarketEvent(data: Float64Array, off: number): boolean {
    const kind = data[off + EV_KIND];
    const side = data[off + EV_SIDE];
    const price = data[off + EV_PRICE];
    const qty = data[off + EV_QTY];
    const book = this.book;
    // Most events touch no level of ours and cannot trade with us: only the book changes.
    const k = reachKey(kind, side);
    const at = this.levelAt(side, price);
    const here = this.ourAt[at] !== 0;
    if (!here && price * this.reachDir[k] > this.reach[k]) {
      book.apply(kind, side, price, qty);
      if (book.bestBid >= book.bestAsk === this.halted) return false;
      this.phase(data, off);
      return this.publishReports();
    }
    // The level's size before the event (the queue model's `before`): apply() returns it.
    const before = book.apply(kind, side, price, qty);
    if (book.bestBid >= book.bestAsk !== this.halted) this.phase(data, off);
    if (this.halted) {
      // No matching: only our queue position moves with the depth at our level.
      if (here && kind !== MD_TRADE) {
        this.clock[0] = data[off + EV_TS];
        this.depthChangeAt(at, side, price, before, book.size(side, price));
      }
    } else if (kind === MD_TRADE) {
      if (side === BID) {
        if (price < this.reach[reachKey(MD_ADD, ASK)]) {
          this.clock[0] = data[off + EV_TS];
          this.fillBuysFrom(price + 1); // trade through our buy price
        }
      } else if (-price < this.reach[reachKey(MD_ADD, BID)]) {
        this.clock[0] = data[off + EV_TS];
        this.fillSellsFrom(price - 1); // trade through our sell price
      }
      if (here) {
        this.clock[0] = data[off + EV_TS];
        this.tradeAt(side, price, qty);
      }
    } else {
      // An add or a cancel: one path for both (they alternate at random), moving our queue
      // position where we rest.
      if (here) {
        this.clock[0] = data[off + EV_TS];
        const after = book.size(side, price);
        // The usual case, without the call: one order of ours at the level, left where it is.
        if (this.ourAt[at] !== 1 || !joinsBehind(this.oFront[this.soleAt[at]], before, after)) this.depthChangeAt(at, side, price, before, after);
      }
      // Size added on the other side at or through our price trades with us. For an add the
      // reach bound is this exact test; no cancel reaches (-Infinity).
      if (price * this.reachDir[k] <= this.reach[k]) {
        this.clock[0] = data[off + EV_TS];
        if (side === ASK) this.fillBuysFrom(price);
        else this.fillSellsFrom(price);
      }
    }
    return this.publishReports();
  }

  /** Publishes the reports staged since the last publish; true when there were some. */
  private publishReports(): boolean {
    if (!this.wrote) return false;
    this.wrote = false;
    this.reports.publish();
    return true;
  }

  /**
   * The touch may have crossed, or uncrossed, at this event (a one-sided book changes nothing).
   * Uncrossing, our orders at or through the new opposite touch fill there (the opening auction).
   */
  private phase(data: Float64Array, off: number): void {
    const b = this.book;
    if (b.bestBid === NO_PRICE || b.bestAsk === NO_PRICE) return;
    const crossed = b.bestBid >= b.bestAsk;
    if (crossed === this.halted) return;
    const ts = data[off + EV_TS];
    this.phaseChanges++;
    this.halted = crossed;
    if (crossed) {
      this.crossedTime[1] = ts;
      return;
    }
    this.crossedTime[0] += ts - this.crossedTime[1];
    this.clock[0] = ts;
    for (let i = this.nLive - 1; i >= 0; i--) {
      const s = this.live[i];
      const buy = this.oSide[s] === BID;
      if (buy ? this.oPrice[s] >= b.bestAsk : this.oPrice[s] <= b.bestBid) this.makerFill(s, this.oLeaves[s], buy ? b.bestAsk : b.bestBid);
    }
  }

  /** Time (ns) the market book has been crossed or locked up to `ts` (the session's end). */
  crossedNsAt(ts: number): number {
    return this.crossedTime[0] + (this.halted ? ts - this.crossedTime[1] : 0);
  }

  /**
   * Displayed size at our price changed without a trade: the queue model moves our orders there
   * (`at`: the level's index in ourAt; prices a window apart share one, hence the price checks).
   */
  private depthChangeAt(at: number, side: number, price: number, before: number, after: number): void {
    if (this.ourAt[at] === 1) {
      const s = this.soleAt[at];
      if (this.oPrice[s] === price) this.depthChangeOf(s, before, after);
      return;
    }
    for (let i = 0; i < this.nLive; i++) {
      const s = this.live[i];
      if (this.oSide[s] === side && this.oPrice[s] === price) this.depthChangeOf(s, before, after);
    }
  }

  /** The queue model moves our order in slot s. */
  private depthChangeOf(s: number, before: number, after: number): void {
    const front = this.oFront[s];
    if (joinsBehind(front, before, after)) return;
    this.queue.onDepthChange(this.oFront, s, before, after);
    const f = this.oFront[s];
    // guard against a model out of its contract: NaN keeps us where we were; clamp to [0, after]
    if (f !== f) {
      if (front > after) this.oFront[s] = after;
      else this.oFront[s] = front;
    } else if (f > after) this.oFront[s] = after;
    else if (f < 0) this.oFront[s] = 0;
  }

  /**
   * A trade at our price on our side. Our orders there take it in queue (arrival) order; each
   * sees the trade less what our earlier orders took (those contracts traded with them), so the
   * trade fills at most its size across all of them. The queue model consumes the queue ahead of
   * each order and says what reached it.
   */
  private tradeAt(side: number, price: number, qty: number): void {
    const n = this.ordersAt(side, price);
    let rem = qty;
    for (let k = 0; k < n && rem > 0; k++) {
      const s = this.atLevel[k];
      this.queue.onTrade(this.oFront, s, rem);
      let fill = this.queue.filled(this.oFront, s);
      if (fill > 0) {
        const leaves = this.oLeaves[s];
        if (fill > leaves) fill = leaves;
        rem -= fill;
        this.makerFill(s, fill);
      }
    }
  }

  /** Our live slots at one price and side into atLevel, in arrival order; returns how many. */
  private ordersAt(side: number, price: number): number {
    const at = this.atLevel;
    const seq = this.oSeq;
    let n = 0;
    for (let i = 0; i < this.nLive; i++) {
      const s = this.live[i];
      if (this.oSide[s] !== side || this.oPrice[s] !== price) continue;
      // insertion sort: a level holds a handful of our orders at most
      let j = n++;
      while (j > 0 && seq[at[j - 1]] > seq[s]) {
        at[j] = at[j - 1];
        j--;
      }
      at[j] = s;
    }
    return n;
  }

  /** Fills every live buy priced at or above `from` fully, at its own price, as maker. */
  private fillBuysFrom(from: number): void {
    for (let i = this.nLive - 1; i >= 0; i--) {
      const s = this.live[i];
      if (this.oSide[s] === BID && this.oPrice[s] >= from) this.makerFill(s, this.oLeaves[s]);
    }
  }

  /** Fills every live sell priced at or below `from` fully, at its own price, as maker. */
  private fillSellsFrom(from: number): void {
    for (let i = this.nLive - 1; i >= 0; i--) {
      const s = this.live[i];
      if (this.oSide[s] === ASK && this.oPrice[s] <= from) this.makerFill(s, this.oLeaves[s]);
    }
  }

  /** Maker fill of `qty` of the resting order in slot `s` (at `price`, default its own); removes it when done. */
  private makerFill(s: number, qty: number, price = this.oPrice[s]): void {
    const leaves = this.oLeaves[s] - qty;
    this.oLeaves[s] = leaves;
    this.makerFills++;
    this.zeroAheadFills += this.oJoinedEmpty[s];
    this.stageSlot(ER_FILL, s);
    const r = this.rec;
    r[ER_PRICE] = price;
    r[ER_QTY] = qty;
    this.fees.feeInto(r, ER_FEE, LIQ_MAKER, qty);
    this.flush();
    if (leaves <= 0) this.removeSlot(s);
  }

  // ---------------------------------------------------------------- order messages

  /** One order message (OM_* layout); OM_TS is the exchange's current time. */
  onOrderMessage(data: Float64Array, off: number): void {
    this.clock[0] = data[off + OM_TS];
    const type = data[off + OM_TYPE];
    if (type === OM_NEW) this.newOrder(data, off);
    else if (type === OM_CANCEL) this.cancelOrder(data, off);
    else if (type === OM_MODIFY) this.modifyOrder(data, off);
    else this.reject(data, off, REJECT_BAD_ORDER);
    if (this.wrote) {
      this.wrote = false;
      this.reports.publish();
    }
  }

  private reject(data: Float64Array, off: number, reason: number): void {
    this.stageMsg(ER_REJECT, data, off, reason);
    this.flush();
  }

  private newOrder(data: Float64Array, off: number): void {
    const side = data[off + OM_SIDE];
    const price = data[off + OM_PRICE];
    const qty = data[off + OM_QTY];
    const flags = data[off + OM_FLAGS];
    if (
      !(qty > 0) ||
      !Number.isInteger(qty) ||
      qty > INT32_LIMIT ||
      (side !== BID && side !== ASK) ||
      !Number.isInteger(price) ||
      price > INT32_LIMIT ||
      price < -INT32_LIMIT ||
      !Number.isFinite(data[off + OM_ID]) ||
      this.findMsgSlot(data, off) >= 0
    ) {
      this.reject(data, off, REJECT_BAD_ORDER);
      return;
    }
    const ioc = (flags & FLAG_IOC) !== 0;
    const crosses = this.crosses(side, price);
    if (crosses && (flags & FLAG_POST_ONLY) !== 0) {
      this.reject(data, off, REJECT_POST_ONLY_CROSS);
      return;
    }
    if (!ioc && this.nFree === 0) {
      this.capacityRejects++;
      this.reject(data, off, REJECT_BAD_ORDER);
      return;
    }
    this.stageMsg(ER_ACK, data, off, REJECT_NONE);
    this.rec[ER_LEAVES] = qty;
    this.flush();
    if (this.meetsOurs(side, price)) this.preventSelfMatch(data, off, side, price, qty);
    let rem = qty;
    if (crosses && !this.halted) rem = this.take(data, off, side, price, qty);
    if (rem <= 0) return;
    if (ioc) {
      this.stageMsg(ER_CANCELED, data, off, REJECT_NONE);
      this.rec[ER_LEAVES] = rem;
      this.flush();
      return;
    }
    this.rest(data, off, side, price, rem, qty, (flags & FLAG_POST_ONLY) !== 0 ? 1 : 0);
  }

  /** An order at `price` on `side` would meet one of ours on the other side (self-match prevention). */
  private meetsOurs(side: number, price: number): boolean {
    return side === BID ? -price <= this.reach[reachKey(MD_ADD, BID)] : price <= this.reach[reachKey(MD_ADD, ASK)];
  }

  /** An order at `price` on `side` would trade with the displayed market's other side. */
  private crosses(side: number, price: number): boolean {
    const book = this.book;
    return side === BID ? book.bestAsk !== NO_PRICE && price >= book.bestAsk : book.bestBid !== NO_PRICE && price <= book.bestBid;
  }

  /** A modify of a live order (the rules are at the head of this file). */
  private modifyOrder(data: Float64Array, off: number): void {
    const s = this.findMsgSlot(data, off);
    if (s < 0) {
      this.stageMsg(ER_MODIFY_REJECT, data, off, REJECT_UNKNOWN_ORDER);
      this.flush();
      return;
    }
    const side = this.oSide[s];
    const price = data[off + OM_PRICE];
    const qty = data[off + OM_QTY];
    if (
      data[off + OM_SIDE] !== side ||
      !(qty > 0) ||
      !Number.isInteger(qty) ||
      qty > INT32_LIMIT ||
      !Number.isInteger(price) ||
      price > INT32_LIMIT ||
      price < -INT32_LIMIT
    ) {
      this.modifyReject(data, off, s, REJECT_BAD_ORDER);
      return;
    }
    const leaves = qty - (this.oQty[s] - this.oLeaves[s]); // what has filled counts against the new total
    if (leaves <= 0) {
      this.stageSlot(ER_CANCELED, s);
      this.rec[ER_REASON] = CANCEL_MODIFY_FILLED;
      this.rec[ER_SENT] = data[off + OM_SENT]; // caused by the modify
      this.flush();
      this.removeSlot(s);
      return;
    }
    if (price === this.oPrice[s] && leaves <= this.oLeaves[s]) {
      // Less (or the same) at the same price: the order keeps its place in the queue.
      this.oQty[s] = qty;
      this.oLeaves[s] = leaves;
      this.stageSlot(ER_MODIFIED, s);
      this.rec[ER_SENT] = data[off + OM_SENT];
      this.flush();
      return;
    }
    const crosses = this.crosses(side, price);
    const postOnly = this.oPostOnly[s];
    if (crosses && postOnly === 1) {
      this.modifyReject(data, off, s, REJECT_POST_ONLY_CROSS);
      return;
    }
    // A new price or more quantity: the order leaves its place and is entered again at the new
    // terms, as a NEW would be (its slot is free again, so rest() always finds one).
    this.removeSlot(s);
    this.stageMsg(ER_MODIFIED, data, off, REJECT_NONE);
    this.rec[ER_LEAVES] = leaves;
    this.flush();
    if (this.meetsOurs(side, price)) this.preventSelfMatch(data, off, side, price, leaves);
    let rem = leaves;
    if (crosses && !this.halted) rem = this.take(data, off, side, price, leaves);
    if (rem > 0) this.rest(data, off, side, price, rem, qty, postOnly);
  }

  /** A refused modify: reported with the order's terms, which stand unchanged. */
  private modifyReject(data: Float64Array, off: number, s: number, reason: number): void {
    this.stageSlot(ER_MODIFY_REJECT, s);
    this.rec[ER_REASON] = reason;
    this.rec[ER_SENT] = data[off + OM_SENT];
    this.flush();
  }

  /**
   * Self-match prevention, cancel resting (CME's default): cancels our resting orders on the
   * other side that a new order (side, limit, qty) would trade with, best price then oldest
   * first, until they cover its quantity.
   */
  private preventSelfMatch(data: Float64Array, off: number, side: number, limit: number, qty: number): void {
    const other = side === BID ? ASK : BID;
    const at = this.atLevel;
    const seq = this.oSeq;
    const px = this.oPrice;
    let n = 0;
    for (let i = 0; i < this.nLive; i++) {
      const s = this.live[i];
      if (this.oSide[s] !== other || (side === BID ? px[s] > limit : px[s] < limit)) continue;
      // insertion sort by priority: a handful of our orders at most
      let j = n++;
      while (j > 0) {
        const t = at[j - 1];
        const better = other === ASK ? px[s] < px[t] : px[s] > px[t];
        if (!better && !(px[s] === px[t] && seq[s] < seq[t])) break;
        at[j] = t;
        j--;
      }
      at[j] = s;
    }
    let rem = qty;
    for (let k = 0; k < n && rem > 0; k++) {
      const s = at[k];
      rem -= this.oLeaves[s];
      this.stageSlot(ER_CANCELED, s);
      const r = this.rec;
      r[ER_REASON] = CANCEL_SELF_MATCH;
      r[ER_SENT] = data[off + OM_SENT]; // caused by the new order's message
      this.flush();
      this.removeSlot(s);
      this.selfMatchPrevented++;
    }
  }

  /**
   * Takes displayed liquidity on the other side from the touch up to `limit`, as taker, at each
   * level's price and up to its displayed size (the market book is not modified). Returns the
   * quantity left.
   */
  private take(data: Float64Array, off: number, side: number, limit: number, qty: number): number {
    const book = this.book;
    const half = book.capacity >> 1;
    const other = side === BID ? ASK : BID;
    const step = side === BID ? 1 : -1;
    let levels = side === BID ? book.askLevels : book.bidLevels;
    let rem = qty;
    for (let p = side === BID ? book.bestAsk : book.bestBid, n = 0; levels > 0 && n < half; p += step, n++) {
      if (side === BID ? p > limit : p < limit) break;
      const size = book.size(other, p);
      if (size <= 0) continue;
      levels--;
      const q = size < rem ? size : rem;
      rem -= q;
      this.takerFills++;
      this.stageMsg(ER_FILL, data, off, REJECT_NONE);
      const r = this.rec;
      r[ER_PRICE] = p;
      r[ER_QTY] = q;
      r[ER_LEAVES] = rem;
      r[ER_LIQ] = LIQ_TAKER;
      this.fees.feeInto(r, ER_FEE, LIQ_TAKER, q);
      this.flush();
      if (rem === 0) break;
    }
    return rem;
  }

  /**
   * Puts an accepted order (or its remainder, `qty` of its `total`) at the back of its level; the
   * message (a NEW or a modify that lost priority) gives its id and its send time.
   */
  private rest(data: Float64Array, off: number, side: number, price: number, qty: number, total: number, postOnly: number): void {
    const s = this.freeSlots[--this.nFree];
    this.oId[s] = data[off + OM_ID];
    this.oSide[s] = side;
    this.oPrice[s] = price;
    this.oLeaves[s] = qty;
    this.oQty[s] = total;
    this.oPostOnly[s] = postOnly;
    const displayed = this.book.size(side, price);
    this.queue.onNewOrder(this.oFront, s, displayed);
    this.oJoinedEmpty[s] = displayed === 0 ? 1 : 0;
    this.oSent[s] = data[off + OM_SENT];
    this.oSeq[s] = ++this.seq;
    this.oPos[s] = this.nLive;
    this.live[this.nLive++] = s;
    const at = this.levelAt(side, price);
    if (++this.ourAt[at] === 1) this.soleAt[at] = s;
    if (side === BID) {
      if (price > this.reach[reachKey(MD_ADD, ASK)]) this.maxBuy = price;
    } else if (-price > this.reach[reachKey(MD_ADD, BID)]) this.minSell = price;
  }

  private cancelOrder(data: Float64Array, off: number): void {
    const s = this.findMsgSlot(data, off);
    if (s < 0) {
      this.stageMsg(ER_CANCEL_REJECT, data, off, REJECT_UNKNOWN_ORDER);
      this.flush();
      return;
    }
    this.stageSlot(ER_CANCELED, s);
    this.rec[ER_SENT] = data[off + OM_SENT]; // caused by the cancel message
    this.flush();
    this.removeSlot(s);
  }

  // ---------------------------------------------------------------- order store

  /** Slot of the live order with this id, or -1 (a scan of the handful of live orders). */
  private findSlot(id: number): number {
    for (let i = 0; i < this.nLive; i++) {
      const s = this.live[i];
      if (this.oId[s] === id) return s;
    }
    return -1;
  }

  /** findSlot for the OM_ID of a message (reads the id here: no boxed double argument). */
  private findMsgSlot(data: Float64Array, off: number): number {
    const id = data[off + OM_ID];
    for (let i = 0; i < this.nLive; i++) {
      const s = this.live[i];
      if (this.oId[s] === id) return s;
    }
    return -1;
  }

  /** The index of a price level in ourAt and soleAt. */
  private levelAt(side: number, price: number): number {
    return (side << this.sideShift) | (price & this.mask);
  }

  /** The first live order whose ourAt index is `at` (-1: none). */
  private liveAt(at: number): number {
    for (let i = 0; i < this.nLive; i++) {
      const t = this.live[i];
      if (this.levelAt(this.oSide[t], this.oPrice[t]) === at) return t;
    }
    return -1;
  }

  private removeSlot(s: number): void {
    const i = this.oPos[s];
    const last = this.live[--this.nLive];
    this.live[i] = last;
    this.oPos[last] = i;
    this.freeSlots[this.nFree++] = s;
    const price = this.oPrice[s];
    const at = this.levelAt(this.oSide[s], price);
    if (--this.ourAt[at] === 1) this.soleAt[at] = this.liveAt(at);
    if (this.oSide[s] === BID) {
      if (price === this.reach[reachKey(MD_ADD, ASK)]) {
        let m = -Infinity;
        for (let k = 0; k < this.nLive; k++) {
          const t = this.live[k];
          if (this.oSide[t] === BID && this.oPrice[t] > m) m = this.oPrice[t];
        }
        this.maxBuy = m;
      }
    } else if (-price === this.reach[reachKey(MD_ADD, BID)]) {
      let m = Infinity;
      for (let k = 0; k < this.nLive; k++) {
        const t = this.live[k];
        if (this.oSide[t] === ASK && this.oPrice[t] < m) m = this.oPrice[t];
      }
      this.minSell = m;
    }
  }

  // ---------------------------------------------------------------- reports
  // A report is staged field by field in `rec` (a preallocated record) and then copied into the
  // ring by flush(): staged through a typed array rather than passed as ten arguments (hot-path
  // rule 3).

  /** Stages a report about a message: id, side, price and sent time from the message. */
  private stageMsg(type: number, data: Float64Array, off: number, reason: number): void {
    const r = this.rec;
    r[ER_TYPE] = type;
    r[ER_ID] = data[off + OM_ID];
    r[ER_SIDE] = data[off + OM_SIDE];
    r[ER_PRICE] = data[off + OM_PRICE];
    r[ER_QTY] = 0;
    r[ER_LEAVES] = 0;
    r[ER_LIQ] = LIQ_MAKER;
    r[ER_FEE] = 0;
    r[ER_REASON] = reason;
    r[ER_SENT] = data[off + OM_SENT];
  }

  /** Stages a report about a live order: id, side, price, leaves and the sent time of the message that placed it. */
  private stageSlot(type: number, s: number): void {
    const r = this.rec;
    r[ER_TYPE] = type;
    r[ER_ID] = this.oId[s];
    r[ER_SIDE] = this.oSide[s];
    r[ER_PRICE] = this.oPrice[s];
    r[ER_QTY] = 0;
    r[ER_LEAVES] = this.oLeaves[s];
    r[ER_LIQ] = LIQ_MAKER;
    r[ER_FEE] = 0;
    r[ER_REASON] = REJECT_NONE;
    r[ER_SENT] = this.oSent[s];
  }

  /** Times the staged report (exchange time + response latency, in order) and writes it. */
  private flush(): void {
    const r = this.rec;
    r[ER_TS] = this.clock[0] + this.latency.response(this.clock, 0);
    this.link.arrive(r, ER_TS);
    r[ER_EXCH_TS] = this.clock[0];
    const off = this.reports.claim();
    if (off < 0) {
      this.reports.countDrop();
      this.reportOverflows++;
      return;
    }
    const d = this.rd;
    for (let k = 0; k < ER_STRIDE; k++) d[off + k] = r[k];
    this.wrote = true;
  }

  // ---------------------------------------------------------------- inspection

  liveOrders(): number {
    return this.nLive;
  }

  /** Quantity ahead of the live order `id` in its level's queue, or -1 if it is not live. */
  orderFront(id: number): number {
    const s = this.findSlot(id);
    return s < 0 ? -1 : this.oFront[s];
  }

  /** Unfilled quantity of the live order `id`; 0 if it is not live. */
  orderLeaves(id: number): number {
    const s = this.findSlot(id);
    return s < 0 ? 0 : this.oLeaves[s];
  }
}
