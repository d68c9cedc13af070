// The strategy port: what a strategy declares, sees and does. A strategy is plain TypeScript (or
// JavaScript) that the engine calls; the same object runs in a backtest, a sweep point, on a
// queue worker and in the live simulation, because all of them drive the same Trader
// (src/trading/trader.ts) and the trader is the strategy's only window on the world.
//
// What a strategy sees is what a live strategy could know: the engine's own book, built from
// market data as delayed by the market-data latency, its own orders as the execution reports
// have told it, its position and P&L, the risk state. Never the simulator's exchange side (the
// exchange's book, queue positions there). docs/strategies.md is the guide; this file is the
// reference.

import { ASK, BID, FLAG_IOC, FLAG_POST_ONLY } from '../core/events.ts';
import { NO_PRICE } from '../book/no-price.ts';

export { ASK, BID, FLAG_IOC, FLAG_POST_ONLY, NO_PRICE };

/**
 * What wakes onMarket, declared up front:
 * - 'touch': a market event that changes the best bid or ask price;
 * - 'touch_and_trades': those, and every trade;
 * - 'book': every market event.
 * Timers (wakeAt, wakeEvery) and the strategy's own order events wake it whatever it declares.
 */
export const WAKES = ['touch', 'touch_and_trades', 'book'] as const;
export type Wake = (typeof WAKES)[number];

/** One declared parameter: validated the same way in TOML, HTTP requests and sweep axes. */
export interface ParamSpec {
  type: 'number' | 'integer' | 'boolean';
  default: number | boolean;
  /** Bounds, inclusive; required for numbers and integers. */
  min?: number;
  max?: number;
  /** The value must be above min, not equal to it (e.g. a multiplier that must be positive). */
  exclusiveMin?: boolean;
  unit?: string;
  description: string;
}

export type ParamDecl = Readonly<Record<string, ParamSpec>>;
export type ParamValues = Readonly<Record<string, number | boolean>>;

/** Kinds of order event (OrderEvent.type). */
export const ORDER_ACK = 1;
export const ORDER_FILL = 2;
export const ORDER_CANCELED = 3; // by our cancel, self-match prevention or an IOC's unfilled rest
export const ORDER_REJECT = 4; // refused by the exchange (e.g. a post-only order that would cross)
export const ORDER_CANCEL_REJECT = 5; // our cancel arrived after the order had ended
export const ORDER_MODIFIED = 6; // our replace() took effect: price and leaves are the order's new terms
export const ORDER_MODIFY_REJECT = 7; // the exchange refused our replace(): the order works on at price and leaves

/**
 * One of the strategy's own order events, as the execution report told the engine (one object,
 * rewritten for each event: copy what you keep).
 */
export interface OrderEvent {
  type: number; // ORDER_*
  id: number;
  side: number; // BID or ASK
  price: number; // ticks: the order's price, or the fill's
  qty: number; // contracts filled (fills), else the order's remaining quantity
  leaves: number; // contracts still working after this event
  /** The exchange's time of the event and the engine's receive time, ns. */
  exchTs: number;
  recvTs: number;
  /** True for an order the engine manages from quote() targets, false for one sent with send(). */
  quote: boolean;
}

/** States of a working order (StrategyContext.orderState). */
export const OS_NONE = 0; // unknown id, or the order has ended
export const OS_PENDING_NEW = 1; // sent, not yet acknowledged
export const OS_LIVE = 2; // acknowledged, resting
export const OS_PENDING_CANCEL = 3; // cancel sent, not yet confirmed
export const OS_PENDING_MODIFY = 4; // acknowledged, a replace() sent and not yet answered

/**
 * The volatility (ticks per sqrt(second)) from the decayed sum Q of squared mid changes, read
 * into typed-array slots (hot-path rule 3; FeatureExtractor implements it).
 */
export interface FeatureBand {
  /** out[i] = the volatility now. */
  writeVolatility(out: Float64Array, i: number): void;
  /** out[i] = the sum Q now; the volatility never falls as Q grows. */
  writeVolatilitySum(out: Float64Array, i: number): void;
  /** at[i + 1] = the volatility for the sum at[i]. */
  volatilityFor(at: Float64Array, i: number): void;
  /** at[i] = the mid changes so far, at[i + 1] = the exchange time up to which Q >= at[lo] holds. */
  volatilityStandInto(at: Float64Array, lo: number, i: number): void;
  /** No mid change since volatilityStandInto(at, lo, i), and the last event no later than its time. */
  volatilityStands(at: Float64Array, i: number): boolean;
}

