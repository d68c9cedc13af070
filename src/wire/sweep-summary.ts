// What a sweep keeps of each point's backtest: the figures to compare points by, taken from the
// run's result unchanged (full precision), and the ranking. One definition of the ranking: by
// total P&L, highest first; equal P&L keeps grid order.

import type { BacktestResult, MarkoutFigure } from './backtest-run.ts';

export interface PointResult {
  sessions: number;
  total_pnl: number;
  sharpe_ratio: number;
  max_drawdown_pct: number;
  total_fills: number;
  fees: number;
  markouts: Record<string, MarkoutFigure>;
  kill_switch_tripped: boolean;
}

export function pointResult(r: BacktestResult): PointResult {
  return {
    sessions: r.sessions,
    total_pnl: r.total_pnl,
    sharpe_ratio: r.sharpe_ratio,
    max_drawdown_pct: r.max_drawdown_pct,
    total_fills: r.total_fills,
    fees: r.fees,
    markouts: r.markouts,
    kill_switch_tripped: r.kill_switch.tripped,
  };
}

/**
 * Whether a point traded at all. One that never filled has P&L 0, which would otherwise rank it
 * above every losing point (any spread_multiplier above 1 never fills on the synthetic market).
 */
export function traded(r: Pick<PointResult, 'total_fills'>): boolean {
  return r.total_fills > 0;
}

/**
 * Indices of the points, best first: the points that traded by total P&L descending (ties in
 * grid order), then the points that never traded, in grid order: listed apart, not ranked.
 */
export function rankOrder(results: readonly PointResult[]): number[] {
  const idx = results.map((_, i) => i);
  const ranked = idx.filter((i) => traded(results[i])).sort((a, b) => results[b].total_pnl - results[a].total_pnl || a - b);
  return [...ranked, ...idx.filter((i) => !traded(results[i]))];
}

/** "6 of 9 points never traded", or '' when every point traded. */
export function untradedNote(results: readonly Pick<PointResult, 'total_fills'>[]): string {
  const n = results.filter((r) => !traded(r)).length;
  return n ? `${n} of ${results.length} point${results.length === 1 ? '' : 's'} never traded` : '';
}
