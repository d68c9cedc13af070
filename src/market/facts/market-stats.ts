// Consumer-side measurement of a market-event stream's stylized facts (docs/synthetic-market.md,
// "What the generator must show"): built only from the events, with its own DenseBook, so it
// checks the generator from the outside. Used by the generator's tests and the facts command.

import * as ev from '../../core/events.ts';
import { DenseBook } from '../../book/dense-book.ts';

// Local copies: a transpiler may turn imported bindings into getter calls (tsx does).
const BID = ev.BID;
const ASK = ev.ASK;
const MD_ADD = ev.MD_ADD;
const MD_CANCEL = ev.MD_CANCEL;
const MD_TRADE = ev.MD_TRADE;
const NS_PER_MIN = ev.NS_PER_MIN;
const NS_PER_S = ev.NS_PER_S;

export interface MarketStatsSummary {
  events: number;
  trades: number;
  tradedContracts: number;
  durationS: number;
  eventsPerSecond: number;
  /** Time-weighted fraction of time the spread is exactly one tick. */
  oneTickSpreadFraction: number;
  /** Time-weighted mean of (best bid size + best ask size) / 2. */
  meanBestQueue: number;
  /** (high - low) of the mid / first mid. */
  rangeFraction: number;
  /** Std of 1-minute log mid returns x sqrt(252 x 390). */
  annualisedVol: number;
  /** Autocorrelation of |1-minute returns| at lags 1..5. */
  absReturnAcf: number[];
  /** Events per minute in the first / last 30 minutes over 12:00-14:00 (NaN when not covered). */
  openActivityRatio: number;
  closeActivityRatio: number;
  /** Correlation of CKS order-flow imbalance over a window with the next window's mid change. */
  ofiNextCorr: number;
  /** Same window (contemporaneous) OFI / mid-change correlation. */
  ofiSameCorr: number;
  /**
   * Adverse selection of the passive side: quantity-weighted mean of (aggressor sign) x (mid
   * after the horizon - mid before the trade), in ticks, at 100 ms, 1 s and 10 s. Positive:
   * the price moves on in the aggressor's direction, against whoever was filled passively.
   */
  markoutTicks: number[];
  /** Trade records that continued a market order onto a further price level (same ts, side). */
  sweepContinuations: number;
  /** Minimum number of non-empty levels per side seen at the 1-minute samples. */
  minLevels: number;
  /** Invariant violations: crossed or one-sided book after the initial snapshot, bad fields. */
  crossed: number;
  badFields: number;
  nonMonotonicTs: number;
  /** Largest distance (ticks) of a resting level from its side's best, at minute samples. */
  maxLevelDistance: number;
}

const FIFO = 1 << 16;
const FIFO_MASK = FIFO - 1;

export function correlation(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = Math.min(x.length, y.length);
  let sx = 0,
    sy = 0;
  for (let i = 0; i < n; i++) {
    sx += x[i];
    sy += y[i];
  }
  const mx = sx / n,
    my = sy / n;
  let cxy = 0,
    cxx = 0,
    cyy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i] - mx,
      dy = y[i] - my;
    cxy += dx * dy;
    cxx += dx * dx;
    cyy += dy * dy;
  }
  return cxy / Math.sqrt(cxx * cyy);
}

export function autocorrelation(x: ArrayLike<number>, lag: number): number {
  const n = x.length;
  let m = 0;
  for (let i = 0; i < n; i++) m += x[i];
  m /= n;
  let num = 0,
    den = 0;
  for (let i = 0; i < n; i++) {
    const d = x[i] - m;
    den += d * d;
    if (i + lag < n) num += d * (x[i + lag] - m);
  }
  return num / den;
}

export class MarketStats {
  readonly book: DenseBook;
  private readonly startNs: number;
  private readonly windowNs: number;
  private events = 0;
  private trades = 0;
  private tradedContracts = 0;
  private lastTs = -1;
  private firstTs = -1;
  private live = false; // past the initial snapshot (first event with ts > session start)
  // time weighting
  private timeTotal = 0;
  private timeOneTick = 0;
  private queueTime = 0;
  // price path
  private firstMid = NaN;
  private high = -Infinity;
  private low = Infinity;
  private nextMinute: number;
  readonly minuteMids: number[] = [];
  readonly minuteEvents: number[] = [];
  private minuteCount = 0;
  // OFI
  private nextWindow: number;
  private ofi = 0;
  readonly windowOfi: number[] = [];
  readonly windowMid: number[] = [];
  private pb = 0;
  private qb = 0;
  private pa = 0;
  private qa = 0;
  // invariants
  private crossed = 0;
  private badFields = 0;
  private nonMonotonic = 0;
  private minLevels = Infinity;
  private maxDist = 0;
  private readonly lp = new Int32Array(128);
  private readonly ls = new Int32Array(128);
  // markouts: one FIFO of pending trades per horizon
  private readonly horizons = [100 * ev.NS_PER_MS, NS_PER_S, 10 * NS_PER_S];
  private readonly fifoTs: Float64Array[] = [];
  private readonly fifoSignQty: Float64Array[] = [];
  private readonly fifoMid: Float64Array[] = [];
  private readonly fifoHead = [0, 0, 0];
  private readonly fifoTail = [0, 0, 0];
  private readonly markoutSum = [0, 0, 0];
  private readonly markoutQty = [0, 0, 0];
  private lastTradeTs = -1;
  private lastTradeSide = -1;
  private lastTradePrice = 0;
  private sweeps = 0;