/** What a strategy reads and how it acts. Prices are integer ticks, sizes contracts, times ns. */
export interface StrategyContext {
  // Time
  /** The engine's clock: the receive time of its last input (live: the local clock). */
  readonly now: number;
  /** Exchange time of the last market event received. */
  readonly exchTs: number;
  readonly sessionStartNs: number;
  readonly sessionEndNs: number;

  // The instrument
  readonly root: string;
  /** Price units per tick and USD per tick per contract. */
  readonly tickSize: number;
  readonly tickValue: number;

  // The engine's local book (as delayed by the market-data latency)
  readonly bestBid: number; // NO_PRICE: that side is empty
  readonly bestAsk: number;
  /** Mid in ticks (NaN with a side empty). */
  readonly mid: number;
  /**
   * Up to n levels of one side, best first, into prices and sizes; returns how many. Needs
   * `book: 'depth'` in the definition (an engine fed only the touch keeps no levels).
   */
  levels(side: number, n: number, prices: Float64Array | Int32Array, sizes: Float64Array | Int32Array): number;
  /** The last trade seen in market data (NaN before any): price ticks, qty, aggressor's side, exchange time. */
  readonly lastTradePrice: number;
  readonly lastTradeQty: number;
  readonly lastTradeSide: number;
  readonly lastTradeTs: number;

  // Signals
  /**
   * A feature by name (FEATURE_NAMES in src/book/features.ts: micro_offset, spread,
   * imbalance_l1, imbalance_l5, ofi_norm, trade_imbalance, volatility, vpin, momentum). Every
   * name but `volatility` needs `features: 'all'`.
   */
  feature(name: string): number;
  /** The mid's short-horizon volatility, ticks per sqrt(second). */
  readonly volatility: number;
  /**
   * The volatility's allocation-free interface (results into typed-array slots), for strategies
   * that keep a standing promise on it, as the built-in market maker does.
   */
  readonly band: FeatureBand;
  /** The model's latest prediction of the mid's move, ticks (NaN: no model in this run, or none yet). */
  readonly signal: number;
  /** out[i] = signal: the same value without boxing a double on the hot path (see docs/strategies.md, "Staying fast"). */
  writeSignal(out: Float64Array, i: number): void;

  // The account
  readonly position: number;
  /** Session P&L in USD: realised (net of fees) and at the mid (NaN with a side empty). */
  readonly realizedPnl: number;
  readonly pnl: number;
  /** Contracts on open buy and sell orders (including cancels in flight). */
  readonly openBuyQty: number;
  readonly openSellQty: number;
  /** Last fill (NaN before any): price ticks, qty, side, exchange time. */
  readonly lastFillPrice: number;
  readonly lastFillQty: number;
  readonly lastFillSide: number;
  readonly lastFillTs: number;

  // Risk
  /** Near the session end only orders that reduce the position are accepted (flatten_minutes). */
  readonly reduceOnly: boolean;
  /** The kill switch has tripped: nothing new is sent, for the rest of the session. */
  readonly killed: boolean;
  /** The risk limit on |position|, contracts. */
  readonly positionLimit: number;

  // Own orders
  /** State of an order by id (OS_*). */
  orderState(id: number): number;
  /** Remaining quantity of an order by id (0 when it has ended). */
  orderLeaves(id: number): number;
  /** The quote() targets all stand: a working order at every wanted price, none elsewhere. */
  readonly settled: boolean;

  // Acting
  /**
   * Imperative order: returns its id, or 0 when refused here (risk checks, reduce-only, kill
   * switch, full order table or ring). flags: FLAG_POST_ONLY, FLAG_IOC, or 0 (a limit order).
   */
  send(side: number, price: number, qty: number, flags: number): number;
  /** Sends a cancel; false when the order is unknown, ended or already being cancelled. */
  cancel(id: number): boolean;
  /**
   * Modifies an order sent with send() (a CME-style modify, OM_MODIFY): `price` and `qty`
   * contracts working from now on. The order keeps its id and its flags. Less at the same price
   * keeps its place in the queue; a new price or more contracts lose it (to the back of the
   * queue at the new price), and pass the checks a new order does (risk limits, reduce-only).
   * What fills while the modify is in flight counts against `qty` (in-flight mitigation): the
   * order never fills more than `qty` from the call on, and is cancelled when that much filled
   * first. A post-only order whose new price would cross is refused by the exchange
   * (ORDER_MODIFY_REJECT) and works on unchanged. Returns the id, or 0 when refused here (the
   * order then works on unchanged, or has ended): unknown, ended, being cancelled, a quote()
   * order (the reconciliation owns those), the kill switch, the risk checks, a full ring.
   */
  replace(id: number, price: number, qty: number): number;
  /** Wakes onTimer(ctx, id) at engine time `ns` (one pending time per id; a new one replaces it). */
  wakeAt(ns: number, id: number): void;
  /** Wakes onTimer(ctx, id) every `periodNs`, the first one period from now. */
  wakeEvery(periodNs: number, id: number): void;
  cancelTimer(id: number): void;

