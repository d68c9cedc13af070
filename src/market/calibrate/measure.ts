// What calibration measures in a market's event stream (docs/calibration.md): the L2 level changes
// (every source: the synthetic generator, an MBO or MBP-10 replay) classified against the book
// as it stood before each change, and the MBO records (order sizes, modifies) where the source
// has them. Counts and time integrals are kept per minute of the window, so the intraday activity
// profile fitted afterwards (fit.ts) can weight each minute: a rate is a count over the
// activity-weighted exposure, which needs the profile, which needs the per-minute counts.

import * as ev from '../../core/events.ts';
import { DenseBook } from '../../book/dense-book.ts';
import { MAX_DEPTH } from '../generator.ts';
import { NumberList } from '../facts/order-flow.ts';

const BID = ev.BID;
const ASK = ev.ASK;
const MD_ADD = ev.MD_ADD;
const MD_CANCEL = ev.MD_CANCEL;
const MD_TRADE = ev.MD_TRADE;
const NS_PER_S = ev.NS_PER_S;
const NS_PER_MIN = ev.NS_PER_MIN;

/** The mid is sampled this often for the realised variance (long enough for the bid-ask bounce to be small). */
export const VOL_SAMPLE_NS = 10 * NS_PER_S;
/** Counts of flow events in windows of these lengths (the burstiness' Fano factors). */
export const FANO_SHORT_NS = 20e6;
export const FANO_LONG_NS = NS_PER_S;

/** One minute of the window: counts of each kind of level change and time integrals of the book. */
export interface MinuteRow {
  /** Middle of the minute, ns after New York midnight. */
  todNs: number;
  /** Seconds of the minute after the window's opening book. */
  seconds: number;
  /** Changes driven by the order-flow intensities (best and deep adds/cancels, market orders). */
  flowEvents: number;
  bestAdds: number;
  bestCancels: number;
  marketOrders: number;
  deepCancels: number;
  emptyAdds: number;
  modifies: number;
  /** Integrals over the minute (contract-seconds, level-seconds, seconds). */
  bestQueueS: number;
  deepVolumeS: number;
  emptyLevelsS: number;
  gapS: number;
  /** Sum of squared mid changes (ticks^2) over VOL_SAMPLE_NS samples ending in the minute. */
  squaredMoves: number;
}

export interface SizeTally {
  n: number;
  sum: number;
  ones: number;
}

const tally = (): SizeTally => ({ n: 0, sum: 0, ones: 0 });
const count = (t: SizeTally, q: number): void => {
  t.n++;
  t.sum += q;
  if (q === 1) t.ones++;
};

/** Everything calibration reads of one or more sessions (sessions add into one meter). */
export class CalibrationMeter {
  readonly minutes: MinuteRow[] = [];
  readonly bestAdd = tally();
  readonly bestCancel = tally();
  readonly deepAdd = tally();
  readonly deepCancel = tally();
  readonly insideAdd = tally();
  readonly mboAdd = tally();
  /** Market-order sizes (a sweep's trades at one timestamp summed) by size. */
  readonly tradeSizes = new Map<number, number>();
  /** Durations (ns) of spreads wider than one tick. */
  readonly gaps = new NumberList();
  /** Time-weighted size at distance k (1..MAX_DEPTH) behind the best, both sides summed (contract-seconds). */
  readonly depthProfileS = new Float64Array(MAX_DEPTH + 1);
  /** Mid (ticks) summed over the volatility samples, and their number. */
  midSum = 0;
  midSamples = 0;
  /** Flow-event counts in FANO_SHORT_NS / FANO_LONG_NS windows: per-minute sums of n and n^2. */
  readonly fano = { short: new Float64Array(4), long: new Float64Array(4) };
  /** MBO records were seen (order-level estimators apply). */
  mbo = false;
  /** Deep levels are seen to MAX_DEPTH (MBO); an MBP-10 book shows 10 levels, whose edge moves with the price. */
  deepVisible = true;
  /** The windows measured (a simulation of a fitted profile runs the same ones: refine.ts). */
  readonly windows: { date: string; startNs: number; endNs: number }[] = [];

  private book = new DenseBook(4096);
  private startNs = 0;
  private lastTs = -1;
  private live = false;
  private row: MinuteRow | null = null;
  private nextMinuteNs = 0;
  private gapStart = -1;
  private nextSampleNs = 0;
  private lastSampleMid = NaN;
  private tradeTs = -1;
  private tradeSide = -1;
  private tradeQty = 0;
  private readonly fanoWin = { short: { end: 0, n: 0, minute: new Float64Array(3) }, long: { end: 0, n: 0, minute: new Float64Array(3) } };

