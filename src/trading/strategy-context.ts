// What a strategy sees of its engine (StrategyContext, src/strategy/port.ts): read-only views of
// the engine's own state and the order path's entry points. Nothing here reaches the simulated
// exchange: the context is built from the engine alone, which knows only what market data and
// execution reports have told it.

import type { DenseBook } from '../book/dense-book.ts';
import { FEATURE_NAMES, type FeatureExtractor } from '../book/features.ts';
import { NO_PRICE } from '../book/no-price.ts';
import type { Rng } from '../core/rng.ts';
import type { ContractSpec } from '../market/instruments.ts';
import type { FillLog } from '../portfolio/fill-log.ts';
import type { Portfolio } from '../portfolio/portfolio.ts';
import type { RiskManager } from '../risk/risk-manager.ts';
import { OS_NONE, OS_PENDING_MODIFY, type FeatureBand, type StrategyContext, type StrategyDefinition } from '../strategy/port.ts';
import type { OrderManager } from './order-manager.ts';
import { C_SIGNAL } from './trader-slots.ts';
import { ORD_LIVE } from './order-table.ts';

/**
 * What the context reads of its trader: the members of Trader (trader.ts) it uses, named here so
 * that this file need not import the trader that builds the context.
 */
export interface ContextTrader {
  readonly now: number;
  readonly lastExchTs: number;
  readonly sessionStartNs: number;
  readonly sessionEndNs: number;
  readonly reduceOnlyFromNs: number;
  readonly spec: ContractSpec;
  readonly strategyDef: StrategyDefinition;
  readonly feed: 'events' | 'top';
  readonly book: DenseBook;
  readonly bestBid: number;
  readonly bestAsk: number;
  readonly lastTrade: Float64Array;
  readonly features: FeatureExtractor;
  readonly signal: number;
  readonly markTicks: number;
  readonly slots: Float64Array;
  readonly portfolio: Portfolio;
  readonly risk: RiskManager;
  readonly om: OrderManager;
  readonly fills: FillLog;
  readonly rng: Rng;
  /** The strategy's failure (a StrategyError), or null. */
  readonly failed: Error | null;
  mid(): number;
  setTimer(id: number, at: number, period: number): void;
  clearTimer(id: number): void;
}

const FEATURE_INDEX: ReadonlyMap<string, number> = new Map(FEATURE_NAMES.map((n, i) => [n, i]));

export class EngineContext implements StrategyContext {
  private readonly e: ContextTrader;
  private readonly slots: Float64Array;
  readonly state: Float64Array;

  constructor(trader: ContextTrader, state: Float64Array) {
    this.e = trader;
    this.slots = trader.slots;
    this.state = state;
  }

  get now(): number {
    return this.e.now;
  }
  get exchTs(): number {
    return this.e.lastExchTs;
  }
  get sessionStartNs(): number {
    return this.e.sessionStartNs;
  }
  get sessionEndNs(): number {
    return this.e.sessionEndNs;
  }
  get root(): string {
    return this.e.spec.root;
  }
  get tickSize(): number {
    return this.e.spec.tickSize;
  }
  get tickValue(): number {
    return this.e.spec.tickValue;
  }
  get bestBid(): number {
    return this.e.bestBid;
  }
  get bestAsk(): number {
    return this.e.bestAsk;
  }
  get mid(): number {
    return this.e.mid();
  }

  levels(side: number, n: number, prices: Float64Array | Int32Array, sizes: Float64Array | Int32Array): number {
    if (this.e.feed === 'top')
      throw new Error(`strategy ${this.e.strategyDef.name}: ctx.levels() needs book: 'depth' in its definition (this engine keeps only the touch)`);
    return this.e.book.levels(side, n, prices, sizes);
  }

  get lastTradePrice(): number {
    return this.e.lastTrade[0];
  }
  get lastTradeQty(): number {
    return this.e.lastTrade[1];
  }
  get lastTradeSide(): number {
    return this.e.lastTrade[2];
  }
  get lastTradeTs(): number {
    return this.e.lastTrade[3];
  }

