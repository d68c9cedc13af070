// The research outputs of one backtest run, built from the run itself (its result and its
// sessions with their fill columns): shared by the CLI flags and the HTTP artifact routes.

import type { BacktestRun } from '../backtest/run.ts';
import type { ResolvedRequest } from '../backtest/request.ts';
import type { EngineConfig } from '../config/schema.ts';
import { buildReport } from '../report/html-report.ts';
import { equityTable, fillTable, toCsv } from './fill-table.ts';
import { toParquet } from './parquet.ts';

export type TableFormat = 'csv' | 'parquet';

/** The config sections that shape a backtest session (the report shows them). */
export function runConfig(c: EngineConfig) {
  return { trading: c.trading, latency: c.latency, risk: c.risk, fees: c.fees, simulation: c.simulation, execution: c.execution, strategy: c.strategy };
}

export function fillsFile(req: ResolvedRequest, run: BacktestRun, format: TableFormat): string | Uint8Array {
  const t = fillTable(req, run.sessions);
  return format === 'csv' ? toCsv(t) : toParquet(t);
}

export function equityFile(run: BacktestRun, format: TableFormat): string | Uint8Array {
  const t = equityTable(run.result.equity_curve);
  return format === 'csv' ? toCsv(t) : toParquet(t);
}

export function reportFile(req: ResolvedRequest, run: BacktestRun, config: EngineConfig): string {
  return buildReport({ result: run.result, fills: fillTable(req, run.sessions), config: runConfig(config) });
}
