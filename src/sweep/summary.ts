// What a sweep keeps of each point's backtest: the figures to compare points by, taken from the
// run's result unchanged (full precision), and the ranking. One definition of the ranking: by
// total P&L, highest first; equal P&L keeps grid order.

import type { BacktestResult } from '../backtest/merge.ts';
import type { MarkoutFigure } from '../api/backtest-run.ts';

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

/** Indices of the points, best first: total P&L descending, ties in grid order. */
export function rankOrder(results: readonly PointResult[]): number[] {
  return results.map((_, i) => i).sort((a, b) => results[b].total_pnl - results[a].total_pnl || a - b);
}
