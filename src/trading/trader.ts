// The trading side of the engine: a local L2 book built only from (delayed) market data,
// features, the model's signal, a strategy (src/strategy/port.ts) and the order path it acts
// through (OrderManager: risk checks, reconciliation, the outbound ring), position and P&L.
// It knows nothing about threads or wall-clock time: a driver hands it market-data records
// (EV_RECV = the time it receives them) and execution reports (ER_TS), and it writes order
// messages (OM_*) to its outbound ring, stamped with the order-entry latency. The backtest
// driver and the live-simulation worker run this same class.
//
// Two ways in for market data, one per engine: onMarketData applies each event to the engine's
// own book (the live simulation; any run with the model, whose features read five levels), or,
// with `feed: 'top'`, the driver hands over the top of book after each event (onMarketTop) and
// the engine keeps no book: a backtest without the model, where nothing reads below the touch
// and the exchange's book has applied the same events in the same order (the same DenseBook, so
// the same top). There the driver takes the common event itself: see quietBounds.

import { DenseBook, NO_PRICE, touchMid } from '../book/dense-book.ts';
import { FeatureExtractor, type FeatureScope } from '../book/features.ts';
import {
  ASK,
  BID,
  CANCEL_SELF_MATCH,
  ER_CANCELED,
  ER_EXCH_TS,
  ER_FEE,
  ER_FILL,
  ER_ACK,
  ER_ID,
  ER_PRICE,
  ER_QTY,
  ER_REASON,
  ER_REJECT,
  ER_SIDE,
  ER_TS,
  ER_TYPE,
  ER_LEAVES,
  ER_MODIFIED,
  ER_MODIFY_REJECT,
  EV_KIND,
  EV_PRICE,
  EV_QTY,
  EV_RECV,
  EV_SIDE,
  EV_TS,
  MD_TRADE,
  NS_PER_MIN,
} from '../core/events.ts';
import type { RecordRing } from '../core/ring.ts';
import { Rng } from '../core/rng.ts';
import type { LatencyModel } from '../exchange/latency.ts';
import type { ContractSpec } from '../market/instruments.ts';
import { MODEL_EVERY_NS, type Predictor } from '../ml/inference/predictor.ts';
import type { EquityCurve } from '../portfolio/equity-curve.ts';
import { FL_MID, type FillLog } from '../portfolio/fill-log.ts';
import type { MarkoutTracker } from '../portfolio/markouts.ts';
import type { QuoteSamples } from '../portfolio/quote-samples.ts';
import { Portfolio } from '../portfolio/portfolio.ts';
import type { Alert, Severity } from '../risk/alerts.ts';
import { type DrawdownPath, RiskManager, type RiskLimits } from '../risk/risk-manager.ts';
import {
  ORDER_ACK,
  ORDER_CANCEL_REJECT,
  ORDER_CANCELED,
  ORDER_FILL,
  ORDER_MODIFIED,
  ORDER_MODIFY_REJECT,
  ORDER_REJECT,
  type OrderEvent,
  type ParamValues,
  type StandingPromise,
  type Strategy,
  type StrategyDefinition,
} from '../strategy/port.ts';
import { OrderManager } from './order-manager.ts';
import type { OrderTable } from './order-table.ts';
import { EngineContext } from './strategy-context.ts';
import { SessionRecorder } from './session-recorder.ts';
import {
  C_NOW,
  C_EQUITY,
  C_EXCH,
  C_MID,
  C_CHECKED_MID,
  C_CHECKED_FILLS,
  C_NEXT_SAMPLE,
  C_NEXT_QUOTE,
  C_NEXT_PREDICT,
  C_SIGNAL,
  C_SIGNAL_TS,
  C_DUE,
  C_QUIET_UNTIL,
  C_SAMPLES_DUE,
  C_COUNT,
  MAX_TIMERS,
  QS_BID,
  QS_ASK,
  QS_POS,
  QS_UNTIL,
  QS_BEFORE,
  QS_UPTO,
  QS_SIGNAL_LO,
  QS_SIGNAL_HI,
  QS_VOL_MOVES,
  QS_COUNT,
} from './trader-slots.ts';

/** The strategy an engine runs: its definition, resolved parameters, and where its state lives. */
export interface StrategySetup {
  def: StrategyDefinition;
  params: ParamValues;
  /** Seed of ctx.random() (the session's; default 0). */
  seed?: number;
  /** The declared state area (live simulation: shared memory that survives an engine restart). */
  state?: Float64Array;
}

