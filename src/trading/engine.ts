// The trading side of the engine: a local L2 book built only from (delayed) market data,
// features, the model's signal, the market maker, risk checks, orders, position and P&L.
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
  ER_LIQ,
  ER_PRICE,
  ER_QTY,
  ER_REASON,
  ER_REJECT,
  ER_SENT,
  ER_SIDE,
  ER_TS,
  ER_TYPE,
  EV_KIND,
  EV_PRICE,
  EV_QTY,
  EV_RECV,
  EV_SIDE,
  EV_TS,
  FLAG_POST_ONLY,
  NS_PER_MIN,
  OM_CANCEL,
  OM_FLAGS,
  OM_ID,
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
import type { Latency } from '../exchange/latency.ts';
import type { ContractSpec } from '../market/instruments.ts';
import type { Predictor } from '../ml/predictor.ts';
import { EquityCurve } from '../portfolio/equity-curve.ts';
import { FL_EXCH_TS, FL_FEE, FL_LIQ, FL_MID, FL_ORDER_ID, FL_POSITION, FL_PRICE, FL_QTY, FL_RECV_TS, FL_SENT_TS, FL_SIDE, FL_TRADE_PNL, FillLog } from '../portfolio/fill-log.ts';
import { MarkoutTracker } from '../portfolio/markouts.ts';
import { QUOTE_SAMPLE_NS, QuoteSamples } from '../portfolio/quote-samples.ts';
import { Portfolio } from '../portfolio/portfolio.ts';
import type { Alert, Severity } from '../risk/alerts.ts';
import { type DrawdownPath, RISK_OK, RiskManager, type RiskLimits } from '../risk/risk-manager.ts';
import { IN_SIGMA, IN_SIGMA_LO, IN_SIGNAL, MarketMaker, type QuoteParams } from '../strategy/market-maker.ts';
import { ORD_FREE, ORD_LIVE, ORD_PENDING_CANCEL, ORD_PENDING_NEW, OrderTable } from './order-table.ts';
import {
  MAX_ORDERS_PER_SIDE,
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
  C_COUNT,
  QS_BID,
  QS_ASK,
  QS_POS,
  QS_SIGNAL_HI,
  QS_SIGNAL_LO,
  QS_SUM_LO,
  QS_SUM_NOW,
  QS_UNTIL,
  QS_VOL_MOVES,
  QS_VOL_UNTIL,
  QS_TRIAL_SUM,
  QS_TRIAL_SIGMA,
  QS_COUNT,
  BAND_TRIALS,
} from './engine-slots.ts';

export interface EngineOptions {
  spec: ContractSpec;
  initialCapital: number;
  limits: RiskLimits;
  quote: QuoteParams;
  latency: Latency;
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
}

export class Engine {
  readonly spec: ContractSpec;
  /** The engine's own book (empty with feed 'top': then only the touch is kept, in bestBid and bestAsk). */
  readonly book = new DenseBook();
  /** The touch after the last market event, ticks (NO_PRICE: a side empty). */
  bestBid = NO_PRICE;
  bestAsk = NO_PRICE;
  declare readonly features: FeatureExtractor; // set in the constructor (declared: no undefined-first field)
  readonly mm: MarketMaker;
  /** How market data comes in (EngineOptions.feed). */
  declare readonly feed: 'events' | 'top';
  declare private readonly fedTop: boolean; // feed === 'top'
  readonly risk: RiskManager;
  readonly portfolio: Portfolio;
  readonly orders: OrderTable;
  readonly fills = new FillLog();
  readonly markouts = new MarkoutTracker(this.fills);
  readonly equity = new EquityCurve();
  readonly predictor: Predictor | null;

  // counters
  eventsProcessed = 0;
  ordersSent = 0;
  cancelsSent = 0;
  rejects = 0;
  cancelRejects = 0;
  /** Our resting orders the exchange cancelled by self-match prevention (CANCEL_SELF_MATCH). */
  selfMatchCancels = 0;
  outboundDrops = 0;

  /** Model evaluations made (see signal, signalTs). */
  predictions = 0;