  /** A seeded random number in [0, 1): the same sequence in every run of the same session. */
  random(): number;
  /** The declared state area (StrategyDefinition.stateSlots): kept across a live engine restart. */
  readonly state: Float64Array;
}

/**
 * Declarative quotes: the prices and sizes wanted per side and level, written by quote(). The
 * engine reconciles them with the working orders: an order at a wanted price stays (its place in
 * the queue kept), every other is cancelled, and missing ones are sent post-only, every cancel
 * before any new order. New orders are trimmed so that the position stays within maxPosition if
 * every open order on that side fills.
 */
export interface QuoteTargets {
  readonly levels: number;
  /** [side * levels + level] = price in ticks (NO_PRICE: none) and size in contracts. */
  readonly price: Float64Array;
  readonly size: Float64Array;
  /** The inventory cap the new orders are trimmed to (default Infinity: only the risk limits). */
  maxPosition: number;
}

/** The optional promise that lets the engine skip calling the strategy (docs/strategies.md, "Staying fast"). */
export interface StandingPromise {
  /**
   * Called once after quote() left every target standing, before the next market event changes
   * anything: note what the decision rests on.
   */
  settle(ctx: StrategyContext): void;
  /**
   * Optional. At a market event that left the touch and the position as they were at the
   * settled decision (and within the bands, if any): true when quote() would now give the same
   * targets. Must be cheap and pure. Without it (and without bands) the decision rests on the
   * touch and the position alone.
   */
  stands?(ctx: StrategyContext): boolean;
  /**
   * Optional, called after settle(): the decision's bands in the engine's own inputs, which the
   * engine then checks at each event without a call into the strategy (the cheapest promise).
   * out[at], out[at + 1]: the model's signal range in which the decision stands (NaN, NaN: only
   * while there is no signal; -Infinity, Infinity: any signal, or none). out[at + 2], out[at + 3]:
   * the volatility band as FeatureBand.volatilityStandInto writes it (NaN in out[at + 2]: none).
   */
  bands?(out: Float64Array, at: number): void;
  /**
   * out[at]: exchange time before which, and out[at + 1]: up to which, an event that leaves the
   * touch unchanged keeps the decision standing (Infinity: no bound). The backtest then skips those events.
   */
  bounds(out: Float64Array, at: number): void;
}

/** A running strategy: every callback is optional. */
export interface Strategy {
  /** Declarative quotes: the targets wanted now. Called when a requote is due (docs/strategies.md). */
  quote?(ctx: StrategyContext, q: QuoteTargets): void;
  /** Each market event of the declared kind (two-sided book, after the session open, switch not tripped). */
  onMarket?(ctx: StrategyContext): void;
  onTimer?(ctx: StrategyContext, id: number): void;
  onOrder?(ctx: StrategyContext, ev: OrderEvent): void;
  readonly standing?: StandingPromise;
}

export interface StrategyDefinition {
  /** Registry name: lower case, digits and underscores, starting with a letter. */
  name: string;
  version: string;
  description: string;
  wakes: Wake;
  /** What of the book it reads: the touch only (default) or levels below it (ctx.levels). */
  book?: 'touch' | 'depth';
  /** Which features it reads: the volatility only (default) or all of them (ctx.feature). */
  features?: 'volatility' | 'all';
  /** Quote levels per side for quote() (default 1; 0: imperative orders only). */
  levels?: number;
  params: ParamDecl;
  /** Doubles of state kept across a live engine restart (ctx.state; default 0). */
  stateSlots?: number;
  create(params: ParamValues, ctx: StrategyContext): Strategy;
}

/** The identity of a strategy a run used: in every run record and result. */
export interface StrategyIdentity {
  name: string;
  version: string;
  /** SHA-256 of the strategy's source (the bundle compiled from a file; the built-ins' own modules). */
  hash: string;
  params: ParamValues;
}

/** Identity helper for strategy files: `export default defineStrategy({...})` type-checks the definition. */
export function defineStrategy(d: StrategyDefinition): StrategyDefinition {
  return d;
}
