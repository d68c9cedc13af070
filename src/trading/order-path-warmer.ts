// Keeps the engine's order path warm while the engine thread waits for its next input.
//
// In simulation mode the engine thread handles a market event in about 1 µs, but an event that
// makes it send orders took a median 16-19 µs (engine thread spinning, quiet machine) against
// 0.8 µs for the same call in a hot loop. The order path (requote's cancels and new orders, the
// risk check, the order table, the latency model, the message encoding) runs some 50 times a
// second there, and in between the CPU's caches and branch predictors forget it: at ten times the
// order rate the same call took a median 3.9 µs. Trading systems keep such a path warm by running
// it on dummy data while idle. This does it with a shadow engine: an Trader of its own (book,
// features, portfolio, risk state, latency model, order ring and ids of its own), fed a small
// synthetic book whose touch moves a tick up or down on every run, so that each run sends cancels
// and new orders through the same code, and answered at once with acknowledgements and cancel
// confirmations. The shadow shares nothing with the real engine: no state, no random numbers,
// and its messages never leave this object. Its memory is bounded (a new shadow replaces it
// before its synthetic session would end), and a run allocates nothing.

import { marketMakerSetup } from '../strategy/builtin/market-maker.ts';
import {
  ASK,
  BID,
  EV_KIND,
  EV_PRICE,
  EV_QTY,
  EV_RECV,
  EV_SIDE,
  EV_STRIDE,
  EV_TS,
  ER_ACK,
  ER_CANCELED,
  ER_EXCH_TS,
  ER_ID,
  ER_LEAVES,
  ER_MODIFIED,
  ER_PRICE,
  ER_SENT,
  ER_SIDE,
  ER_STRIDE,
  ER_TS,
  ER_TYPE,
  MD_ADD,
  MD_CANCEL,
  NS_PER_MS,
  NS_PER_S,
  OM_ID,
  OM_MODIFY,
  OM_NEW,
  OM_PRICE,
  OM_QTY,
  OM_SENT,
  OM_SIDE,
  OM_STRIDE,
  OM_TYPE,
} from '../core/events.ts';
import { RecordRing } from '../core/ring.ts';
import type { LatencyParams } from '../exchange/latency.ts';
import { seededLatency } from '../exchange/venue.ts';
import type { ContractSpec } from '../market/instruments.ts';
import { Portfolio } from '../portfolio/portfolio.ts';
import { RISK_STATE_FIELDS, RiskManager, type RiskLimits } from '../risk/risk-manager.ts';
import type { QuoteParams } from '../strategy/market-maker.ts';
import { Trader } from './trader.ts';

export interface WarmerOptions {
  spec: ContractSpec;
  initialCapital: number;
  limits: RiskLimits;
  quote: QuoteParams;
  latency: LatencyParams;
  flattenMinutes: number;
  /** A shadow's synthetic session, ns (default 24 h; tests shorten it to see a shadow replaced). */
  sessionNs?: number;
}

const DEPTH = 5; // levels per side of the synthetic book
const LEVEL_QTY = 50;
const BASE_PRICE = 1 << 20; // ticks: any price works, the shadow's book anchors on its first one
const STEP_NS = NS_PER_MS; // synthetic time between two synthetic events
const SESSION_NS = 24 * 3600 * NS_PER_S; // a shadow's synthetic session (one equity sample a minute); a new shadow replaces it before its end
const LOTS = 64; // the shadow never fills, so its portfolio needs no lot capacity to speak of
const SEED = 0x5eed;

export class OrderPathWarmer {
  private readonly o: WarmerOptions;
  private readonly sessionNs: number;
  private shadow!: Trader;
  private orders!: RecordRing;
  private readonly md = new Float64Array(EV_STRIDE);
  private readonly er = new Float64Array(ER_STRIDE);
  /** Synthetic clock (ns), the end of the current shadow's quoting, and the shadow's best bid (ticks). */
  private readonly t = new Float64Array(2);
  private bestBid = BASE_PRICE;
  private up = false;
  /** Shadows built so far (1 + replacements). */
  shadows = 0;

  constructor(o: WarmerOptions) {
    this.o = o;
    this.sessionNs = o.sessionNs ?? SESSION_NS;
    this.renew();
  }

  /** The current shadow engine (its counters show what the runs exercised). */
  get engine(): Trader {
    return this.shadow;
  }

