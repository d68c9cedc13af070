// The stylized-facts table of a market (docs/market-facts.md), for any source: a synthetic session
// (the generator, its order flow as its DBN export writes it) or recorded DBN data, MBO or MBP-10
// (replayed by the same DbnMarketSource a backtest uses, one table per trade date). Book facts
// come from the L2 events (MarketStats), order-flow facts from the records (OrderFlowStats). A
// fact the source cannot give is NaN: shown as n/a, null in JSON, never estimated.

import { eachEvent, eachEventAndRecord } from '../each-event.ts';
import { MarketGenerator } from '../generator.ts';
import { contractForRoot } from '../instruments.ts';
import type { MarketProfile } from '../market-profile.ts';
import { planReplay } from '../replay/dataset.ts';
import { DbnMarketSource } from '../replay/dbn-source.ts';
import { MarketStats } from './market-stats.ts';
import { NumberList, OrderFlowStats, quantile } from './order-flow.ts';

/** One fact: its JSON key, the table's label, unit, scale (value x scale is shown) and digits. */
export interface FactDef {
  key: string;
  label: string;
  unit: string;
  scale: number;
  digits: number;
}

export const FACTS: readonly FactDef[] = [
  { key: 'one_tick_spread_share', label: 'spread = 1 tick, time-weighted', unit: '%', scale: 100, digits: 2 },
  { key: 'spread_gap_median_ns', label: 'one-tick gap duration, median', unit: 'µs', scale: 1e-3, digits: 1 },
  { key: 'spread_gap_p99_ns', label: 'one-tick gap duration, 99th percentile', unit: 'ms', scale: 1e-6, digits: 1 },
  { key: 'mean_best_queue', label: 'mean best-level queue', unit: 'contracts', scale: 1, digits: 0 },
  { key: 'range', label: 'daily high–low range', unit: '%', scale: 100, digits: 2 },
  { key: 'annualised_vol', label: 'annualised vol of 1-min mid returns', unit: '%', scale: 100, digits: 1 },
  { key: 'abs_return_acf', label: 'ACF of \\|1-min returns\\|, lags 1–5', unit: '', scale: 1, digits: 2 },
  { key: 'open_activity_ratio', label: 'events/min, first 30 min vs 12:00–14:00', unit: '×', scale: 1, digits: 1 },
  { key: 'ofi_next_corr', label: 'corr(OFI over 1 s, next 1 s mid change)', unit: '', scale: 1, digits: 2 },
  { key: 'l2_events', label: 'events per session', unit: 'M', scale: 1e-6, digits: 1 },
  { key: 'size1_share', label: 'new orders of size 1', unit: '%', scale: 100, digits: 1 },
  { key: 'add_size_median', label: 'new order size, median', unit: 'contracts', scale: 1, digits: 0 },
  { key: 'add_size_mean', label: 'new order size, mean', unit: 'contracts', scale: 1, digits: 1 },
  { key: 'modify_share', label: 'Modify share of A/C/M/T messages', unit: '%', scale: 100, digits: 1 },
  { key: 'modifies_per_trade', label: 'modifies per trade', unit: '', scale: 1, digits: 2 },
  { key: 'inter_event_median_ns', label: 'inter-event time, median', unit: 'ms', scale: 1e-6, digits: 3 },
  { key: 'inter_event_p99_ns', label: 'inter-event time, 99th percentile', unit: 'ms', scale: 1e-6, digits: 2 },
  { key: 'inter_event_ratio', label: 'inter-event time, p99 / median', unit: '×', scale: 1, digits: 1 },
  { key: 'opening_burst', label: 'events/min, first 2 min vs rest of window', unit: '×', scale: 1, digits: 1 },
  { key: 'fills_per_trade', label: 'resting orders filled per trade', unit: '', scale: 1, digits: 2 },
];

export type SourceKind = 'synthetic' | 'mbo' | 'mbp-10';

/** The facts of one session of one source. */
export interface SessionFacts {
  source: string;
  kind: SourceKind;
  symbol: string;
  date: string;
  /** The window measured, ns after New York midnight of the date. */
  startNs: number;
  endNs: number;
  /** By FACTS key; NaN: the source cannot give it (n/a). */
  facts: Record<string, number>;
}

/** L2 events into MarketStats, and the durations of spreads wider than one tick. */
class BookMeter {
  readonly stats: MarketStats;
  private readonly startNs: number;
  private readonly gaps = new NumberList();
  private gapStart = -1;

  constructor(startNs: number) {
    this.startNs = startNs;
    this.stats = new MarketStats(startNs);
  }

