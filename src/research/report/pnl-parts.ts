// The report's one place that reads P&L's parts from a result and from the fills table
// (docs/metrics.md: gross − fees = net).

import type { BacktestResult } from '../../wire/backtest-run.ts';
import type { Column } from '../fill-table.ts';

export interface PnlParts {
  /** P&L before fees, USD: net + fees. */
  gross: number;
  /** Exchange, clearing and brokerage fees paid, USD. */
  fees: number;
  /** Total P&L after fees, USD (equity minus initial capital). */
  net: number;
}

/** Gross P&L, fees and net P&L of a run (gross - fees = net). */
export function pnlParts(r: BacktestResult): PnlParts {
  return { gross: r.total_pnl + r.fees, fees: r.fees, net: r.total_pnl };
}

/**
 * The P&L of the trades each closing fill closed, USD, net of both fills' pro-rata fees (the fills
 * file's realized_pnl_net; fills that only opened are left out).
 */
export function closedTradePnls(fills: Column[]): number[] {
  const values = fills.find((c) => c.name === 'realized_pnl_net')?.values ?? [];
  return (values as number[]).filter((x) => x !== 0 && Number.isFinite(x));
}
