// The engine's order path: the orders it has sent (OrderTable), the quote targets a strategy
// wants (QuoteTargets) reconciled into cancels and new orders, imperative orders, and the
// outbound order ring. Every order passes the risk checks, the reduce-only window and the
// order-entry latency here, whatever the strategy; nothing else writes to the ring. A live venue
// would replace the ring and the exchange behind it, not this (docs/strategies.md).
//
// Reconciliation keeps an order whose price is still wanted (its place in the queue), cancels
// every other, then sends what is missing: both sides' cancels go out before any new order, and
// the order link is FIFO, so a new bid never reaches the exchange while our ask at its price is
// still resting there (no self-match on our side; the exchange's self-match prevention backs it).
//
// Imperative orders can also be modified (OM_MODIFY: docs/execution.md "Modify"). The strategy
// names the quantity to work from now on; the message carries the new total (what has filled, as
// far as the engine knows, plus that), so fills still in flight count against it at the exchange
// and the order never fills more than asked from the moment of the call. Until the exchange
// answers, the order counts open for the most it may still fill under either terms.

import { NO_PRICE } from '../book/no-price.ts';
import {
  BID,
  ER_LEAVES,
  ER_PRICE,
  ER_TYPE,
  ER_MODIFIED,
  FLAG_IOC,
  FLAG_POST_ONLY,
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
} from '../core/events.ts';
import type { RecordRing } from '../core/ring.ts';
import { FifoLink } from '../exchange/fifo-link.ts';
import type { LatencyModel } from '../exchange/latency.ts';
import type { Portfolio } from '../portfolio/portfolio.ts';
import { RISK_OK, type RiskManager } from '../risk/risk-manager.ts';
import type { QuoteTargets } from '../strategy/port.ts';
import { C_NOW, MAX_ORDERS_PER_SIDE } from './trader-slots.ts';
import { ORD_FREE, ORD_LIVE, ORD_PENDING_CANCEL, ORD_PENDING_NEW, OrderTable } from './order-table.ts';

/** The quote targets of a strategy with `levels` per side (all NO_PRICE: quote nothing). */
export function quoteTargets(levels: number): QuoteTargets {
  const price = new Float64Array(2 * levels).fill(NO_PRICE);
  return { levels, price, size: new Float64Array(2 * levels), maxPosition: Infinity };
}

export interface OrderManagerOptions {
  out: RecordRing;
  latency: LatencyModel;
  portfolio: Portfolio;
  risk: RiskManager;
  /** The engine's per-event doubles (trader-slots.ts; C_NOW: the time orders are sent at). */
  slots: Float64Array;
  /** Quote levels per side (0: imperative orders only). */
  levels: number;
  firstOrderId: number;
}

export class OrderManager {
  readonly orders: OrderTable;
  readonly targets: QuoteTargets;
  /** Contracts on open orders per side as far as we know (including cancels in flight). */
  openBuyQty = 0;
  openSellQty = 0;
  ordersSent = 0;
  cancelsSent = 0;
  modifiesSent = 0;
  outboundDrops = 0;
  /** The last reconciliation left every target standing, and no working quote order has ended since. */
  settled = false;
  /** Only orders that reduce the position (the session's last minutes): set by the engine. */
  reduceOnly = false;

  private readonly out: RecordRing;
  private readonly latency: LatencyModel;
  private readonly portfolio: Portfolio;
  private readonly risk: RiskManager;
  private readonly slots: Float64Array;
  private readonly link = new FifoLink();
  private readonly levels: number;
  /** Working (not being cancelled) quote order slot per [side * levels + level], -1 if none. */
  private readonly working: Int32Array;
  /** Quote orders per side still open at the exchange (incl. cancels in flight): at most MAX_ORDERS_PER_SIDE per level. */
  private readonly openCount = new Int32Array(2);
  /** Per order slot: its [side * levels + level] while a working quote, -1 otherwise (imperative, or replaced). */
  private readonly levelOf: Int32Array;
  /** Per order slot: 1 for a quote order, 0 for an imperative one. */
  private readonly isQuote: Int8Array;
  /** Scratch of reconcile(): which targets a kept order already covers. */
  private readonly covered: Int8Array;
  private readonly from: Int32Array;

  constructor(o: OrderManagerOptions) {
    this.out = o.out;
    this.latency = o.latency;
    this.portfolio = o.portfolio;
    this.risk = o.risk;
    this.slots = o.slots;
    this.levels = o.levels;
    this.targets = quoteTargets(o.levels);
    let cap = 64;
    while (cap < 2 * o.levels * MAX_ORDERS_PER_SIDE + 32) cap *= 2;
    this.orders = new OrderTable(cap, o.firstOrderId);
    this.working = new Int32Array(Math.max(2, 2 * o.levels)).fill(-1);
    this.levelOf = new Int32Array(cap).fill(-1);
    this.isQuote = new Int8Array(cap);
    this.covered = new Int8Array(Math.max(1, o.levels));
    this.from = new Int32Array(Math.max(1, o.levels));
  }