  /**
   * A new session, the window [startNs, endNs) of `date`: the book starts empty. `mbo`: order
   * records follow (onRecord); `deep`: the book is seen to MAX_DEPTH behind the best.
   */
  startSession(date: string, startNs: number, endNs: number, mbo: boolean, deep: boolean): void {
    this.flushTrade();
    this.closeFano();
    this.book = new DenseBook(4096);
    this.startNs = startNs;
    this.lastTs = -1;
    this.live = false;
    this.row = null;
    this.nextMinuteNs = startNs;
    this.gapStart = -1;
    this.nextSampleNs = startNs + VOL_SAMPLE_NS;
    this.lastSampleMid = NaN;
    this.mbo = mbo;
    this.deepVisible = this.deepVisible && deep;
    this.fanoWin.short.end = startNs + FANO_SHORT_NS;
    this.fanoWin.long.end = startNs + FANO_LONG_NS;
    this.fanoWin.short.n = this.fanoWin.long.n = 0;
    this.windows.push({ date, startNs, endNs });
  }

  /** Ends the session being measured. */
  endSession(): void {
    this.flushTrade();
    this.closeFano();
  }

  /** One MBO record (action as a char code): new-order sizes and modifies. */
  onRecord(ts: number, action: number, size: number): void {
    if (ts <= this.startNs) return;
    if (action === 0x41) count(this.mboAdd, size);
    else if (action === 0x4d && this.row !== null) this.row.modifies++;
  }

  /** One level change, before it is applied to the book. */
  onEvent(ts: number, kind: number, side: number, price: number, qty: number): void {
    const book = this.book;
    if (!this.live && ts > this.startNs && book.hasTwoSides()) {
      this.live = true;
      this.lastTs = ts;
    }
    if (this.live) {
      this.advance(ts);
      this.classify(ts, kind, side, price, qty);
    }
    book.apply(kind, side, price, qty);
    if (this.live) {
      const gap = book.hasTwoSides() && book.bestAsk - book.bestBid > 1;
      if (gap && this.gapStart < 0) this.gapStart = ts;
      else if (!gap && this.gapStart >= 0) {
        this.gaps.push(ts - this.gapStart);
        this.gapStart = -1;
      }
    }
  }

  /** Integrates the book as it stood from the last event to ts, minute by minute. */
  private advance(ts: number): void {
    if (this.row === null) this.openMinute();
    while (ts > this.lastTs) {
      if (this.row === null || this.lastTs >= this.nextMinuteNs) this.openMinute();
      const to = Math.min(ts, this.nextMinuteNs);
      const dt = (to - this.lastTs) / NS_PER_S;
      if (dt > 0) this.integrate(dt);
      this.lastTs = to;
    }
    while (ts >= this.nextSampleNs) {
      const mid = this.book.mid();
      if (mid === mid && this.lastSampleMid === this.lastSampleMid && this.row !== null) this.row.squaredMoves += (mid - this.lastSampleMid) ** 2;
      if (mid === mid) {
        this.midSum += mid;
        this.midSamples++;
      }
      this.lastSampleMid = mid;
      this.nextSampleNs += VOL_SAMPLE_NS;
    }
  }

  private openMinute(): void {
    const start = this.row === null ? this.startNs + Math.floor((this.lastTs - this.startNs) / NS_PER_MIN) * NS_PER_MIN : this.nextMinuteNs;
    this.nextMinuteNs = start + NS_PER_MIN;
    this.row = {
      todNs: start + NS_PER_MIN / 2,
      seconds: 0,
      flowEvents: 0,
      bestAdds: 0,
      bestCancels: 0,
      marketOrders: 0,
      deepCancels: 0,
      emptyAdds: 0,
      modifies: 0,
      bestQueueS: 0,
      deepVolumeS: 0,
      emptyLevelsS: 0,
      gapS: 0,
      squaredMoves: 0,
    };
    this.minutes.push(this.row);
  }