/** A strategy's callback threw: names the strategy, the callback and the engine's times. */
export class StrategyError extends Error {
  constructor(
    readonly strategy: string,
    readonly callback: string,
    readonly exchTs: number,
    override readonly cause: unknown,
  ) {
    super(`strategy ${strategy} threw in ${callback}() at exchange time ${exchTs} ns: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'StrategyError';
  }
}

export interface TraderOptions {
  spec: ContractSpec;
  initialCapital: number;
  limits: RiskLimits;
  strategy: StrategySetup;
  latency: LatencyModel;
  /** Outbound order messages. */
  orders: RecordRing;
  sessionStartNs: number;
  sessionEndNs: number;
  /** Minutes before the session end when only position-reducing quotes are kept. */
  flattenMinutes: number;
  predictor?: Predictor | null;
  /** Market time between two model evaluations (ns). */
  predictIntervalNs?: number;
  /** Continue an existing portfolio (live simulation: shared memory that survives restarts). */
  portfolio?: Portfolio;
  /** Kill-switch and equity-reference state to continue (see RiskManager). */
  riskState?: Float64Array;
  /** Record the drawdown path of the risk checks (backtest sessions, see RiskManager). */
  drawdownPath?: DrawdownPath | null;
  /** Trading day index (daily loss restarts when it changes) and the mark for the opening equity. */
  day?: number;
  openingMarkTicks?: number;
  /** First order id (a restarted engine must not reuse ids still known to the exchange). */
  firstOrderId?: number;
  /** Sample our quotes every QUOTE_SAMPLE_NS into `quotes` (backtest reports; default off). */
  sampleQuotes?: boolean;
  /**
   * The features to compute (default 'all'). 'volatility' when nothing but the strategy reads
   * them (a backtest without the model): the other features are not computed at all. Not with a
   * predictor, which reads them all.
   */
  featureScope?: FeatureScope;
  /**
   * How market data comes in (default 'events'): each event, applied to the engine's own book
   * (onMarketData), or the top of book after each event, computed by the driver from the same
   * events (onMarketTop, quietBounds; a backtest without the model: only with featureScope
   * 'volatility', since the other features read the levels below the touch).
   */
  feed?: 'events' | 'top';
  /**
   * What a strategy's exception does (default 'throw'): 'throw' ends the input with a
   * StrategyError (a backtest session fails, naming it); 'stop' cancels the strategy's orders,
   * raises a STRATEGY_ERROR alert and goes on without it (the live simulation).
   */
  strategyErrors?: 'throw' | 'stop';
}

/** How far past the opposite touch a flattening order may fill (ticks): a market order's protection band. */
export const FLATTEN_PROTECTION_TICKS = 20;

export class Trader {
  readonly spec: ContractSpec;
  /** The engine's own book (empty with feed 'top': then only the touch is kept, in bestBid and bestAsk). */
  readonly book = new DenseBook();
  /** The touch after the last market event, ticks (NO_PRICE: a side empty). */
  bestBid = NO_PRICE;
  bestAsk = NO_PRICE;
  declare readonly features: FeatureExtractor; // set in the constructor (declared: no undefined-first field)
  /** The strategy this engine runs, its definition and what it sees. */
  readonly strategy: Strategy;
  readonly strategyDef: StrategyDefinition;
  readonly ctx: EngineContext;
  /** How market data comes in (TraderOptions.feed). */
  declare readonly feed: 'events' | 'top';
  declare private readonly fedTop: boolean; // feed === 'top'
  readonly risk: RiskManager;
  readonly portfolio: Portfolio;
  /** The order path: every order the strategy sends, checked and written to the outbound ring. */
  readonly om: OrderManager;
  /** The session's fill log, markouts, equity and quote samples. */
  readonly recorder: SessionRecorder;
  readonly fills: FillLog;
  readonly markouts: MarkoutTracker;
  readonly equity: EquityCurve;
  readonly quotes: QuoteSamples;
  readonly predictor: Predictor | null;

  // counters
  eventsProcessed = 0;
  /** Of those, the events taken on the quiet path (takeQuiet): the strategy check and the bench report the share. */
  quietEvents = 0;
  rejects = 0;
  cancelRejects = 0;
  /** Our resting orders the exchange cancelled by self-match prevention (CANCEL_SELF_MATCH). */
  selfMatchCancels = 0;

  /** Model evaluations made (see signal, signalTs). */
  predictions = 0;

  /** The engine's per-event doubles (trader-slots.ts C_*). */
  readonly slots = new Float64Array(C_COUNT);
  /** Trader clock: the receive time of the last input (ns). */
  get now(): number {
    return this.slots[C_NOW];
  }
  set now(ns: number) {
    this.slots[C_NOW] = ns;
  }
  /** Exchange time of the last market event received. */
  get lastExchTs(): number {
    return this.slots[C_EXCH];
  }
  /** Latest model output: expected mid move (ticks; NaN: none yet). */
  get signal(): number {
    return this.slots[C_SIGNAL];
  }
  /** Market time of the latest model output (-1: none yet). */
  get signalTs(): number {
    return this.slots[C_SIGNAL_TS];
  }
  /** [0]: engine time of the strategy's next timer (Infinity: none). */
  readonly nextTimer = new Float64Array([Infinity]);
  get nextTimerAt(): number {
    return this.nextTimer[0];
  }
  get orders(): OrderTable {
    return this.om.orders;
  }
  get ordersSent(): number {
    return this.om.ordersSent;
  }
  get cancelsSent(): number {
    return this.om.cancelsSent;
  }
  get outboundDrops(): number {
    return this.om.outboundDrops;
  }
  get openBuyQty(): number {
    return this.om.openBuyQty;
  }
  get openSellQty(): number {
    return this.om.openSellQty;
  }

  readonly sessionStartNs: number;
  readonly sessionEndNs: number;
  readonly reduceOnlyFromNs: number;
  private readonly predictIntervalNs: number;
  private quoting = false;
  /** The strategy's standing promise (null: it makes none, and is asked at every event it wakes for). */
  private readonly promise: StandingPromise | null;
  /** Which of the promise's optional checks it makes (StandingPromise.stands, .bands). */
  private readonly hasStands: boolean;
  private readonly hasBands: boolean;
  /** Strategy hooks present, and what wakes onMarket (0 every event, 1 the touch, 2 the touch and trades). */
  private readonly hasQuote: boolean;
  private readonly hasOnMarket: boolean;
  private readonly wake: number;
  /** The inputs of the last settled requote (see decisionStands). */
  private readonly standing = new Float64Array(QS_COUNT);
  /**
   * The last market event left the quotes standing with nothing pending (see quietBounds): an
   * event that leaves the touch where it is, before C_QUIET_UNTIL and the promise's time, changes
   * only the clocks and the counts. Any other input clears it.
   */
  private quiet = false;
  /**
   * An acknowledgement, or the end of an order already replaced, leaves a quiet engine quiet: it
   * changes none of what the standing decision rests on (the touch, the position, the times, the
   * engine's bands), and with no onOrder to tell and no stands() to ask again nothing else reads
   * it before the next market event. (On the bench's session: most reports are these.)
   */
  private readonly quietStays: boolean;
  /** The strategy callback running (null: none), for StrategyError; and a failed strategy's error. */
  callback: string | null = null;
  failed: StrategyError | null = null;
  /** The strategy's timers: engine time due (Infinity: none) and period (0: once). */
  private readonly timerAt = new Float64Array(MAX_TIMERS).fill(Infinity);
  private readonly timerEvery = new Float64Array(MAX_TIMERS);
  /** The order event handed to onOrder (one object, rewritten). */
  private readonly orderEvent: OrderEvent = { type: 0, id: 0, side: 0, price: 0, qty: 0, leaves: 0, exchTs: 0, recvTs: 0, quote: false };
  /** The last trade seen in market data (ticks, qty, side, exchange ns; NaN before any) and the previous touch. */
  readonly lastTrade = new Float64Array([NaN, NaN, NaN, NaN]);
  private prevBid = NO_PRICE;
  private prevAsk = NO_PRICE;
  readonly rng: Rng;
  private readonly stopOnError: boolean;
  /** limits.flattenOnKill: close the position after a kill-switch trip (see flatten). */
  private readonly flattenOnKill: boolean;
  /** A trip left a position to close (flattenOnKill): flatten() runs at each market event until it is flat. */
  private flattenDue = false;
  /** Flattening orders sent. */
  flattenOrders = 0;

  constructor(o: TraderOptions) {
    this.stopOnError = o.strategyErrors === 'stop';
    this.flattenOnKill = o.limits.flattenOnKill === true;
    this.spec = o.spec;
    this.risk = new RiskManager({ ...o.limits }, o.riskState, o.drawdownPath ?? null);
    this.portfolio = o.portfolio ?? new Portfolio(o.initialCapital, o.spec.tickValue, Math.max(64, o.limits.positionLimit * 2 + 2));
    const def = o.strategy.def;
    this.om = new OrderManager({
      out: o.orders,
      latency: o.latency,
      portfolio: this.portfolio,
      risk: this.risk,
      slots: this.slots,
      levels: def.levels ?? 1,
      firstOrderId: o.firstOrderId ?? 1,
    });
    this.sessionStartNs = o.sessionStartNs;
    this.sessionEndNs = o.sessionEndNs;
    this.reduceOnlyFromNs = o.sessionEndNs - o.flattenMinutes * NS_PER_MIN;
    this.predictor = o.predictor ?? null;
    if (this.predictor !== null && o.featureScope === 'volatility')
      throw new Error(`engine: featureScope 'volatility' with a predictor: the model reads every feature`);
    if (o.feed === 'top' && o.featureScope !== 'volatility')
      throw new Error(`engine: feed 'top' needs featureScope 'volatility': the other features read the levels below the touch`);
    this.feed = o.feed ?? 'events';
    this.fedTop = this.feed === 'top';
    this.features = new FeatureExtractor({}, o.featureScope ?? 'all');
    this.predictIntervalNs = o.predictIntervalNs ?? MODEL_EVERY_NS;
    const c = this.slots;
    const rec = new SessionRecorder(c, this.portfolio, o.sessionStartNs, o.sessionEndNs, o.sampleQuotes ?? false);
    this.recorder = rec;
    this.fills = rec.fills;
    this.markouts = rec.markouts;
    this.equity = rec.equity;
    this.quotes = rec.quotes;
    c[C_CHECKED_MID] = NaN;
    c[C_CHECKED_FILLS] = -1;
    c[C_DUE] = -Infinity; // the first market event schedules the timed checks
    c[C_SAMPLES_DUE] = -Infinity;
    c[C_SIGNAL] = NaN;
    c[C_SIGNAL_TS] = -1;
    this.now = o.sessionStartNs; // until the first input: never a time before the session
    // The mark until this engine sees a two-sided book: the previous engine's (a session roll), else none.
    c[C_MID] = o.openingMarkTicks ?? NaN;
    const opening = this.portfolio.equity(o.openingMarkTicks ?? 0);
    this.equity.push(o.sessionStartNs, opening);
    this.risk.startDay(opening, o.day ?? 0);
    this.rng = new Rng(o.strategy.seed ?? 0);
    this.strategyDef = def;
    this.ctx = new EngineContext(this, o.strategy.state ?? new Float64Array(def.stateSlots ?? 0));
    this.callback = 'create';
    let st: Strategy;
    try {
      st = def.create(o.strategy.params, this.ctx);
      if (st === null || typeof st !== 'object') throw new Error(`create() returned ${st === null ? 'null' : typeof st}, expected a strategy object`);
    } catch (e) {
      if (!this.stopOnError) throw new StrategyError(def.name, 'create', c[C_EXCH], e);
      st = {}; // the engine runs on without it (strategyThrew: alert, nothing sent)
      this.strategy = st;
      this.strategyThrew(e);
    }
    this.callback = null;
    this.strategy = st;
    this.promise = st.standing ?? null;
    this.hasStands = typeof this.promise?.stands === 'function';
    this.hasBands = typeof this.promise?.bands === 'function';
    this.hasQuote = typeof st.quote === 'function' && (def.levels ?? 1) > 0;
    this.hasOnMarket = typeof st.onMarket === 'function';
    this.wake = def.wakes === 'book' ? 0 : def.wakes === 'touch' ? 1 : 2;
    this.quietStays = st.onOrder === undefined && !this.hasStands;
  }

  /** One market-data record, at its receive time, applied to the engine's own book. The per-event hot path (hot-path rule 2). */
  onMarketData(d: Float64Array, off: number): void {
    const b = this.book;
    b.apply(d[off + EV_KIND], d[off + EV_SIDE], d[off + EV_PRICE], d[off + EV_QTY]);
    this.onMarketTop(d, off, b.bestBid, b.bestAsk);
  }

  /**
   * The common event of a backtest without the model (feed 'top'), which the driver takes in its
   * loop, a run at a time: when the last input left the quotes standing with nothing pending
   * (`quiet`), an event that leaves the touch at (bestBid, bestAsk) and comes before anything
   * falls due moves only the clocks and the counts, which is all onMarketTop would do with it
   * (the mid, the equity, the quotes all stand). After each input the driver reads the bounds:
   * such an event has EV_TS < b[0] (C_QUIET_UNTIL: the samples and the model, the reduce-only
   * window, the promise's first bound; markouts fall due within a run, see takeQuiet) and
   * EV_TS <= b[1] (the promise's second bound); b[0] = -Infinity: none is quiet before the next
   * input. Only a strategy with a standing promise has quiet events.
   * (98.5 % of the bench's session's events are quiet with the built-in market maker.)
   */
  quietBounds(b: Float64Array): void {
    b[0] = this.quiet ? this.slots[C_QUIET_UNTIL] : -Infinity;
    b[1] = this.standing[QS_UPTO];
  }

  /**
   * A run of n quiet events (see quietBounds), the last one at d[off]: what onMarketTop would
   * have done with each of them, in one step. (Market events come in time order, EV_TS never
   * decreasing, so the last one's times are the run's latest.) The markouts due by its last
   * event resolve here: at the run's mid, which is the mid of every event in it, so each comes
   * out as at the first event at or after its due time (the bench's session: 96k of its events
   * would otherwise leave the run, one per markout falling due).
   */
  takeQuiet(n: number, d: Float64Array, off: number): void {
    const c = this.slots;
    c[C_NOW] = d[off + EV_RECV];
    c[C_EXCH] = d[off + EV_TS];
    this.features.countEvents(n, d, off);
    this.eventsProcessed += n;
    this.quietEvents += n;
    if (c[C_EXCH] >= this.markouts.due[0]) this.timedChecks();
  }

  /** One market-data record, at its receive time, with the touch after it (bb, ba). */
  onMarketTop(d: Float64Array, off: number, bb: number, ba: number): void {
    const c = this.slots;
    this.quiet = false;
    const exTs = d[off + EV_TS];
    c[C_NOW] = d[off + EV_RECV];
    c[C_EXCH] = exTs;
    this.bestBid = bb;
    this.bestAsk = ba;
    if (!this.features.onQuietEvent(bb, ba, d, off)) this.features.onEvent(bb, ba, this.book, d, off);
    this.eventsProcessed++;
    const trade = d[off + EV_KIND] === MD_TRADE;
    if (trade) this.noteTrade(d, off);
    if (bb === NO_PRICE || ba === NO_PRICE) return;
    const mid = (bb + ba) * 0.5;
    c[C_MID] = mid;
    if (exTs >= c[C_DUE]) this.timedChecks();
    // Equity moves only with the mid or a fill. Most events change neither (the benchmark's ES
    // session: 73k of its 5.76M events move the mid), and checking an unchanged value again
    // changes nothing unless a warning or trip is still pending (then C_CHECKED_MID is NaN).
    if (mid !== c[C_CHECKED_MID] || this.portfolio.fills !== c[C_CHECKED_FILLS]) {
      if (this.checkEquity()) this.killed();
    }
    if (this.flattenDue) this.flatten();
    // The opening snapshot arrives as a burst at the session start; quote once it is complete.
    if (!this.quoting) {
      if (exTs <= this.sessionStartNs) return;
      this.quoting = true;
    }
    if (this.promise !== null) {
      if (this.om.settled && this.decisionStands(bb, ba)) {
        // Quiet from here unless a warning or trip is pending (C_CHECKED_MID is NaN then); only
        // fed the touch (the engine's own book, and the model's features, need every event).
        if (c[C_CHECKED_MID] === mid && this.fedTop) this.goQuiet();
        return;
      }
    } else if (!this.wakesFor(bb, ba, trade)) return;
    if (this.hasOnMarket) this.callOnMarket();
    this.requote();
  }

  // onMarketTop's rarer branches are methods of their own: its bytecode must stay under V8's
  // limit of 460 bytes for the driver's loop to inline it (hot-path rule 7).

  /** The standing decision's promise bounds how long the next events are quiet (see quietBounds). */
  private goQuiet(): void {
    const q = this.standing;
    const c = this.slots;
    try {
      this.promise!.bounds(q, QS_BEFORE);
    } catch (e) {
      this.callback = 'standing.bounds';
      this.strategyThrew(e);
      return;
    }
    this.quiet = true;
    const until = q[QS_UNTIL] < q[QS_BEFORE] ? q[QS_UNTIL] : q[QS_BEFORE];
    c[C_QUIET_UNTIL] = c[C_SAMPLES_DUE] < until ? c[C_SAMPLES_DUE] : until;
  }

  /** Without a promise: whether this event is one the strategy wakes for (its `wakes`). */
  private wakesFor(bb: number, ba: number, trade: boolean): boolean {
    if (this.wake !== 0 && bb === this.prevBid && ba === this.prevAsk && !(trade && this.wake === 2)) {
      // Not an event the strategy wakes for: only a requote still short of its targets goes on.
      if (this.hasQuote && !this.om.settled) this.requote();
      return false;
    }
    this.prevBid = bb;
    this.prevAsk = ba;
    return true;
  }

  private noteTrade(d: Float64Array, off: number): void {
    const t = this.lastTrade;
    t[0] = d[off + EV_PRICE];
    t[1] = d[off + EV_QTY];
    t[2] = d[off + EV_SIDE];
    t[3] = d[off + EV_TS];
  }

  /**
   * True when a requote now would change nothing: the last one left every target as decided, the
   * touch and the position are what they were then, the reduce-only window has not begun since,
   * and the strategy's promise holds. Orders, fills and reports clear the settled state.
   */
  private decisionStands(bb: number, ba: number): boolean {
    const q = this.standing;
    const c = this.slots;
    if (bb !== q[QS_BID] || ba !== q[QS_ASK] || this.portfolio.position !== q[QS_POS] || c[C_EXCH] >= q[QS_UNTIL]) return false;
    if (this.hasBands) {
      // The promise's bands, checked here rather than by a call into the strategy at every event.
      const sig = c[C_SIGNAL];
      const lo = q[QS_SIGNAL_LO];
      const hi = q[QS_SIGNAL_HI];
      if (q[QS_VOL_MOVES] === q[QS_VOL_MOVES] && !this.features.volatilityStands(q, QS_VOL_MOVES)) return false;
      if (!((sig >= lo && sig <= hi) || (sig !== sig && (lo !== lo || (lo === -Infinity && hi === Infinity))))) return false;
    }
    return !this.hasStands || this.promiseStands();
  }

  /** The promise's stands(); a throw is the strategy's error like any callback's (then nothing stands). */
  private promiseStands(): boolean {
    try {
      return this.promise!.stands!(this.ctx);
    } catch (e) {
      this.callback = 'standing.stands';
      this.strategyThrew(e);
      return false;
    }
  }

  /**
   * What falls due by exchange time (markouts, equity and quote samples, the model), at most
   * one check per event in all: C_DUE is the earliest of their due times. The model's signal
   * and the equity check read nothing of each other, so their order within an event is free.
   */
  private timedChecks(): void {
    const c = this.slots;
    const exTs = c[C_EXCH];
    const m = this.markouts;
    if (exTs >= m.due[0]) m.resolve(c, C_EXCH);
    if (exTs >= c[C_NEXT_SAMPLE]) this.recorder.sampleEquity();
    if (exTs >= c[C_NEXT_QUOTE]) this.recorder.sampleQuotes(this.om);
    if (this.predictor !== null && exTs >= c[C_NEXT_PREDICT]) this.runModel();
    this.scheduleChecks();
  }

  private scheduleChecks(): void {
    const c = this.slots;
    let due = c[C_NEXT_SAMPLE];
    if (c[C_NEXT_QUOTE] < due) due = c[C_NEXT_QUOTE];
    if (this.predictor !== null && c[C_NEXT_PREDICT] < due) due = c[C_NEXT_PREDICT];
    c[C_SAMPLES_DUE] = due;
    if (this.markouts.due[0] < due) due = this.markouts.due[0];
    c[C_DUE] = due;
  }

  /** The equity check at the mid C_MID; true when it tripped the kill switch. */
  private checkEquity(): boolean {
    const c = this.slots;
    const p = this.portfolio;
    c[C_CHECKED_FILLS] = p.fills;
    p.writeEquity(c, C_MID, C_EQUITY);
    const tripped = this.risk.checkEquity(c, C_NOW);
    // Checking the same value again changes nothing once no warning or trip is pending
    // (risk.settled); until then a NaN, which no mid equals, makes the next event check again.
    // (Two stores: hot-path rule 4.)
    c[C_CHECKED_MID] = c[C_MID];
    if (!this.risk.settled) c[C_CHECKED_MID] = NaN;
    return tripped;
  }

  /** The model's prediction from the current features (a method of its own, so predict() can inline here: hot-path rule 3). */
  private runModel(): void {
    const c = this.slots;
    c[C_SIGNAL] = this.predictor!.predict(this.features.values);
    c[C_SIGNAL_TS] = c[C_EXCH];
    this.predictions++;
    c[C_NEXT_PREDICT] = c[C_EXCH] + this.predictIntervalNs;
  }

  /** One execution report, at its receive time. */
  onExecReport(d: Float64Array, off: number): void {
    // A report that changes no input of the standing decision leaves a quiet engine quiet
    // (quietStays): the next market event is then as quiet as it would have been without it.
    const wasQuiet = this.quiet;
    this.quiet = false;
    this.now = d[off + ER_TS];
    const type = d[off + ER_TYPE];
    const om = this.om;
    const slot = om.orders.find(d[off + ER_ID]);
    if (slot < 0) {
      // Not in our table: an order of a previous engine instance (restart, session roll). A
      // fill is a fill: book it. Anything else about such an order needs no action.
      if (type === ER_FILL) {
        this.bookFill(d, off, d[off + ER_SIDE], d[off + ER_ID]);
        this.tellOrder(ORDER_FILL, d, off, false);
      }
      return;
    }
    const quote = om.quoteOrder(slot);
    if (type === ER_ACK) {
      om.acked(slot);
      this.tellOrder(ORDER_ACK, d, off, quote);
      this.quiet = wasQuiet && this.quietStays;
      return;
    }
    if (type === ER_FILL) {
      const side = om.orders.side[slot];
      om.filled(slot, d[off + ER_QTY]);
      this.bookFill(d, off, side, d[off + ER_ID]);
      this.tellOrder(ORDER_FILL, d, off, quote);
    } else if (type === ER_CANCELED || type === ER_REJECT) {
      om.ended(slot);
      if (type === ER_REJECT) this.rejects++;
      else if (d[off + ER_REASON] === CANCEL_SELF_MATCH) this.selfMatchCancels++;
      this.tellOrder(type === ER_REJECT ? ORDER_REJECT : ORDER_CANCELED, d, off, quote);
      // The end of an order already replaced changes no input of the decision (the position, the
      // touch, the features): a requote now would decide what stands. Most cancel confirmations
      // are these (77k of 90k per session on the bench's).
      if (om.settled) {
        this.quiet = wasQuiet && this.quietStays;
        return;
      }
    } else if (type === ER_MODIFIED || type === ER_MODIFY_REJECT) {
      // Neither changes the position, the touch or a quote order (only imperative orders are
      // modified): no requote.
      om.modifyAnswered(slot, d, off);
      this.tellOrder(type === ER_MODIFIED ? ORDER_MODIFIED : ORDER_MODIFY_REJECT, d, off, quote);
      return;
    } else {
      this.cancelRejects++; // the order finished before our cancel arrived
      this.tellOrder(ORDER_CANCEL_REJECT, d, off, quote);
      return;
    }
    if (this.quoting) this.requote();
  }

  /** Hands the strategy one of its order events (when it listens). */
  private tellOrder(type: number, d: Float64Array, off: number, quote: boolean): void {
    const st = this.strategy;
    if (st.onOrder === undefined || this.failed !== null) return;
    const ev = this.orderEvent;
    ev.type = type;
    ev.id = d[off + ER_ID];
    ev.side = d[off + ER_SIDE];
    ev.price = d[off + ER_PRICE];
    ev.qty = d[off + ER_QTY];
    ev.leaves = d[off + ER_LEAVES];
    ev.exchTs = d[off + ER_EXCH_TS];
    ev.recvTs = d[off + ER_TS];
    ev.quote = quote;
    this.callback = 'onOrder';
    try {
      st.onOrder(this.ctx, ev);
    } catch (e) {
      this.strategyThrew(e);
    }
    this.callback = null;
  }

  private bookFill(d: Float64Array, off: number, side: number, id: number): void {
    const qty = d[off + ER_QTY];
    const price = d[off + ER_PRICE];
    const p = this.portfolio;
    p.onFillAt(side, price, qty, d, off + ER_FEE);
    const rec = this.recorder;
    // Written first and read back (hot-path rule 4).
    rec.fills.row[FL_MID] = touchMid(this.bestBid, this.bestAsk);
    const mid = rec.fills.row[FL_MID];
    rec.recordFill(d, off, side, id, price, qty);
    if (rec.markouts.due[0] < this.slots[C_DUE]) this.slots[C_DUE] = rec.markouts.due[0];
    this.risk.onPosition(this.now, p.position);
    // With a side empty the fill is checked at the last two-sided mid (none yet: nothing to mark at).
    if (mid === mid) this.slots[C_MID] = mid;
    else if (this.slots[C_MID] !== this.slots[C_MID]) return;
    if (this.checkEquity()) this.killed();
  }

  /** Asks the strategy for its quote targets and sends the cancels and new orders to get there. */
  private requote(): void {
    if (!this.hasQuote || this.risk.killed || this.failed !== null) return;
    const bb = this.bestBid;
    const ba = this.bestAsk;
    if (bb === NO_PRICE || ba === NO_PRICE || ba <= bb) return;
    if (this.lastExchTs >= this.sessionEndNs) return;
    const om = this.om;
    const reduceOnly = this.lastExchTs >= this.reduceOnlyFromNs;
    om.reduceOnly = reduceOnly;
    this.callback = 'quote';
    try {
      this.strategy.quote!(this.ctx, om.targets);
    } catch (e) {
      this.strategyThrew(e);
      return;
    }
    this.callback = null;
    // Anything short of the targets (an order refused, a cancel not sent) is retried at the next
    // input, as before: only a fully standing result is remembered.
    if (!om.reconcile()) return;
    const q = this.standing;
    q[QS_BID] = bb;
    q[QS_ASK] = ba;
    q[QS_POS] = this.portfolio.position;
    q[QS_UNTIL] = reduceOnly ? Infinity : this.reduceOnlyFromNs;
    if (this.promise === null) return;
    this.settleBand();
    // The decision stands from here as it would at the next market event: quiet now, rather than
    // after one more event through onMarketTop, when that event would find what its checks find
    // here (the equity checked at this mid and fill count; only fed the touch, as there).
    const c = this.slots;
    if (this.fedTop && this.om.settled && c[C_CHECKED_MID] === c[C_MID] && c[C_CHECKED_FILLS] === this.portfolio.fills && this.decisionStands(bb, ba))
      this.goQuiet();
  }

  /**
   * The promise's settle() (and bands()) for the requote that just settled, before the next market
   * event changes the features: what the decision rests on.
   */
  private settleBand(): void {
    this.callback = 'standing.settle';
    try {
      this.promise!.settle(this.ctx);
      if (this.hasBands) {
        this.callback = 'standing.bands';
        this.promise!.bands!(this.standing, QS_SIGNAL_LO);
      }
    } catch (e) {
      this.strategyThrew(e);
    }
    this.callback = null;
  }

  /** onMarket, where the strategy acts imperatively (guards as for a requote). */
  private callOnMarket(): void {
    if (this.risk.killed || this.failed !== null || this.bestAsk <= this.bestBid || this.lastExchTs >= this.sessionEndNs) return;
    this.om.reduceOnly = this.lastExchTs >= this.reduceOnlyFromNs;
    this.callback = 'onMarket';
    try {
      this.strategy.onMarket!(this.ctx);
    } catch (e) {
      this.strategyThrew(e);
    }
    this.callback = null;
  }

  /** Arms timer `id` at engine time `at`, every `period` ns after (0: once). */
  setTimer(id: number, at: number, period: number): void {
    if (!Number.isInteger(id) || id < 0 || id >= MAX_TIMERS) throw new Error(`timer id ${id}: expected an integer in 0..${MAX_TIMERS - 1}`);
    if (!(at === at) || !(period >= 0)) throw new Error(`timer ${id}: expected a time and a period >= 0 in ns, got ${at}, ${period}`);
    // Never in the past: a timer set for a time already gone fires at the next input.
    this.timerAt[id] = at > this.slots[C_NOW] ? at : this.slots[C_NOW];
    this.timerEvery[id] = period;
    this.scheduleTimers();
    this.quiet = false;
  }

  clearTimer(id: number): void {
    if (id >= 0 && id < MAX_TIMERS) this.timerAt[id] = Infinity;
    this.scheduleTimers();
  }

  private scheduleTimers(): void {
    let t = Infinity;
    for (let i = 0; i < MAX_TIMERS; i++) if (this.timerAt[i] < t) t = this.timerAt[i];
    this.nextTimer[0] = t;
  }

  /**
   * The strategy's timers due at nextTimerAt (the driver calls this when that is the next
   * input), in time order, then a requote: live, a timer fires on the
   * local clock, which is the engine's receive-time clock here.
   */
  onTimer(): void {
    this.quiet = false;
    const c = this.slots;
    const now = this.nextTimer[0];
    if (now > c[C_NOW]) c[C_NOW] = now;
    for (;;) {
      let id = -1;
      for (let i = 0; i < MAX_TIMERS; i++) if (this.timerAt[i] <= now && (id < 0 || this.timerAt[i] < this.timerAt[id])) id = i;
      if (id < 0) break;
      const p = this.timerEvery[id];
      this.timerAt[id] = p > 0 ? this.timerAt[id] + p : Infinity;
      if (p > 0 && this.timerAt[id] <= now) this.timerAt[id] = now + p; // a late engine: no burst of missed ticks
      const st = this.strategy;
      if (st.onTimer !== undefined && this.failed === null && !this.risk.killed) {
        this.om.reduceOnly = this.lastExchTs >= this.reduceOnlyFromNs;
        this.callback = 'onTimer';
        try {
          st.onTimer(this.ctx, id);
        } catch (e) {
          this.strategyThrew(e);
        }
        this.callback = null;
      }
    }
    this.scheduleTimers();
    if (this.quoting) this.requote();
  }

  /**
   * A strategy callback threw: quoting stops, its orders are cancelled and an alert is raised;
   * the session (or live engine) goes on without it. A backtest fails the session with the error
   * (session.ts); the live simulation keeps serving with the strategy stopped.
   */
  private strategyThrew(e: unknown): void {
    const name = this.strategyDef.name;
    const err = new StrategyError(name, this.callback ?? 'callback', this.slots[C_EXCH], e);
    this.callback = null;
    if (!this.stopOnError) throw err;
    if (this.failed !== null) return;
    this.failed = err;
    this.om.cancelAll();
    this.quiet = false;
    this.risk.alerts.add(this.now, 'critical', 'STRATEGY_ERROR', err.message, 0, 0);
  }

  /** Cancels every open order (kill switch, shutdown, restart). */
  cancelAll(): void {
    this.quiet = false;
    this.om.cancelAll();
  }

  /** The latest prediction of a model run elsewhere (the inference worker in simulation). */
  setPrediction(value: number, exchTs: number, count: number): void {
    this.quiet = false;
    this.slots[C_SIGNAL] = value;
    this.slots[C_SIGNAL_TS] = exchTs;
    this.predictions = count;
  }

  /** Raises an alert from outside the engine (a supervisor's event, e.g. a restart) at `ts`. */
  alert(ts: number, severity: Severity, code: string, message: string, value: number, limit: number): void {
    this.risk.alerts.add(ts, severity, code, message, value, limit);
  }

  /** Alerts raised after the first `seen` of this engine's alerts (oldest first, within the log's cap). */
  alertsSince(seen: number): Alert[] {
    return this.risk.alerts.since(seen);
  }

  /** How many alerts this engine has raised. */
  get alertCount(): number {
    return this.risk.alerts.total;
  }

  /**
   * Trips the kill switch from outside the engine (e.g. a supervisor) at engine time `ts`, the
   * time of the supervisor's event: before its first input the engine's own clock still reads
   * the session open.
   */
  kill(ts: number, code: string, message: string): void {
    if (this.risk.trip(ts, code, message, 0, 0)) this.killed();
  }

  /** The kill switch has just tripped: every order cancelled, and with flattenOnKill the position closed. */
  private killed(): void {
    this.cancelAll();
    if (!this.flattenOnKill) return;
    this.flattenDue = true;
    this.flatten();
  }

  /**
   * One step of closing the position after a trip (flattenOnKill): once our cancels are confirmed
   * (no order of ours can fill any more, so the quantity is exact), an IOC order for the whole
   * position through the exchange, limited FLATTEN_PROTECTION_TICKS past the opposite touch (as
   * a CME market order's protection band); what it leaves is sent again at a later market event
   * (at most one attempt per event: a thin book is not hammered every round trip). Needs a
   * two-sided touch and the session still open.
   */
  private flatten(): void {
    const pos = this.portfolio.position;
    if (pos === 0) {
      if (this.om.openBuyQty === 0 && this.om.openSellQty === 0) this.flattenDue = false;
      return;
    }
    if (this.om.openBuyQty !== 0 || this.om.openSellQty !== 0) return;
    const bb = this.bestBid;
    const ba = this.bestAsk;
    if (bb === NO_PRICE || ba === NO_PRICE || this.lastExchTs >= this.sessionEndNs) return;
    const id = pos > 0 ? this.om.sendFlatten(ASK, bb - FLATTEN_PROTECTION_TICKS, pos) : this.om.sendFlatten(BID, ba + FLATTEN_PROTECTION_TICKS, -pos);
    if (id === 0) return;
    this.flattenOrders++;
    const qty = pos > 0 ? pos : -pos;
    this.risk.alerts.add(
      this.now,
      'warning',
      'KILL_FLATTEN',
      `kill switch: closing the position of ${pos} with an IOC ${pos > 0 ? 'sell' : 'buy'} of ${qty} (order ${id})`,
      pos,
      0,
    );
  }

  /** Mid in ticks of the touch after the last market event (NaN when a side is empty). */
  mid(): number {
    return touchMid(this.bestBid, this.bestAsk);
  }

  /**
   * The mark, in ticks: the mid of the last two-sided touch this engine saw (NaN: none). Equity,
   * the risk checks and the session's close are marked here, never at a price no book showed.
   */
  get markTicks(): number {
    return this.slots[C_MID];
  }

  /**
   * Closes the session's books: the last equity sample at `endTs`, marked at markTicks. A session
   * ending with a side empty says so in an alert; one that never saw a two-sided book, with a
   * position open, has no price to mark it at and throws (never an invented one).
   */
  finish(endTs: number): void {
    const mark = this.markTicks;
    const pos = this.portfolio.position;
    if (pos !== 0 && mark !== mark) throw new Error(`a position of ${pos} is open at the session end and no two-sided book was seen: no price to mark it at`);
    if (pos !== 0 && this.mid() !== mark) {
      const price = mark * this.spec.tickSize;
      this.risk.alerts.add(
        endTs,
        'warning',
        'MARK_LAST_TWO_SIDED',
        `the book ends with a side empty: the open position of ${pos} is marked at the last two-sided mid, ${price}`,
        mark,
        0,
      );
    }
    this.recorder.finish(endTs, mark === mark ? mark : 0);
  }
}