  constructor(sessionStartNs: number, ofiWindowNs = NS_PER_S, bookCapacity = 1024) {
    this.book = new DenseBook(bookCapacity);
    this.startNs = sessionStartNs;
    this.windowNs = ofiWindowNs;
    this.nextMinute = sessionStartNs + NS_PER_MIN;
    this.nextWindow = sessionStartNs + ofiWindowNs;
    for (let h = 0; h < this.horizons.length; h++) {
      this.fifoTs.push(new Float64Array(FIFO));
      this.fifoSignQty.push(new Float64Array(FIFO));
      this.fifoMid.push(new Float64Array(FIFO));
    }
  }

  private markouts(ts: number, kind: number, side: number, price: number, qty: number): void {
    const mid = this.book.mid();
    for (let h = 0; h < this.horizons.length; h++) {
      const H = this.horizons[h];
      const fts = this.fifoTs[h],
        fsq = this.fifoSignQty[h],
        fm = this.fifoMid[h];
      let head = this.fifoHead[h];
      const tail = this.fifoTail[h];
      while (head !== tail && fts[head & FIFO_MASK] + H <= ts) {
        const i = head & FIFO_MASK;
        this.markoutSum[h] += fsq[i] * (mid - fm[i]);
        this.markoutQty[h] += Math.abs(fsq[i]);
        head++;
      }
      this.fifoHead[h] = head;
      if (kind === MD_TRADE && tail - head < FIFO) {
        const i = tail & FIFO_MASK;
        fts[i] = ts;
        fsq[i] = side === ASK ? qty : -qty; // resting ask taken: a buyer was the aggressor
        fm[i] = mid;
        this.fifoTail[h] = tail + 1;
      }
    }
    if (kind === MD_TRADE) {
      if (ts === this.lastTradeTs && side === this.lastTradeSide && price !== this.lastTradePrice) this.sweeps++;
      this.lastTradeTs = ts;
      this.lastTradeSide = side;
      this.lastTradePrice = price;
    }
  }

  onEvent(ts: number, kind: number, side: number, price: number, qty: number): void {
    const book = this.book;
    this.events++;
    if (
      !(
        Math.floor(ts) === ts &&
        Math.floor(price) === price &&
        Math.floor(qty) === qty &&
        qty > 0 &&
        (side === BID || side === ASK) &&
        (kind === MD_ADD || kind === MD_CANCEL || kind === MD_TRADE)
      )
    )
      this.badFields++;
    if (kind !== MD_ADD) {
      const have = book.size(side, price);
      if (qty > have) this.badFields++; // removing more than rests: a negative size
    }
    if (this.firstTs < 0) this.firstTs = ts;
    if (ts < this.lastTs) this.nonMonotonic++;
    if (!this.live && ts > this.startNs) this.live = true;
    if (this.live) {
      // state held since the previous event
      const dt = ts - this.lastTs;
      if (dt > 0 && this.lastTs >= 0) {
        this.timeTotal += dt;
        if (book.bestAsk - book.bestBid === 1) this.timeOneTick += dt;
        this.queueTime += dt * 0.5 * (book.bestBidSize + book.bestAskSize);
      }
      while (ts >= this.nextMinute) this.sampleMinute();
      while (ts >= this.nextWindow) this.closeWindow();
      if (kind === MD_TRADE) {
        this.trades++;
        this.tradedContracts += qty;
      }
      this.markouts(ts, kind, side, price, qty);
      this.minuteCount++;
    }
    this.lastTs = ts;
    book.apply(kind, side, price, qty);
    if (this.live) {
      if (!book.hasTwoSides() || book.bestBid >= book.bestAsk) this.crossed++;
      const mid = book.mid();
      if (Number.isNaN(this.firstMid)) this.firstMid = mid;
      if (mid > this.high) this.high = mid;
      if (mid < this.low) this.low = mid;
      // Cont-Kukanov-Stoikov OFI of the best levels
      const nb = book.bestBid,
        nqb = book.bestBidSize,
        na = book.bestAsk,
        nqa = book.bestAskSize;
      let e = 0;
      if (nb >= this.pb) e += nqb;
      if (nb <= this.pb) e -= this.qb;
      if (na <= this.pa) e -= nqa;
      if (na >= this.pa) e += this.qa;
      this.ofi += e;
      this.pb = nb;
      this.qb = nqb;
      this.pa = na;
      this.qa = nqa;
    } else {
      this.pb = book.bestBid;
      this.qb = book.bestBidSize;
      this.pa = book.bestAsk;
      this.qa = book.bestAskSize;
    }
  }

