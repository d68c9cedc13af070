// Backtests of the same sessions with each signal in the strategy's place of the model: none
// (useML off), the MLP, and the untrained baselines of signal-baselines.ts. Everything else is
// the config's (ml_weight included). Sessions run one after another in this thread, because a
// baseline predictor is an object the backtest pool's workers cannot receive; a signal's
// P&L over several seeds is the sum of independent runs on identical markets.

import type { BacktestResult } from '../../backtest/merge.ts';
import { requestModel, validateBacktestRequest } from '../../backtest/request.ts';
import { runBacktest } from '../../backtest/run.ts';
import type { EngineConfig } from '../../config/schema.ts';
import { createPredictor } from '../inference/mlp-simd.ts';
import type { ModelFile } from '../inference/model.ts';
import type { Predictor } from '../inference/predictor.ts';
import { SIGNAL_NAMES, signalBaselineOf, SignalPredictor, type SignalName } from './signal-baselines.ts';

export const COMPARED_SIGNALS = ['none', 'mlp', ...SIGNAL_NAMES] as const;
export type ComparedSignal = (typeof COMPARED_SIGNALS)[number];

export interface CompareOptions {
  symbol: string;
  startDate: string;
  endDate: string;
  seeds: number[];
  config: EngineConfig;
  signals?: readonly ComparedSignal[];
  /** Progress lines (one per backtest). */
  log?: (line: string) => void;
}

export interface SignalRow {
  signal: ComparedSignal;
  /** One backtest per seed, in the order of CompareOptions.seeds. */
  runs: BacktestResult[];
}

/** The predictor of `signal` built from the model file (null: no signal). */
export function predictorFor(signal: ComparedSignal, model: ModelFile): Predictor | null {
  if (signal === 'none') return null;
  if (signal === 'mlp') return createPredictor(model);
  return new SignalPredictor(signal, signalBaselineOf(model.training, signal as SignalName), model.horizonNs);
}

export async function compareSignals(o: CompareOptions): Promise<SignalRow[]> {
  const rows: SignalRow[] = [];
  for (const signal of o.signals ?? COMPARED_SIGNALS) {
    const runs: BacktestResult[] = [];
    for (const seed of o.seeds) {
      // The request's own validation: unknown symbol, bad dates or a missing model fail here
      // with the field named, as they would over HTTP.
      const v = validateBacktestRequest({ symbol: o.symbol, startDate: o.startDate, endDate: o.endDate, seed, useML: signal !== 'none' }, o.config);
      if (!v.ok) throw new Error(v.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
      const model = requestModel(v.request, o.config);
      const predictor = model ? predictorFor(signal, model) : null;
      const t0 = performance.now();
      // No pool: sessions run inline, one after another, each with this predictor.
      const r = (await runBacktest(v.request, o.config, { predictor })).result;
      o.log?.(
        `${signal.padEnd(10)} seed ${seed}: P&L ${r.total_pnl.toFixed(2)} over ${r.sessions} session(s), ${r.total_fills} fills ` +
          `(${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
      runs.push(r);
    }
    rows.push({ signal, runs });
  }
  return rows;
}

const usd = (x: number) => `${x < 0 ? '−' : '+'}$${Math.abs(Math.round(x)).toLocaleString('en-US')}`;

/** Fill-quantity-weighted mean markout over runs (the pooled per-contract average), ticks. */
function pooledMarkout(runs: BacktestResult[], label: string): string {
  let q = 0,
    s = 0;
  for (const r of runs) {
    const m = r.markouts[label];
    if (m && m.avg_ticks !== null) {
      q += m.fills_qty;
      s += m.avg_ticks * m.fills_qty;
    }
  }
  return q > 0 ? (s / q).toFixed(2).replace('-', '−') : 'n/a';
}

/** Markdown for docs/model.md: one row per signal, P&L per seed and in total, fills, fees, markouts.
 *  `configName` names the config the runs used (its path). */
export function signalsTable(rows: SignalRow[], o: Pick<CompareOptions, 'symbol' | 'startDate' | 'endDate' | 'seeds'>, configName: string): string {
  const labels = Object.keys(rows[0]?.runs[0]?.markouts ?? {});
  const head = ['signal', ...o.seeds.map((s) => `P&L seed ${s}`), 'total P&L', 'fills', 'fees', `markouts ${labels.join(' / ')} (ticks)`];
  const lines = [
    `${o.symbol} ${o.startDate}..${o.endDate}, seeds ${o.seeds.join(', ')}, config ${configName}`,
    '',
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
  ];
  for (const r of rows) {
    const total = r.runs.reduce((a, x) => a + x.total_pnl, 0);
    const fills = r.runs.reduce((a, x) => a + x.total_fills, 0);
    const fees = r.runs.reduce((a, x) => a + x.fees, 0);
    // A P&L the account's kill switch cut short is marked: it is not what the signal would have earned.
    const pnl = (x: BacktestResult) => `${usd(x.total_pnl)}${x.kill_switch.tripped ? ` (stopped ${x.kill_switch.session_date!.slice(5)})` : ''}`;
    const cells = [
      r.signal,
      ...r.runs.map(pnl),
      usd(total),
      fills.toLocaleString('en-US'),
      `$${Math.round(fees).toLocaleString('en-US')}`,
      labels.map((l) => pooledMarkout(r.runs, l)).join(' / '),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n') + '\n';
}