  /** The working quote order's slot at [side * levels + level], -1 if none. */
  workingAt(i: number): number {
    return this.working[i];
  }

  /** Open quantity on a side. */
  openQty(side: number): number {
    return side === BID ? this.openBuyQty : this.openSellQty;
  }

  /**
   * Sends the cancels and new orders that take the working quote orders to the targets; returns
   * whether every target now stands (then `settled`). Anything short of that (an order refused, a
   * cancel not sent) is retried at the next requote.
   */
  reconcile(): boolean {
    const L = this.levels;
    const t = this.targets;
    if (L === 1) {
      // One level a side: keep or cancel each side, then place (the common case, kept simple).
      const keepBid = this.keepOrCancel(0, t.price[0]);
      const keepAsk = this.keepOrCancel(1, t.price[1]);
      if (!keepBid) this.place(BID, 0, t.price[0], t.size[0]);
      if (!keepAsk) this.place(1, 1, t.price[1], t.size[1]);
      this.settled = this.levelStands(0, t.price[0]) && this.levelStands(1, t.price[1]);
      return this.settled;
    }
    this.keepOrCancelSide(BID);
    this.keepOrCancelSide(1);
    for (let side = 0; side < 2; side++) {
      for (let l = 0; l < L; l++) {
        const i = side * L + l;
        if (this.working[i] < 0) this.place(side, i, t.price[i], t.size[i]);
      }
    }
    let ok = true;
    for (let i = 0; i < 2 * L && ok; i++) ok = this.levelStands(i, t.price[i]);
    this.settled = ok;
    return ok;
  }

  /** Several levels: each working order moves to a level that wants its price, or is cancelled. */
  private keepOrCancelSide(side: number): void {
    const L = this.levels;
    const t = this.targets;
    const w = this.working;
    const cov = this.covered;
    cov.fill(0);
    // First pass: which working orders stay, and at which level.
    for (let l = 0; l < L; l++) {
      const slot = w[side * L + l];
      if (slot < 0) continue;
      const px = this.orders.price[slot];
      let at = -1;
      for (let j = 0; j < L && at < 0; j++) if (cov[j] === 0 && t.price[side * L + j] !== NO_PRICE && t.price[side * L + j] === px) at = j;
      if (at < 0) this.sendCancel(slot);
      else cov[at] = 1 + l; // remember where it came from (1-based)
    }
    // Second pass: move the kept ones to their levels.
    const from = this.from;
    for (let j = 0; j < L; j++) from[j] = cov[j] === 0 ? -1 : w[side * L + cov[j] - 1];
    for (let j = 0; j < L; j++) {
      w[side * L + j] = from[j];
      if (from[j] >= 0) this.levelOf[from[j]] = side * L + j;
    }
  }

  /** The level is as wanted: a working order at `price`, or none when price is NO_PRICE. */
  private levelStands(i: number, price: number): boolean {
    const w = this.working[i];
    return price === NO_PRICE ? w < 0 : w >= 0 && this.orders.price[w] === price;
  }

  /** True when the level's working order stays (its price is the wanted one); otherwise cancels it. */
  private keepOrCancel(i: number, price: number): boolean {
    const w = this.working[i];
    if (w < 0) return false;
    // Keep our place in the queue while the wanted price is unchanged.
    if (price !== NO_PRICE && this.orders.price[w] === price) return true;
    this.sendCancel(w);
    return false;
  }

  private place(side: number, i: number, price: number, size: number): void {
    if (price === NO_PRICE || size <= 0 || this.openCount[side] >= MAX_ORDERS_PER_SIDE * this.levels) return;
    // Orders whose cancel is still in flight may fill too: the new one gets only what they leave
    // of the inventory cap (none: wait for their confirmations).
    const pos = this.portfolio.position;
    const cap = this.targets.maxPosition;
    const room = side === BID ? cap - pos - this.openBuyQty : cap + pos - this.openSellQty;
    if (room <= 0) return;
    const slot = this.newOrder(side, price, room < size ? room : size, FLAG_POST_ONLY);
    if (slot < 0) return;
    this.openCount[side]++;
    this.working[i] = slot;
    this.levelOf[slot] = i;
    this.isQuote[slot] = 1;
  }