  private integrate(dt: number): void {
    const book = this.book;
    const r = this.row!;
    const bb = book.bestBid;
    const ba = book.bestAsk;
    r.seconds += dt;
    r.bestQueueS += dt * (book.bestBidSize + book.bestAskSize);
    if (ba - bb > 1) r.gapS += dt;
    if (!this.deepVisible) return;
    let vol = 0;
    let empty = 0;
    const prof = this.depthProfileS;
    for (let k = 1; k <= MAX_DEPTH; k++) {
      const b = book.size(BID, bb - k);
      const a = book.size(ASK, ba + k);
      vol += b + a;
      empty += (b === 0 ? 1 : 0) + (a === 0 ? 1 : 0);
      prof[k] += dt * (b + a);
    }
    r.deepVolumeS += dt * vol;
    r.emptyLevelsS += dt * empty;
  }

  private classify(ts: number, kind: number, side: number, price: number, qty: number): void {
    const book = this.book;
    const r = this.row!;
    if (kind !== MD_TRADE || ts !== this.tradeTs || side !== this.tradeSide) this.flushTrade();
    const best = side === BID ? book.bestBid : book.bestAsk;
    const behind = side === BID ? best - price : price - best; // ticks behind the best (< 0: inside the spread)
    if (kind === MD_TRADE) {
      if (this.tradeTs < 0) {
        this.tradeTs = ts;
        this.tradeSide = side;
        this.tradeQty = 0;
        this.flow(ts);
      }
      this.tradeQty += qty;
    } else if (kind === MD_ADD) {
      if (behind < 0) count(this.insideAdd, qty);
      else if (behind === 0) {
        count(this.bestAdd, qty);
        r.bestAdds++;
        this.flow(ts);
      } else if (behind <= MAX_DEPTH && this.deepVisible) {
        if (book.size(side, price) === 0) r.emptyAdds++;
        else {
          count(this.deepAdd, qty);
          this.flow(ts);
        }
      }
    } else if (kind === MD_CANCEL) {
      if (behind === 0) {
        count(this.bestCancel, qty);
        r.bestCancels++;
        this.flow(ts);
      } else if (behind > 0 && behind <= MAX_DEPTH && this.deepVisible) {
        count(this.deepCancel, qty);
        r.deepCancels++;
        this.flow(ts);
      }
    }
  }

  /** The market order being read (its trades at one timestamp on one side) is complete. */
  private flushTrade(): void {
    if (this.tradeTs < 0) return;
    this.tradeSizes.set(this.tradeQty, (this.tradeSizes.get(this.tradeQty) ?? 0) + 1);
    if (this.row !== null) this.row.marketOrders++;
    this.tradeTs = -1;
    this.tradeSide = -1;
  }

  /** A flow event at ts: per-minute activity and the window counts of the Fano factors. */
  private flow(ts: number): void {
    this.row!.flowEvents++;
    this.window(this.fanoWin.short, ts, FANO_SHORT_NS, this.fano.short);
    this.window(this.fanoWin.long, ts, FANO_LONG_NS, this.fano.long);
  }

  // Windows are grouped by minute (n, sum, sum of squares per minute, added up as the Fano
  // factor's within-minute parts): the slow intraday activity changes do not count as bursts.
  private window(w: { end: number; n: number; minute: Float64Array }, ts: number, len: number, out: Float64Array): void {
    while (ts >= w.end) {
      const m = w.minute;
      m[0]++;
      m[1] += w.n;
      m[2] += w.n * w.n;
      w.n = 0;
      w.end += len;
      if (Math.floor((w.end - this.startNs) / NS_PER_MIN) !== Math.floor((w.end - len - this.startNs) / NS_PER_MIN)) this.closeMinuteWindows(m, out);
    }
    w.n++;
  }

  private closeMinuteWindows(m: Float64Array, out: Float64Array): void {
    if (m[0] > 1 && m[1] > 0) {
      const mean = m[1] / m[0];
      out[0] += m[1]; // events
      out[1] += m[2] - m[0] * mean * mean; // within-minute sum of squared deviations
      out[2] += m[0] - 1; // its degrees of freedom
      out[3] += m[0]; // windows
    }
    m.fill(0);
  }

  private closeFano(): void {
    this.closeMinuteWindows(this.fanoWin.short.minute, this.fano.short);
    this.closeMinuteWindows(this.fanoWin.long.minute, this.fano.long);
  }
}

/** The Fano factor (within-minute variance over mean of the window counts) from the accumulated parts. */
export function fanoFactor(parts: Float64Array): number {
  if (!(parts[2] > 0 && parts[0] > 0)) return NaN;
  return parts[1] / parts[2] / (parts[0] / parts[3]);
}