  private readonly clock = new Float64Array(C_COUNT);
  /** Engine clock: the receive time of the last input (ns). */
  get now(): number {
    return this.clock[C_NOW];
  }
  set now(ns: number) {
    this.clock[C_NOW] = ns;
  }
  /** Exchange time of the last market event received. */
  get lastExchTs(): number {
    return this.clock[C_EXCH];
  }
  /** Latest model output: expected mid move (ticks; NaN: none yet). */
  get signal(): number {
    return this.clock[C_SIGNAL];
  }
  /** Market time of the latest model output (-1: none yet). */
  get signalTs(): number {
    return this.clock[C_SIGNAL_TS];
  }

  private readonly out: RecordRing;
  private readonly latency: Latency;
  private readonly orderLink = new FifoLink();
  private readonly sessionStartNs: number;
  private readonly sessionEndNs: number;
  private readonly reduceOnlyFromNs: number;
  private readonly predictIntervalNs: number;
  readonly quotes = new QuoteSamples();
  /** Working (not being cancelled) order slot per side, -1 if none. */
  private readonly working = new Int32Array([-1, -1]);
  /** Orders per side still open at the exchange as far as we know (incl. cancels in flight). */
  private readonly openCount = new Int32Array(2);
  openBuyQty = 0;
  openSellQty = 0;
  private quoting = false;
  /** The last requote left every side as decided (see quotesStand); its inputs in `standing`. */
  private settled = false;
  private readonly standing = new Float64Array(QS_COUNT);
  /**
   * The band of the last settled requote is still to compute (standBand): at the next market
   * event, before the features change, from the same inputs. Most settled requotes are followed
   * by another (the cancel confirmations of the orders they replaced) before any event reads it.
   */
  private bandDue = false;
  /**
   * The last market event left the quotes standing with nothing pending (see quietBounds): an
   * event that leaves the touch where it is, before C_QUIET_UNTIL and the volatility band's
   * time, changes only the clocks and the counts. Any other input clears it.
   */
  private quiet = false;

  constructor(o: EngineOptions) {
    this.spec = o.spec;
    this.out = o.orders;
    this.latency = o.latency;
    this.mm = new MarketMaker(o.quote);
    this.risk = new RiskManager({ ...o.limits }, o.riskState, o.drawdownPath ?? null);
    this.portfolio = o.portfolio ?? new Portfolio(o.initialCapital, o.spec.tickValue, Math.max(64, o.limits.positionLimit * 2 + 2));
    this.orders = new OrderTable(64, o.firstOrderId ?? 1);
    this.sessionStartNs = o.sessionStartNs;
    this.sessionEndNs = o.sessionEndNs;
    this.reduceOnlyFromNs = o.sessionEndNs - o.flattenMinutes * NS_PER_MIN;
    this.predictor = o.predictor ?? null;
    if (this.predictor !== null && o.featureScope === 'volatility') throw new Error(`engine: featureScope 'volatility' with a predictor: the model reads every feature`);
    if (o.feed === 'top' && o.featureScope !== 'volatility') throw new Error(`engine: feed 'top' needs featureScope 'volatility': the other features read the levels below the touch`);
    this.feed = o.feed ?? 'events';
    this.fedTop = this.feed === 'top';
    this.features = new FeatureExtractor({}, o.featureScope ?? 'all');
    this.predictIntervalNs = o.predictIntervalNs ?? 10e6;
    const c = this.clock;
    c[C_NEXT_SAMPLE] = o.sessionStartNs + NS_PER_MIN;
    c[C_NEXT_QUOTE] = o.sampleQuotes ? o.sessionStartNs : Infinity;
    c[C_CHECKED_MID] = NaN;
    c[C_CHECKED_FILLS] = -1;
    c[C_DUE] = -Infinity; // the first market event schedules the timed checks
    c[C_SIGNAL] = NaN;
    c[C_SIGNAL_TS] = -1;
    this.now = o.sessionStartNs; // until the first input: never a time before the session
    const opening = this.portfolio.equity(o.openingMarkTicks ?? 0);
    this.equity.push(o.sessionStartNs, opening);
    this.risk.startDay(opening, o.day ?? 0);
  }