  feature(name: string): number {
    const i = FEATURE_INDEX.get(name);
    if (i === undefined) throw new Error(`unknown feature '${name}': expected one of ${FEATURE_NAMES.join(', ')}`);
    if (name === 'volatility') return this.e.features.volatility;
    return this.e.features.values[i];
  }
  get volatility(): number {
    return this.e.features.volatility;
  }
  get band(): FeatureBand {
    return this.e.features;
  }
  get signal(): number {
    return this.e.signal;
  }
  writeSignal(out: Float64Array, i: number): void {
    out[i] = this.slots[C_SIGNAL]; // the engine's slot, read directly: one call on the promise's per-event path
  }

  get position(): number {
    return this.e.portfolio.position;
  }
  get realizedPnl(): number {
    const p = this.e.portfolio;
    return p.realizedPnl - p.feesPaid;
  }
  get pnl(): number {
    const p = this.e.portfolio;
    return p.equity(this.e.markTicks) - p.initialCapital;
  }
  get openBuyQty(): number {
    return this.e.om.openBuyQty;
  }
  get openSellQty(): number {
    return this.e.om.openSellQty;
  }
  get lastFillPrice(): number {
    return this.lastFill(0);
  }
  get lastFillQty(): number {
    return this.lastFill(1);
  }
  get lastFillSide(): number {
    return this.lastFill(2);
  }
  get lastFillTs(): number {
    return this.lastFill(3);
  }
  private lastFill(field: number): number {
    const f = this.e.fills;
    if (f.length === 0) return NaN;
    const i = f.length - 1;
    return f.get(field === 0 ? 'price' : field === 1 ? 'qty' : field === 2 ? 'side' : 'exchTs', i);
  }

  get reduceOnly(): boolean {
    return this.e.lastExchTs >= this.e.reduceOnlyFromNs;
  }
  get killed(): boolean {
    return this.e.risk.killed;
  }
  get positionLimit(): number {
    return this.e.risk.limits.positionLimit;
  }

  orderState(id: number): number {
    const o = this.e.om.orders;
    const s = o.find(id);
    if (s < 0) return OS_NONE;
    return o.state[s] === ORD_LIVE && o.mods[s] > 0 ? OS_PENDING_MODIFY : o.state[s];
  }
  orderLeaves(id: number): number {
    const o = this.e.om.orders;
    const s = o.find(id);
    return s < 0 ? 0 : o.leaves[s];
  }
  get settled(): boolean {
    return this.e.om.settled;
  }

  /**
   * An order at `price` may go out now (no kill switch, no failure, the session still open), with
   * the reduce-only window current in every callback, onOrder's too.
   */
  private mayOrder(price: number): boolean {
    const e = this.e;
    if (e.risk.killed || e.failed !== null || e.lastExchTs >= e.sessionEndNs || price === NO_PRICE) return false;
    e.om.reduceOnly = e.lastExchTs >= e.reduceOnlyFromNs;
    return true;
  }
  send(side: number, price: number, qty: number, flags: number): number {
    // The order manager refuses a side other than BID or ASK.
    return this.mayOrder(price) ? this.e.om.send(side, price, qty, flags) : 0;
  }
  cancel(id: number): boolean {
    return this.e.om.cancel(id);
  }
  replace(id: number, price: number, qty: number): number {
    return this.mayOrder(price) && this.e.om.modify(id, price, qty) ? id : 0;
  }
  wakeAt(ns: number, id: number): void {
    this.e.setTimer(id, ns, 0);
  }
  wakeEvery(periodNs: number, id: number): void {
    if (!(periodNs > 0)) throw new Error(`wakeEvery(${periodNs}, ${id}): expected a period > 0 ns`);
    this.e.setTimer(id, this.e.now + periodNs, periodNs);
  }
  cancelTimer(id: number): void {
    this.e.clearTimer(id);
  }
  random(): number {
    return this.e.rng.next();
  }
}
