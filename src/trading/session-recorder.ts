// What a session records of the engine's trading, apart from trading itself: the fill log with
// each fill's context, the markouts that resolve after it, the equity sampled once a simulated
// minute, and our quotes sampled once a second (reports). The engine calls it when a fill is
// booked and when a sample falls due (its slots C_NEXT_SAMPLE and C_NEXT_QUOTE, which the
// engine's timed checks read). It reads the engine's slots and the portfolio, never the
// exchange.

import { ER_EXCH_TS, ER_FEE, ER_LIQ, ER_SENT, NS_PER_MIN } from '../core/events.ts';
import { EquityCurve } from '../portfolio/equity-curve.ts';
import {
  FL_EXCH_TS,
  FL_FEE,
  FL_LIQ,
  FL_ORDER_ID,
  FL_POSITION,
  FL_PRICE,
  FL_QTY,
  FL_RECV_TS,
  FL_SENT_TS,
  FL_SIDE,
  FL_REALIZED,
  FL_TRADE_PNL,
  FillLog,
} from '../portfolio/fill-log.ts';
import { MarkoutTracker } from '../portfolio/markouts.ts';
import type { Portfolio } from '../portfolio/portfolio.ts';
import { QUOTE_SAMPLE_NS, QuoteSamples } from '../portfolio/quote-samples.ts';
import { C_EXCH, C_MID, C_NEXT_QUOTE, C_NEXT_SAMPLE, C_NOW } from './trader-slots.ts';
import type { OrderManager } from './order-manager.ts';

export class SessionRecorder {
  readonly fills = new FillLog();
  readonly markouts = new MarkoutTracker(this.fills);
  readonly equity = new EquityCurve();
  readonly quotes = new QuoteSamples();
  private readonly slots: Float64Array;
  private readonly portfolio: Portfolio;
  private readonly sessionStartNs: number;
  private readonly sessionEndNs: number;

  constructor(slots: Float64Array, portfolio: Portfolio, sessionStartNs: number, sessionEndNs: number, sampleQuotes: boolean) {
    this.slots = slots;
    this.portfolio = portfolio;
    this.sessionStartNs = sessionStartNs;
    this.sessionEndNs = sessionEndNs;
    slots[C_NEXT_SAMPLE] = sessionStartNs + NS_PER_MIN;
    slots[C_NEXT_QUOTE] = sampleQuotes ? sessionStartNs : Infinity;
  }

  /**
   * One fill into the log, with the mid it was booked at (written there first: `row[FL_MID]`,
   * NaN with a side empty) and the position after it; its markouts start here.
   */
  recordFill(d: Float64Array, off: number, side: number, id: number, price: number, qty: number): void {
    const p = this.portfolio;
    const row = this.fills.row;
    row[FL_EXCH_TS] = d[off + ER_EXCH_TS];
    row[FL_RECV_TS] = this.slots[C_NOW];
    row[FL_SENT_TS] = d[off + ER_SENT];
    row[FL_ORDER_ID] = id;
    row[FL_SIDE] = side;
    row[FL_PRICE] = price;
    row[FL_QTY] = qty;
    row[FL_LIQ] = d[off + ER_LIQ];
    row[FL_FEE] = d[off + ER_FEE];
    row[FL_POSITION] = p.position;
    row[FL_TRADE_PNL] = p.lastFillTradePnl;
    row[FL_REALIZED] = p.lastFillRealized;
    this.fills.add();
    this.markouts.addFill(d[off + ER_EXCH_TS], side, price, qty, this.fills.length - 1);
  }

  /** Equity samples due by the last market event (one per simulated minute), marked at C_MID. */
  sampleEquity(): void {
    const c = this.slots;
    while (c[C_EXCH] >= c[C_NEXT_SAMPLE] && c[C_NEXT_SAMPLE] < this.sessionEndNs) {
      this.equity.push(c[C_NEXT_SAMPLE], this.portfolio.equity(c[C_MID]));
      c[C_NEXT_SAMPLE] += NS_PER_MIN;
    }
  }

  /** One quote sample: our first-level working prices as of the last market event (a gap in the market is one sample, not many). */
  sampleQuotes(om: OrderManager): void {
    const c = this.slots;
    const exTs = c[C_EXCH];
    const L = om.targets.levels;
    const b = L > 0 ? om.workingAt(0) : -1;
    const a = L > 0 ? om.workingAt(L) : -1;
    this.quotes.push(exTs, b < 0 ? NaN : om.orders.price[b], a < 0 ? NaN : om.orders.price[a], c[C_MID], this.portfolio.position);
    c[C_NEXT_QUOTE] = exTs - ((exTs - this.sessionStartNs) % QUOTE_SAMPLE_NS) + QUOTE_SAMPLE_NS;
  }

  /** Closes the equity curve: the samples still due before `endTs`, then one at `endTs`, marked at `mark` ticks. */
  finish(endTs: number, mark: number): void {
    const c = this.slots;
    while (c[C_NEXT_SAMPLE] < endTs) {
      this.equity.push(c[C_NEXT_SAMPLE], this.portfolio.equity(mark));
      c[C_NEXT_SAMPLE] += NS_PER_MIN;
    }
    this.equity.push(endTs, this.portfolio.equity(mark));
  }
}