  /** One market-data record, at its receive time, applied to the engine's own book. The per-event hot path: allocates nothing. */
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
   * such an event has EV_TS < b[0] (C_QUIET_UNTIL: the timed checks, the reduce-only window) and
   * EV_TS <= b[1] (the volatility band's time); b[0] = -Infinity: none is quiet before the next
   * input. (95 % of the bench's session's events are quiet.)
   */
  quietBounds(b: Float64Array): void {
    b[0] = this.quiet ? this.clock[C_QUIET_UNTIL] : -Infinity;
    b[1] = this.standing[QS_VOL_UNTIL];
  }

  /**
   * A run of n quiet events (see quietBounds), the last one at d[off]: what onMarketTop would
   * have done with each of them, in one step. (Market events come in time order, EV_TS never
   * decreasing, so the last one's times are the run's latest.)
   */
  takeQuiet(n: number, d: Float64Array, off: number): void {
    const c = this.clock;
    c[C_NOW] = d[off + EV_RECV];
    c[C_EXCH] = d[off + EV_TS];
    this.features.countEvents(n, d, off);
    this.eventsProcessed += n;
  }

  /** One market-data record, at its receive time, with the touch after it (bb, ba). */
  onMarketTop(d: Float64Array, off: number, bb: number, ba: number): void {
    const c = this.clock;
    this.quiet = false;
    if (this.bandDue) this.settleBand();
    const exTs = d[off + EV_TS];
    c[C_NOW] = d[off + EV_RECV];
    c[C_EXCH] = exTs;
    this.bestBid = bb;
    this.bestAsk = ba;
    if (!this.features.onQuietEvent(bb, ba, d, off)) this.features.onEvent(bb, ba, this.book, d, off);
    this.eventsProcessed++;
    if (bb === NO_PRICE || ba === NO_PRICE) return;
    const mid = (bb + ba) * 0.5;
    c[C_MID] = mid;
    if (exTs >= c[C_DUE]) this.timedChecks();
    // Equity moves only with the mid or a fill. Most events change neither (the benchmark's ES
    // session: 73k of its 5.76M events move the mid), and checking an unchanged value again
    // changes nothing unless a warning or trip is still pending (then C_CHECKED_MID is NaN).
    if (mid !== c[C_CHECKED_MID] || this.portfolio.fills !== c[C_CHECKED_FILLS]) {
      if (this.checkEquity()) this.cancelAll();
    }
    // The opening snapshot arrives as a burst at the session start; quote once it is complete.
    if (!this.quoting) {
      if (exTs <= this.sessionStartNs) return;
      this.quoting = true;
    }
    if (this.settled && this.quotesStand(bb, ba)) {
      // Quiet from here unless a warning or trip is pending (C_CHECKED_MID is NaN then); only
      // fed the touch (the engine's own book, and the model's features, need every event).
      if (c[C_CHECKED_MID] === mid && this.fedTop) {
        this.quiet = true;
        const until = this.standing[QS_UNTIL];
        c[C_QUIET_UNTIL] = c[C_DUE] < until ? c[C_DUE] : until;
      }
      return;
    }
    this.requote();
  }

  /**
   * True when a requote now would change nothing: the last one left both sides as decided (a
   * working order at each desired price, none where none is wanted) and every input of decide()
   * is what it was then, the volatility and the model's signal within a band where decide()
   * gives the same quotes (see standBand). Orders, fills and reports clear `settled`.
   */
  private quotesStand(bb: number, ba: number): boolean {
    // Integers and slots only: a double argument of a call V8 does not inline is boxed (with the
    // model, onMarketData is too large for V8 to inline this into it).
    const q = this.standing;
    const c = this.clock;
    const sig = c[C_SIGNAL];
    const lo = q[QS_SIGNAL_LO]; // NaN when the requote had no signal
    return (
      bb === q[QS_BID] &&
      ba === q[QS_ASK] &&
      this.portfolio.position === q[QS_POS] &&
      c[C_EXCH] < q[QS_UNTIL] &&
      this.features.volatilityStands(q, QS_VOL_MOVES) &&
      ((sig >= lo && sig <= q[QS_SIGNAL_HI]) || (sig !== sig && lo !== lo))
    );
  }

  /**
   * What falls due by exchange time (markouts, equity and quote samples, the model), at most
   * one check per event in all: C_DUE is the earliest of their due times. The model's signal
   * and the equity check read nothing of each other, so their order within an event is free.
   */
  private timedChecks(): void {
    const c = this.clock;
    const exTs = c[C_EXCH];
    const m = this.markouts;
    if (exTs >= m.due[0]) m.resolve(c, C_EXCH);
    if (exTs >= c[C_NEXT_SAMPLE]) this.sampleEquity();
    if (exTs >= c[C_NEXT_QUOTE]) this.sampleQuotes();
    if (this.predictor !== null && exTs >= c[C_NEXT_PREDICT]) this.runModel();
    this.scheduleChecks();
  }

  private scheduleChecks(): void {
    const c = this.clock;
    let due = this.markouts.due[0];
    if (c[C_NEXT_SAMPLE] < due) due = c[C_NEXT_SAMPLE];
    if (c[C_NEXT_QUOTE] < due) due = c[C_NEXT_QUOTE];
    if (this.predictor !== null && c[C_NEXT_PREDICT] < due) due = c[C_NEXT_PREDICT];
    c[C_DUE] = due;
  }

  /** The equity check at the mid C_MID; true when it tripped the kill switch. */
  private checkEquity(): boolean {
    const c = this.clock;
    const p = this.portfolio;
    c[C_CHECKED_FILLS] = p.fills;
    p.writeEquity(c, C_MID, C_EQUITY);
    const tripped = this.risk.checkEquity(c, C_NOW);
    // Checking the same value again changes nothing once no warning or trip is pending
    // (risk.settled); until then a NaN, which no mid equals, makes the next event check again.
    // (Two stores: a double merged with the NaN constant in one expression is boxed.)
    c[C_CHECKED_MID] = c[C_MID];
    if (!this.risk.settled) c[C_CHECKED_MID] = NaN;
    return tripped;
  }

  /** Equity samples due by the last market event (one per simulated minute), marked at C_MID. */
  private sampleEquity(): void {
    const c = this.clock;
    while (c[C_EXCH] >= c[C_NEXT_SAMPLE] && c[C_NEXT_SAMPLE] < this.sessionEndNs) {
      this.equity.push(c[C_NEXT_SAMPLE], this.portfolio.equity(c[C_MID]));
      c[C_NEXT_SAMPLE] += NS_PER_MIN;
    }
  }

  /** The model's prediction from the current features (a method of its own, so predict() can inline here: its double result is stored, never boxed). */
  private runModel(): void {
    const c = this.clock;
    c[C_SIGNAL] = this.predictor!.predict(this.features.values);
    c[C_SIGNAL_TS] = c[C_EXCH];
    this.predictions++;
    c[C_NEXT_PREDICT] = c[C_EXCH] + this.predictIntervalNs;
  }

  /** One execution report, at its receive time. */
  onExecReport(d: Float64Array, off: number): void {
    this.quiet = false;
    this.now = d[off + ER_TS];
    const type = d[off + ER_TYPE];
    const slot = this.orders.find(d[off + ER_ID]);
    if (slot < 0) {
      // Not in our table: an order of a previous engine instance (restart, session roll). A
      // fill is a fill: book it. Anything else about such an order needs no action.
      if (type === ER_FILL) this.bookFill(d, off, d[off + ER_SIDE], d[off + ER_ID]);
      return;
    }
    const o = this.orders;
    const side = o.side[slot];
    if (type === ER_ACK) {
      if (o.state[slot] === ORD_PENDING_NEW) o.state[slot] = ORD_LIVE;
      return;
    }
    if (type === ER_FILL) {
      const qty = d[off + ER_QTY];
      o.leaves[slot] -= qty;
      if (side === BID) this.openBuyQty -= qty;
      else this.openSellQty -= qty;
      if (o.leaves[slot] <= 0) this.done(slot);
      this.bookFill(d, off, side, d[off + ER_ID]);
    } else if (type === ER_CANCELED || type === ER_REJECT) {
      if (side === BID) this.openBuyQty -= o.leaves[slot];
      else this.openSellQty -= o.leaves[slot];
      o.leaves[slot] = 0;
      if (type === ER_REJECT) this.rejects++;
      else if (d[off + ER_REASON] === CANCEL_SELF_MATCH) this.selfMatchCancels++;
      this.done(slot);
      // The end of an order already replaced changes no input of decide() (the position, the
      // touch, the features): a requote now would decide what stands. Most cancel confirmations
      // are these (77k of 90k per session on the bench's).
      if (this.settled) return;
    } else {
      this.cancelRejects++; // the order finished before our cancel arrived
      return;
    }
    if (this.quoting) this.requote();
  }

  private bookFill(d: Float64Array, off: number, side: number, id: number): void {
    const qty = d[off + ER_QTY];
    const price = d[off + ER_PRICE];
    const p = this.portfolio;
    p.onFillAt(side, price, qty, d, off + ER_FEE);
    const row = this.fills.row;
    // Written first and read back: a double merged with the NaN constant in one variable is boxed.
    row[FL_MID] = touchMid(this.bestBid, this.bestAsk);
    const mid = row[FL_MID];
    row[FL_EXCH_TS] = d[off + ER_EXCH_TS];
    row[FL_RECV_TS] = this.clock[C_NOW];
    row[FL_SENT_TS] = d[off + ER_SENT];
    row[FL_ORDER_ID] = id;
    row[FL_SIDE] = side;
    row[FL_PRICE] = price;
    row[FL_QTY] = qty;
    row[FL_LIQ] = d[off + ER_LIQ];
    row[FL_FEE] = d[off + ER_FEE];
    row[FL_POSITION] = p.position;
    row[FL_TRADE_PNL] = p.lastFillTradePnl;
    this.fills.add();
    this.markouts.addFill(d[off + ER_EXCH_TS], side, price, qty, this.fills.length - 1);
    if (this.markouts.due[0] < this.clock[C_DUE]) this.clock[C_DUE] = this.markouts.due[0];
    this.risk.onPosition(this.now, p.position);
    if (mid !== mid) return;
    this.clock[C_MID] = mid;
    if (this.checkEquity()) this.cancelAll();
  }

  /** One quote sample: our working prices as of the last market event (a gap in the market is one sample, not many). */
  private sampleQuotes(): void {
    const c = this.clock;
    const exTs = c[C_EXCH];
    const b = this.working[BID];
    const a = this.working[ASK];
    this.quotes.push(exTs, b < 0 ? NaN : this.orders.price[b], a < 0 ? NaN : this.orders.price[a], c[C_MID]);
    c[C_NEXT_QUOTE] = exTs - ((exTs - this.sessionStartNs) % QUOTE_SAMPLE_NS) + QUOTE_SAMPLE_NS;
  }

  private done(slot: number): void {
    const side = this.orders.side[slot];
    // Only a working order's end can unsettle the quotes: the others are orders already replaced
    // (their cancel sent), which no standing quote counts on.
    if (this.working[side] === slot) {
      this.working[side] = -1;
      this.settled = false;
    }
    this.openCount[side]--;
    this.orders.release(slot);
  }

  /** Re-evaluates the desired quotes and sends the cancels and new orders to get there. */
  private requote(): void {
    if (this.risk.killed) return;
    const bb = this.bestBid;
    const ba = this.bestAsk;
    if (bb === NO_PRICE || ba === NO_PRICE || ba <= bb) return;
    if (this.lastExchTs >= this.sessionEndNs) return;
    const pos = this.portfolio.position;
    const mm = this.mm;
    const reduceOnly = this.lastExchTs >= this.reduceOnlyFromNs;
    this.features.writeVolatility(mm.inputs, IN_SIGMA);
    mm.inputs[IN_SIGNAL] = this.signal;
    mm.decide(bb, ba, pos, reduceOnly);
    // Both sides' cancels go out before either new order: the order link is FIFO, so a new bid
    // never reaches the exchange while our ask at its price is still resting there (no self-match).
    const keepBid = this.keepOrCancel(BID, mm.bidPrice);
    const keepAsk = this.keepOrCancel(ASK, mm.askPrice);
    if (!keepBid) this.place(BID, mm.bidPrice, mm.bidSize);
    if (!keepAsk) this.place(ASK, mm.askPrice, mm.askSize);
    // Anything short of the decided quotes (an order refused, a cancel not sent) is retried at
    // the next input, as before: only a fully standing result is remembered.
    this.settled = this.sideStands(BID, mm.bidPrice) && this.sideStands(ASK, mm.askPrice);
    if (!this.settled) return;
    const q = this.standing;
    q[QS_BID] = bb;
    q[QS_ASK] = ba;
    q[QS_POS] = pos;
    q[QS_UNTIL] = reduceOnly ? Infinity : this.reduceOnlyFromNs;
    this.bandDue = true;
  }

  /** The band of the last settled requote (bandDue), unless something has unsettled it since. */
  private settleBand(): void {
    this.bandDue = false;
    if (!this.settled) return;
    const q = this.standing;
    // Reduce-only as at the requote: the exchange time moves only with market events, as the features do.
    this.standBand(q[QS_BID], q[QS_ASK], q[QS_POS], this.lastExchTs >= this.reduceOnlyFromNs);
  }

  /**
   * The band of the volatility's sum in which the quotes just decided stand: from the lowest trial
   * sum whose volatility gives the same quotes (MarketMaker.sameQuotesAt) up to the sum now. The
   * volatility is a monotone function of the sum, so every sum in the band gives a volatility
   * between the two tried. Between mid changes the sum only decays, so the band holds until a
   * mid change or until the time the sum falls past the trial (volatilityStandInto). Then the band of
   * the model's signal in which the quotes stand for every volatility in that band (a new
   * prediction moves the signal either way, usually by less than a tick's worth).
   */
  private standBand(bb: number, ba: number, pos: number, reduceOnly: boolean): void {
    const q = this.standing;
    const mm = this.mm;
    this.features.writeVolatilitySum(q, QS_SUM_NOW);
    q[QS_SUM_LO] = q[QS_SUM_NOW];
    let found = false;
    for (let i = 0; i < BAND_TRIALS.length && !found; i++) {
      q[QS_TRIAL_SUM] = q[QS_SUM_NOW] * BAND_TRIALS[i];
      this.features.volatilityFor(q, QS_TRIAL_SUM);
      mm.inputs[IN_SIGMA_LO] = q[QS_TRIAL_SIGMA];
      found = mm.sameQuotesAt(bb, ba, pos, reduceOnly);
    }
    if (found) q[QS_SUM_LO] = q[QS_TRIAL_SUM];
    else mm.inputs[IN_SIGMA_LO] = mm.inputs[IN_SIGMA];
    this.features.volatilityStandInto(q, QS_SUM_LO, QS_VOL_MOVES);
    mm.signalBand(bb, ba, pos, reduceOnly, q, QS_SIGNAL_LO);
  }

  /** The side is as decided: a working order at `price`, or none when price is NO_PRICE. */
  private sideStands(side: number, price: number): boolean {
    const w = this.working[side];
    return price === NO_PRICE ? w < 0 : w >= 0 && this.orders.price[w] === price;
  }

  /** True when the side's working order stays (its price is the desired one); otherwise cancels it. */
  private keepOrCancel(side: number, price: number): boolean {
    const w = this.working[side];
    if (w < 0) return false;
    // Keep our place in the queue while the desired price is unchanged.
    if (price !== NO_PRICE && this.orders.price[w] === price) return true;
    this.sendCancel(w);
    return false;
  }

  private place(side: number, price: number, size: number): void {
    if (price === NO_PRICE || size <= 0 || this.openCount[side] >= MAX_ORDERS_PER_SIDE) return;
    this.sendNew(side, price, size);
  }

  private sendNew(side: number, price: number, size: number): void {
    const pos = this.portfolio.position;
    // Orders whose cancel is still in flight may fill too: the new one gets only what they leave
    // of the inventory limit (none: wait for their confirmations).
    const room = this.mm.room(side, pos, side === BID ? this.openBuyQty : this.openSellQty);
    if (room <= 0) return;
    const qty = room < size ? room : size;
    if (this.risk.checkOrder(side, price, qty, pos, this.openBuyQty, this.openSellQty) !== RISK_OK) return;
    const slot = this.orders.allocate(side, price, qty, this.now);
    if (slot < 0) return;
    if (!this.send(OM_NEW, slot, FLAG_POST_ONLY)) {
      this.orders.release(slot);
      return;
    }
    if (side === BID) this.openBuyQty += qty;
    else this.openSellQty += qty;
    this.openCount[side]++;
    this.working[side] = slot;
    this.ordersSent++;
  }

  private sendCancel(slot: number): void {
    const o = this.orders;
    if (o.state[slot] === ORD_PENDING_CANCEL || o.state[slot] === ORD_FREE) return;
    if (!this.send(OM_CANCEL, slot, 0)) return;
    o.state[slot] = ORD_PENDING_CANCEL;
    if (this.working[o.side[slot]] === slot) this.working[o.side[slot]] = -1;
    this.cancelsSent++;
  }

  /** Writes and publishes one order message about the order in `slot`; false if the ring is full. */
  private send(type: number, slot: number, flags: number): boolean {
    const off = this.out.claim();
    if (off < 0) {
      this.outboundDrops++;
      this.out.countDrop();
      return false;
    }
    const o = this.orders;
    const d = this.out.data;
    // Exchange arrival: entry latency, in send order.
    d[off + OM_TS] = this.clock[C_NOW] + this.latency.orderEntry(this.clock, C_NOW);
    this.orderLink.arrive(d, off + OM_TS);
    d[off + OM_SENT] = this.now;
    d[off + OM_TYPE] = type;
    d[off + OM_ID] = o.id[slot];
    d[off + OM_SIDE] = o.side[slot];
    d[off + OM_PRICE] = o.price[slot];
    d[off + OM_QTY] = o.leaves[slot];
    d[off + OM_FLAGS] = flags;
    this.out.publish();
    return true;
  }

  /** Cancels every open order (kill switch, shutdown, restart). */
  cancelAll(): void {
    this.settled = false;
    this.quiet = false;
    const o = this.orders;
    for (let s = 0; s < o.capacity; s++) {
      if (o.state[s] === ORD_PENDING_NEW || o.state[s] === ORD_LIVE) this.sendCancel(s);
    }
  }

  /** The latest prediction of a model run elsewhere (the inference worker in simulation). */
  setPrediction(value: number, exchTs: number, count: number): void {
    this.quiet = false;
    this.clock[C_SIGNAL] = value;
    this.clock[C_SIGNAL_TS] = exchTs;
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
    if (this.risk.trip(ts, code, message, 0, 0)) this.cancelAll();
  }

  /** Mid in ticks of the touch after the last market event (NaN when a side is empty). */
  mid(): number {
    return touchMid(this.bestBid, this.bestAsk);
  }

  /** Closes the session's books: the last equity sample at `endTs`, marked to the last mid. */
  finish(endTs: number): void {
    const mid = this.mid();
    const mark = mid === mid ? mid : 0;
    const c = this.clock;
    while (c[C_NEXT_SAMPLE] < endTs) {
      this.equity.push(c[C_NEXT_SAMPLE], this.portfolio.equity(mark));
      c[C_NEXT_SAMPLE] += NS_PER_MIN;
    }
    this.equity.push(endTs, this.portfolio.equity(mark));
  }
}
