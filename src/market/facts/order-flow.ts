// The order-flow structure of a market, measured from its records (docs/market-facts.md): new
// order sizes, the Modify share, inter-event times, the opening burst and resting orders filled
// per trade. Fed with MBO records (Databento's actions A/C/M/T/F, the synthetic market's through
// MboFromL2, exactly as its DBN export writes them) or MBP-10 records, whose timestamps give the
// inter-event times and the burst and nothing else: the facts about single orders are NaN (n/a).
//
// Records at or before the window's start are not flow: they are the book as it stands when the
// window opens (the synthetic session's opening book, a replay's published book).

import { NS_PER_MIN } from '../../core/events.ts';

const A = 0x41;
const C = 0x43;
const M = 0x4d;
const T = 0x54;
const F = 0x46;

/** The opening burst compares the event rate of the window's first 2 minutes with the rest's. */
export const BURST_NS = 2 * NS_PER_MIN;

export interface OrderFlowSummary {
  /** Add (A) records: new orders. */
  adds: number;
  /** Share of new orders of size 1; median and mean new-order size. */
  size1Share: number;
  addSizeMedian: number;
  addSizeMean: number;
  /** Modify (M) records over A + C + M + T records. */
  modifyShare: number;
  modifiesPerTrade: number;
  /** Events: distinct timestamps (records sharing a ts_event are one matching-engine event). */
  events: number;
  /** Time between consecutive events, ns: median, 99th percentile, their ratio. */
  interEventMedianNs: number;
  interEventP99Ns: number;
  interEventRatio: number;
  /** Events per minute in the window's first 2 minutes over the rest's (to the last event). */
  openingBurst: number;
  /** Fill (F) records per trade (T) record: resting orders filled per aggressor. */
  fillsPerTrade: number;
}

/** The value at rank floor(n q) of sorted values (the convention of every percentile here). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  return n === 0 ? NaN : sorted[Math.min(n - 1, Math.floor(n * q))];
}

/** A growable list of numbers in a Float64Array (millions of gaps per session). */
export class NumberList {
  private a = new Float64Array(1 << 16);
  length = 0;

  push(x: number): void {
    if (this.length === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.length++] = x;
  }

  sorted(): Float64Array {
    return this.a.slice(0, this.length).sort();
  }
}

export class OrderFlowStats {
  private readonly startNs: number;
  /** MBO records (order by order); false: MBP-10, whose records say nothing of single orders. */
  private readonly mbo: boolean;
  private readonly addSizes = new Map<number, number>();
  private addSum = 0;
  private readonly counts = { A: 0, C: 0, M: 0, T: 0, F: 0 };
  private lastTs = NaN;
  private events = 0;
  private burstEvents = 0;
  readonly gaps = new NumberList();

  constructor(startNs: number, mbo: boolean) {
    this.startNs = startNs;
    this.mbo = mbo;
  }

  /** One record: its time (engine ns), action (char code) and size. */
  onRecord(ts: number, action: number, size: number): void {
    if (ts <= this.startNs) return;
    if (ts !== this.lastTs) {
      if (this.events > 0) this.gaps.push(ts - this.lastTs);
      this.events++;
      if (ts <= this.startNs + BURST_NS) this.burstEvents++;
      this.lastTs = ts;
    }
    const k = this.counts;
    if (action === A) {
      k.A++;
      this.addSizes.set(size, (this.addSizes.get(size) ?? 0) + 1);
      this.addSum += size;
    } else if (action === C) k.C++;
    else if (action === M) k.M++;
    else if (action === T) k.T++;
    else if (action === F) k.F++;
  }

  summary(): OrderFlowSummary {
    const k = this.counts;
    const gaps = this.gaps.sorted();
    const median = quantile(gaps, 0.5);
    const p99 = quantile(gaps, 0.99);
    // Rates: the first BURST_NS after the start, and the rest up to the last event.
    const restNs = this.lastTs - (this.startNs + BURST_NS);
    const burst = restNs > 0 ? this.burstEvents / BURST_NS / ((this.events - this.burstEvents) / restNs) : NaN;
    const mbo = this.mbo;
    const messages = k.A + k.C + k.M + k.T;
    return {
      adds: mbo ? k.A : NaN,
      size1Share: mbo && k.A > 0 ? (this.addSizes.get(1) ?? 0) / k.A : NaN,
      addSizeMedian: mbo ? histogramMedian(this.addSizes, k.A) : NaN,
      addSizeMean: mbo && k.A > 0 ? this.addSum / k.A : NaN,
      modifyShare: mbo && messages > 0 ? k.M / messages : NaN,
      modifiesPerTrade: mbo && k.T > 0 ? k.M / k.T : NaN,
      events: this.events,
      interEventMedianNs: median,
      interEventP99Ns: p99,
      interEventRatio: p99 / median,
      openingBurst: burst,
      fillsPerTrade: mbo && k.T > 0 ? k.F / k.T : NaN,
    };
  }
}

/** The value at rank floor(n / 2) of a histogram of sizes (as quantile() on the sorted sizes). */
function histogramMedian(h: ReadonlyMap<number, number>, n: number): number {
  if (n === 0) return NaN;
  const rank = Math.floor(n * 0.5);
  let seen = 0;
  for (const size of [...h.keys()].sort((a, b) => a - b)) {
    seen += h.get(size)!;
    if (seen > rank) return size;
  }
  return NaN;
}