  private sampleMinute(): void {
    const book = this.book;
    this.minuteMids.push(book.mid());
    this.minuteEvents.push(this.minuteCount);
    this.minuteCount = 0;
    this.nextMinute += NS_PER_MIN;
    const nb = book.levels(BID, 128, this.lp, this.ls);
    const dB = nb > 0 ? book.bestBid - this.lp[nb - 1] : 0;
    const na = book.levels(ASK, 128, this.lp, this.ls);
    const dA = na > 0 ? this.lp[na - 1] - book.bestAsk : 0;
    if (Math.min(nb, na) < this.minLevels) this.minLevels = Math.min(nb, na);
    if (Math.max(dB, dA) > this.maxDist) this.maxDist = Math.max(dB, dA);
  }

  private closeWindow(): void {
    this.windowOfi.push(this.ofi);
    this.windowMid.push(this.book.mid());
    this.ofi = 0;
    this.nextWindow += this.windowNs;
  }

  summary(): MarketStatsSummary {
    const mids = this.minuteMids;
    const rets: number[] = [];
    for (let i = 1; i < mids.length; i++) rets.push(Math.log(mids[i] / mids[i - 1]));
    let m = 0;
    for (const r of rets) m += r;
    m /= rets.length;
    let v = 0;
    for (const r of rets) v += (r - m) * (r - m);
    const vol = Math.sqrt(v / (rets.length - 1)) * Math.sqrt(252 * 390);
    const abs = rets.map(Math.abs);
    const acf = [1, 2, 3, 4, 5].map((k) => autocorrelation(abs, k));
    // activity by time of day (minute i covers [start + i min, start + (i+1) min))
    const startMin = Math.round(this.startNs / NS_PER_MIN);
    const rate = (fromMin: number, toMin: number): number => {
      let s = 0,
        n = 0;
      for (let i = 0; i < this.minuteEvents.length; i++) {
        const tod = startMin + i;
        if (tod >= fromMin && tod < toMin) {
          s += this.minuteEvents[i];
          n++;
        }
      }
      return n > 0 ? s / n : NaN;
    };
    const midday = rate(12 * 60, 14 * 60);
    // OFI of window n vs mid change over window n+1 (first window holds the snapshot: skipped)
    const wm = this.windowMid;
    const of = this.windowOfi;
    const xNext: number[] = [],
      yNext: number[] = [],
      ySame: number[] = [];
    for (let i = 1; i + 1 < wm.length; i++) {
      xNext.push(of[i]);
      ySame.push(wm[i] - wm[i - 1]);
      yNext.push(wm[i + 1] - wm[i]);
    }
    const durationS = (this.lastTs - this.firstTs) / NS_PER_S;
    return {
      events: this.events,
      trades: this.trades,
      tradedContracts: this.tradedContracts,
      durationS,
      eventsPerSecond: this.events / durationS,
      oneTickSpreadFraction: this.timeOneTick / this.timeTotal,
      meanBestQueue: this.queueTime / this.timeTotal,
      rangeFraction: (this.high - this.low) / this.firstMid,
      annualisedVol: vol,
      absReturnAcf: acf,
      openActivityRatio: rate(9 * 60 + 30, 10 * 60) / midday,
      closeActivityRatio: rate(15 * 60 + 30, 16 * 60) / midday,
      ofiNextCorr: correlation(xNext, yNext),
      ofiSameCorr: correlation(xNext, ySame),
      markoutTicks: this.markoutSum.map((m, h) => m / this.markoutQty[h]),
      sweepContinuations: this.sweeps,
      minLevels: this.minLevels,
      crossed: this.crossed,
      badFields: this.badFields,
      nonMonotonicTs: this.nonMonotonic,
      maxLevelDistance: this.maxDist,
    };
  }
}
