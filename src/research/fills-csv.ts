// The fills CSV: one row per fill, enough to recompute the run's P&L: for each session,
// sum of -signed(price x quantity) x $/point - fees + final position x final mid x $/point.
// The columns are defined once, in src/research/fill-table.ts (CSV, Parquet and report share them).

import type { AccountSession } from '../backtest/account.ts';
import type { ResolvedRequest } from '../backtest/request.ts';
import { FILL_COLUMNS, fillTable, toCsv } from './fill-table.ts';

export const FILLS_CSV_HEADER = FILL_COLUMNS.map((c) => c.name).join(',');

export function fillsCsv(req: Pick<ResolvedRequest, 'root' | 'dates' | 'contracts'>, sessions: AccountSession[]): string {
  return toCsv(fillTable(req, sessions));
}