  /**
   * One warming run: the synthetic touch moves one tick (up and down alternately), which makes the
   * shadow cancel and replace its quotes; every order message is answered at once.
   */
  run(): void {
    if (this.t[0] >= this.t[1]) this.renew();
    const b = this.bestBid;
    this.up = !this.up;
    if (this.up) {
      // Up: the best ask (b + 1) is taken away, a bid joins at b + 1, the ask side refills behind.
      this.event(MD_CANCEL, ASK, b + 1);
      this.event(MD_ADD, BID, b + 1);
      this.event(MD_ADD, ASK, b + 1 + DEPTH);
      this.event(MD_CANCEL, BID, b + 1 - DEPTH);
      this.bestBid = b + 1;
    } else {
      this.event(MD_CANCEL, BID, b);
      this.event(MD_ADD, ASK, b);
      this.event(MD_ADD, BID, b - DEPTH);
      this.event(MD_CANCEL, ASK, b + DEPTH);
      this.bestBid = b - 1;
    }
  }

  /** A new shadow engine with a fresh two-sided book (bids b - 4..b, asks b + 1..b + 5). */
  private renew(): void {
    const o = this.o;
    this.shadows++;
    // Shared memory like the real engine's, so both engines' objects have the same shapes and the
    // code the shadow warms is the code the real engine runs.
    this.orders = RecordRing.allocate(OM_STRIDE, 64, true);
    const riskState = new Float64Array(new SharedArrayBuffer(RISK_STATE_FIELDS * 8));
    RiskManager.initState(riskState);
    this.shadow = new Trader({
      spec: o.spec,
      initialCapital: o.initialCapital,
      limits: o.limits,
      strategy: marketMakerSetup(o.quote),
      latency: seededLatency(o.latency, SEED + this.shadows),
      orders: this.orders,
      sessionStartNs: 0,
      sessionEndNs: this.sessionNs,
      flattenMinutes: o.flattenMinutes,
      predictor: null,
      portfolio: new Portfolio(o.initialCapital, o.spec.tickValue, LOTS, new SharedArrayBuffer(Portfolio.bytes(LOTS))),
      riskState,
      day: 0,
      openingMarkTicks: NaN,
      firstOrderId: 1,
    });
    this.t[0] = 0;
    // Quote until the flattening window, where the shadow would only cancel.
    this.t[1] = this.sessionNs - o.flattenMinutes * 60 * NS_PER_S - STEP_NS;
    this.bestBid = BASE_PRICE;
    for (let k = 0; k < DEPTH; k++) {
      this.event(MD_ADD, BID, BASE_PRICE - k);
      this.event(MD_ADD, ASK, BASE_PRICE + 1 + k);
    }
  }

  /** One synthetic market event to the shadow, then its order messages answered. */
  private event(kind: number, side: number, price: number): void {
    const t = this.t;
    t[0] += STEP_NS;
    const d = this.md;
    d[EV_TS] = t[0];
    d[EV_RECV] = t[0];
    d[EV_KIND] = kind;
    d[EV_SIDE] = side;
    d[EV_PRICE] = price;
    d[EV_QTY] = LEVEL_QTY;
    this.shadow.onMarketData(d, 0);
    this.answer();
  }

  /**
   * Acknowledges each new order and confirms each cancel (and modify, which the built-in market
   * maker the shadow runs never sends), as an exchange would (at once).
   */
  private answer(): void {
    const ring = this.orders;
    const m = ring.data;
    const r = this.er;
    // A cancel confirmation makes the shadow requote, which may send more: drain until quiet.
    while (ring.availableSameThread() > 0) {
      const off = ring.peek();
      r[ER_TS] = this.t[0];
      r[ER_EXCH_TS] = this.t[0];
      const type = m[off + OM_TYPE];
      r[ER_TYPE] = type === OM_NEW ? ER_ACK : type === OM_MODIFY ? ER_MODIFIED : ER_CANCELED;
      r[ER_ID] = m[off + OM_ID];
      r[ER_SIDE] = m[off + OM_SIDE];
      r[ER_PRICE] = m[off + OM_PRICE];
      r[ER_LEAVES] = m[off + OM_QTY];
      r[ER_SENT] = m[off + OM_SENT];
      ring.advance();
      ring.release();
      this.shadow.onExecReport(r, 0);
    }
  }
}