  /** An imperative order: its id, or 0 when refused (risk checks, reduce-only, full table or ring). */
  send(side: number, price: number, qty: number, flags: number): number {
    if (!(qty > 0) || qty !== Math.floor(qty) || price !== Math.floor(price) || (side !== 0 && side !== 1)) return 0;
    const slot = this.newOrder(side, price, qty, flags);
    if (slot < 0) return 0;
    this.levelOf[slot] = -1;
    this.isQuote[slot] = 0;
    return this.orders.id[slot];
  }

  /**
   * The kill switch's flattening order: IOC at `price`, past the risk checks (which refuse every
   * order once the switch has tripped; this one only reduces the position). Its id, or 0 when the
   * table or the ring is full.
   */
  sendFlatten(side: number, price: number, qty: number): number {
    const slot = this.orders.allocate(side, price, qty, this.slots[C_NOW]);
    if (slot < 0) return 0;
    if (!this.write(OM_NEW, slot, FLAG_IOC)) {
      this.orders.release(slot);
      return 0;
    }
    if (side === BID) this.openBuyQty += qty;
    else this.openSellQty += qty;
    this.ordersSent++;
    this.levelOf[slot] = -1;
    this.isQuote[slot] = 0;
    return this.orders.id[slot];
  }

  /** Cancels an order by id; false when unknown, ended, or already being cancelled. */
  cancel(id: number): boolean {
    const slot = this.orders.find(id);
    if (slot < 0) return false;
    const st = this.orders.state[slot];
    if (st !== ORD_PENDING_NEW && st !== ORD_LIVE) return false;
    return this.sendCancel(slot);
  }

  /**
   * Modifies an imperative order to `price` and `qty` contracts working from now on; false when
   * refused here: unknown, ended or being cancelled, a quote order (the reconciliation owns those),
   * a bad price or size, or, for a new price or more contracts (which lose the queue place), the
   * checks a new order passes (risk limits, reduce-only). Less at the same price only lowers risk
   * and passes.
   */
  modify(id: number, price: number, qty: number): boolean {
    if (!(qty > 0) || qty !== Math.floor(qty) || price !== Math.floor(price)) return false;
    const o = this.orders;
    const s = o.find(id);
    if (s < 0 || this.isQuote[s] === 1) return false;
    const st = o.state[s];
    if (st !== ORD_PENDING_NEW && st !== ORD_LIVE) return false;
    const side = o.side[s];
    const total = o.cum[s] + qty;
    const count = o.leaves[s];
    const prevPrice = o.price[s];
    const prevQty = o.qty[s];
    if (price !== prevPrice || total > prevQty) {
      const pos = this.portfolio.position;
      if (this.reduceOnly && !(side === BID ? pos < 0 && qty <= -pos : pos > 0 && qty <= pos)) return false;
      // The order's own count leaves the open quantity: the check sees it at its new size.
      const buy = side === BID ? this.openBuyQty - count : this.openBuyQty;
      const sell = side === BID ? this.openSellQty : this.openSellQty - count;
      if (this.risk.checkOrder(side, price, qty, pos, buy, sell) !== RISK_OK) return false;
    }
    o.price[s] = price;
    o.qty[s] = total;
    if (!this.write(OM_MODIFY, s, 0)) {
      o.price[s] = prevPrice;
      o.qty[s] = prevQty;
      return false;
    }
    if (o.mods[s] === 0) {
      o.confPrice[s] = prevPrice;
      o.confLeaves[s] = count;
      o.askLeaves[s] = qty;
    } else if (qty > o.askLeaves[s]) o.askLeaves[s] = qty;
    o.mods[s]++;
    this.recount(s);
    this.modifiesSent++;
    return true;
  }

  /**
   * The exchange's answer to a modify (ER_MODIFIED or ER_MODIFY_REJECT, read from the report at
   * `off`): its confirmed terms replace the ones it held.
   */
  modifyAnswered(slot: number, d: Float64Array, off: number): void {
    const o = this.orders;
    if (o.mods[slot] === 0) return; // not a modify of this engine's (a previous instance's order)
    o.mods[slot]--;
    o.confLeaves[slot] = d[off + ER_LEAVES];
    o.confPrice[slot] = d[off + ER_PRICE];
    if (o.mods[slot] === 0 && d[off + ER_TYPE] !== ER_MODIFIED) {
      // Refused and nothing else in flight: the order works on at its confirmed terms.
      o.price[slot] = o.confPrice[slot];
      o.qty[slot] = o.cum[slot] + o.confLeaves[slot];
    }
    this.recount(slot);
  }

  /** The order's open count after a modify or its answer: all the terms it may still work at. */
  private recount(s: number): void {
    const o = this.orders;
    let n = o.confLeaves[s];
    if (o.mods[s] > 0 && o.askLeaves[s] > n) n = o.askLeaves[s];
    if (o.side[s] === BID) this.openBuyQty += n - o.leaves[s];
    else this.openSellQty += n - o.leaves[s];
    o.leaves[s] = n;
  }

