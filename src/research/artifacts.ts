// The research outputs of one backtest run, built from the run itself (its result and its
// sessions with their fill columns): shared by the CLI flags and the HTTP artifact routes.

import type { BacktestRun } from '../backtest/run.ts';
import type { ResolvedRequest } from '../backtest/request.ts';
import type { EngineConfig } from '../config/schema.ts';
import type { AccountSession } from '../backtest/account.ts';
import { sessionNsToEpochMs } from '../market/calendar.ts';
import { contractForRoot, ticksToPrice } from '../market/instruments.ts';
import { buildReport, type QuotePoints } from './report/html-report.ts';
import { type Column, equityTable, fillTable, toCsv } from './fill-table.ts';
import { VERSION } from '../version.ts';
import { toParquet } from './parquet.ts';
import { orderTable, quoteTable } from './order-table.ts';

export type TableFormat = 'csv' | 'parquet';

/** The config sections that shape a backtest session (the report shows them). */
export function runConfig(c: EngineConfig) {
  return { trading: c.trading, latency: c.latency, risk: c.risk, fees: c.fees, simulation: c.simulation, execution: c.execution, strategy: c.strategy };
}

/**
 * What made the run, for a Parquet file's key-value metadata: the engine version, the resolved
 * request (symbol, dates, contracts, seed, strategy with every parameter) and the config
 * sections that shape a session, as JSON; seed, strategy and symbol also on keys of their own.
 */
export function runMetadata(req: ResolvedRequest, config: EngineConfig): Record<string, string> {
  return {
    'engine.version': VERSION,
    'engine.symbol': req.symbol,
    'engine.seed': String(req.seed),
    'engine.strategy': req.strategy.name,
    'engine.request': JSON.stringify(req),
    'engine.config': JSON.stringify(runConfig(config)),
  };
}

/** A table in the format asked for; Parquet carries the run's metadata. */
function tableFile(t: Column[], format: TableFormat, req: ResolvedRequest, config: EngineConfig): string | Uint8Array {
  return format === 'csv' ? toCsv(t) : toParquet(t, runMetadata(req, config));
}

export function fillsFile(req: ResolvedRequest, run: BacktestRun, format: TableFormat, config: EngineConfig): string | Uint8Array {
  return tableFile(fillTable(req, run.sessions), format, req, config);
}

export function equityFile(req: ResolvedRequest, run: BacktestRun, format: TableFormat, config: EngineConfig): string | Uint8Array {
  return tableFile(equityTable(run.result.equity_curve), format, req, config);
}

export function ordersFile(req: ResolvedRequest, run: BacktestRun, format: TableFormat, config: EngineConfig): string | Uint8Array {
  return tableFile(orderTable(req, run.sessions), format, req, config);
}

export function quotesFile(req: ResolvedRequest, run: BacktestRun, format: TableFormat, config: EngineConfig): string | Uint8Array {
  return tableFile(quoteTable(req, run.sessions), format, req, config);
}

/** The sessions' quote samples in epoch ms and price units (NaN: no quote on that side). */
export function quotePoints(root: string, sessions: AccountSession[]): QuotePoints {
  const tick = contractForRoot(root).tickSize;
  const out: QuotePoints = { t: [], bid: [], ask: [], mid: [] };
  for (const { date, result: s } of sessions) {
    const q = s?.quotes;
    if (!q) continue;
    for (let i = 0; i < q.times.length; i++) {
      out.t.push(sessionNsToEpochMs(date, q.times[i]));
      out.bid.push(ticksToPrice(q.bid[i], tick));
      out.ask.push(ticksToPrice(q.ask[i], tick));
      out.mid.push(ticksToPrice(q.mid[i], tick));
    }
  }
  return out;
}

export function reportFile(req: ResolvedRequest, run: BacktestRun, config: EngineConfig): string {
  return buildReport({ result: run.result, fills: fillTable(req, run.sessions), quotes: quotePoints(req.root, run.sessions), config: runConfig(config) });
}