  onEvent(ts: number, kind: number, side: number, price: number, qty: number): void {
    this.stats.onEvent(ts, kind, side, price, qty);
    const book = this.stats.book;
    // A gap: both sides shown, more than one tick apart (after the window's opening book).
    const gap = ts > this.startNs && book.hasTwoSides() && book.bestAsk - book.bestBid > 1;
    if (gap && this.gapStart < 0) this.gapStart = ts;
    else if (!gap && this.gapStart >= 0) {
      this.gaps.push(ts - this.gapStart);
      this.gapStart = -1;
    }
  }

  facts(): Record<string, number> {
    const s = this.stats.summary();
    const gaps = this.gaps.sorted();
    return {
      one_tick_spread_share: s.oneTickSpreadFraction,
      spread_gap_median_ns: quantile(gaps, 0.5),
      spread_gap_p99_ns: quantile(gaps, 0.99),
      mean_best_queue: s.meanBestQueue,
      range: s.rangeFraction,
      annualised_vol: this.stats.minuteMids.length >= 3 ? s.annualisedVol : NaN, // a std needs 2 returns
      abs_return_acf: s.absReturnAcf.reduce((a, b) => a + b, 0) / s.absReturnAcf.length,
      open_activity_ratio: s.openActivityRatio,
      ofi_next_corr: s.ofiNextCorr,
      l2_events: s.events,
    };
  }
}

function flowFacts(flow: OrderFlowStats): Record<string, number> {
  const f = flow.summary();
  return {
    size1_share: f.size1Share,
    add_size_median: f.addSizeMedian,
    add_size_mean: f.addSizeMean,
    modify_share: f.modifyShare,
    modifies_per_trade: f.modifiesPerTrade,
    inter_event_median_ns: f.interEventMedianNs,
    inter_event_p99_ns: f.interEventP99Ns,
    inter_event_ratio: f.interEventRatio,
    opening_burst: f.openingBurst,
    fills_per_trade: f.fillsPerTrade,
  };
}

export interface SyntheticOptions {
  root: string;
  date: string;
  seed: number;
  startNs: number;
  endNs: number;
  /** Overrides of the root's market profile (e.g. REALISTIC_FLOW), as the export takes them. */
  profile?: Partial<MarketProfile>;
}

/**
 * A synthetic session's facts: the generator with its defaults for the root (activity 1), its
 * orders as MboFromL2 turns them into the MBO records `--export-dbn` writes.
 */
export function syntheticFacts(o: SyntheticOptions): SessionFacts {
  const spec = contractForRoot(o.root);
  const gen = new MarketGenerator(spec, o.date, o.seed, { sessionStartNs: o.startNs, sessionEndNs: o.endNs, profile: o.profile });
  const book = new BookMeter(o.startNs);
  const flow = new OrderFlowStats(o.startNs, true);
  eachEventAndRecord(
    gen,
    (t, kind, side, price, qty) => book.onEvent(t, kind, side, price, qty),
    (t, action, size) => flow.onRecord(t, action, size),
  );
  return {
    source: `synthetic ${o.root} seed ${o.seed}`,
    kind: 'synthetic',
    symbol: o.root,
    date: o.date,
    startNs: o.startNs,
    endNs: o.endNs,
    facts: { ...book.facts(), ...flowFacts(flow) },
  };
}

export interface DbnOptions {
  /** A root or month-coded symbol among the data's contracts (default: the first). */
  symbol?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  /** Clip each trade date's window to [fromNs, toNs) (ns after New York midnight), when given. */
  fromNs?: number | null;
  toNs?: number | null;
}

/** The facts of each trade date of a DBN file or directory (MBO or MBP-10), replayed as a backtest replays it. */
export function dbnFacts(path: string, o: DbnOptions = {}): SessionFacts[] {
  const plan = planReplay(path, { symbol: o.symbol, startDate: o.startDate, endDate: o.endDate, perOrder: false });
  const out: SessionFacts[] = [];
  for (const s of plan.sessions) {
    const startNs = Math.max(s.sessionStartNs, o.fromNs ?? -Infinity);
    const endNs = Math.min(s.sessionEndNs, o.toNs ?? Infinity);
    if (!(endNs > startNs)) continue;
    const mbo = plan.schema === 'mbo';
    const source = new DbnMarketSource(s.replay, startNs, endNs);
    const book = new BookMeter(startNs);
    const flow = new OrderFlowStats(startNs, mbo);
    source.onRecord = (ts, action, size) => flow.onRecord(ts, action, size);
    try {
      eachEvent(source, (ts, kind, side, price, qty) => book.onEvent(ts, kind, side, price, qty));
    } finally {
      source.close();
    }
    out.push({ source: path, kind: plan.schema, symbol: s.replay.symbol, date: s.date, startNs, endNs, facts: { ...book.facts(), ...flowFacts(flow) } });
  }
  if (out.length === 0) throw new Error(`${path}: no trade date with data in the window`);
  return out;
}