  /** Risk-checked new order into a fresh slot; -1 when refused. */
  private newOrder(side: number, price: number, qty: number, flags: number): number {
    const pos = this.portfolio.position;
    if (this.reduceOnly && !(side === BID ? pos < 0 && qty <= -pos : pos > 0 && qty <= pos)) return -1;
    if (this.risk.checkOrder(side, price, qty, pos, this.openBuyQty, this.openSellQty) !== RISK_OK) return -1;
    const slot = this.orders.allocate(side, price, qty, this.slots[C_NOW]);
    if (slot < 0) return -1;
    if (!this.write(OM_NEW, slot, flags)) {
      this.orders.release(slot);
      return -1;
    }
    if (side === BID) this.openBuyQty += qty;
    else this.openSellQty += qty;
    this.ordersSent++;
    return slot;
  }

  private sendCancel(slot: number): boolean {
    const o = this.orders;
    if (o.state[slot] === ORD_PENDING_CANCEL || o.state[slot] === ORD_FREE) return false;
    if (!this.write(OM_CANCEL, slot, 0)) return false;
    o.state[slot] = ORD_PENDING_CANCEL;
    const i = this.levelOf[slot];
    if (i >= 0 && this.working[i] === slot) this.working[i] = -1;
    this.levelOf[slot] = -1;
    this.cancelsSent++;
    return true;
  }

  /** Writes and publishes one order message about the order in `slot`; false if the ring is full. */
  private write(type: number, slot: number, flags: number): boolean {
    const off = this.out.claim();
    if (off < 0) {
      this.outboundDrops++;
      this.out.countDrop();
      return false;
    }
    const o = this.orders;
    const d = this.out.data;
    const c = this.slots;
    // Exchange arrival: entry latency, in send order.
    d[off + OM_TS] = c[C_NOW] + this.latency.orderEntry(c, C_NOW);
    this.link.arrive(d, off + OM_TS);
    d[off + OM_SENT] = c[C_NOW];
    d[off + OM_TYPE] = type;
    d[off + OM_ID] = o.id[slot];
    d[off + OM_SIDE] = o.side[slot];
    d[off + OM_PRICE] = o.price[slot];
    // A cancel: what it cancels; a new order or a modify: the order's total quantity.
    d[off + OM_QTY] = type === OM_CANCEL ? o.leaves[slot] : o.qty[slot];
    d[off + OM_FLAGS] = flags;
    this.out.publish();
    return true;
  }

  /** An acknowledgement. */
  acked(slot: number): void {
    if (this.orders.state[slot] === ORD_PENDING_NEW) this.orders.state[slot] = ORD_LIVE;
  }

  /** A fill of `qty` of the order in `slot`. */
  filled(slot: number, qty: number): void {
    const o = this.orders;
    o.leaves[slot] -= qty;
    o.cum[slot] += qty;
    if (o.mods[slot] !== 0) {
      // Every terms in flight lose what filled (the exchange counts it against a modify's total).
      o.confLeaves[slot] -= qty;
      o.askLeaves[slot] -= qty;
    }
    if (o.side[slot] === BID) this.openBuyQty -= qty;
    else this.openSellQty -= qty;
    if (o.leaves[slot] <= 0) this.done(slot);
  }

  /** The order ended without a fill of its rest (cancelled or rejected). */
  ended(slot: number): void {
    const o = this.orders;
    if (o.side[slot] === BID) this.openBuyQty -= o.leaves[slot];
    else this.openSellQty -= o.leaves[slot];
    o.leaves[slot] = 0;
    this.done(slot);
  }

  /** True for a quote order (reconciled from targets), false for an imperative one. */
  quoteOrder(slot: number): boolean {
    return this.isQuote[slot] === 1;
  }

  private done(slot: number): void {
    const side = this.orders.side[slot];
    // Only a working quote order's end can unsettle the targets: the others are orders already
    // replaced (their cancel sent), which no standing target counts on, or imperative ones.
    const i = this.levelOf[slot];
    if (i >= 0 && this.working[i] === slot) {
      this.working[i] = -1;
      this.settled = false;
    }
    this.levelOf[slot] = -1;
    if (this.isQuote[slot] === 1) this.openCount[side]--;
    this.isQuote[slot] = 0;
    this.orders.release(slot);
  }

  /** Cancels every open order (kill switch, a strategy's error, shutdown, restart). */
  cancelAll(): void {
    this.settled = false;
    const o = this.orders;
    for (let s = 0; s < o.capacity; s++) {
      if (o.state[s] === ORD_PENDING_NEW || o.state[s] === ORD_LIVE) this.sendCancel(s);
    }
  }
}
