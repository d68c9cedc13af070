// Types of what the engine's API sends. The live state is the engine's own SymbolState (imported,
// never redefined); the envelope and backtest shapes below mirror src/http/routes/state.ts and
// src/backtest/service.ts, which cannot be imported into browser code (they pull in Node modules).

import type { FillView, LatencySummary, OurOrder, SymbolState } from '../../runtime/view.ts';

export type { FillView, LatencySummary, OurOrder, SymbolState };

/** GET /api/state and the stream's `state` event. */
export interface StatePayload {
  version: string;
  uptime_s: number;
  symbols: string[];
  states: Record<string, SymbolState>;
}

export type AlertView = SymbolState['risk']['alerts'][number];
export type LatencyStage = keyof SymbolState['latency'];
export const LATENCY_STAGES: readonly LatencyStage[] = ['tick_to_trade', 'book_update', 'inference'];

/** The stream's `alert` event. */
export interface AlertEvent {
  symbol: string;
  alert: AlertView;
}

/** The stream's `backtest_progress` event. */
export interface BacktestProgressEvent {
  id: string;
  symbol: string;
  progress: number; // 0..1
}

export interface FieldError {
  field: string;
  message: string;
}

/** Every API error: { error: { code, message, fields? } } (the dashboard's 502 has the same shape). */
export interface ApiErrorBody {
  error: { code: string; message: string; fields?: FieldError[] };
}

/** The body of POST /api/backtest (every field but symbol is optional: the engine's config fills it). */
export interface BacktestRequestBody {
  symbol: string;
  startDate?: string;
  endDate?: string;
  initialCapital?: number;
  spreadMultiplier?: number;
  inventoryLimit?: number;
  skewFactor?: number;
  useML?: boolean;
  maxDrawdown?: number;
  positionLimit?: number;
}

export type BacktestStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

/** A run as POST /api/backtest, GET /api/backtests[/:id] and `backtest_complete` return it. */
export interface BacktestRun {
  id: string;
  status: BacktestStatus;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  progress: number;
  error: { code: string; message: string } | null;
  resolved?: { symbol: string; root: string; startDate: string; endDate: string; dates: string[]; initialCapital: number; spreadMultiplier: number; inventoryLimit: number; skewFactor: number; useML: boolean; maxDrawdown: number; positionLimit: number; seed: number };
  // Result fields (present once completed).
  symbol?: string;
  root?: string;
  start_date?: string;
  end_date?: string;
  sessions?: number;
  total_pnl?: number;
  sharpe_ratio?: number;
  max_drawdown_pct?: number;
  win_rate?: number;
  profit_factor?: number | null;
  total_trades?: number;
  total_fills?: number;
  volume?: number;
  fees_paid?: number;
  realized_pnl?: number;
  final_position?: number;
  max_abs_position?: number;
  final_equity?: number;
  initial_capital?: number;
  events_processed?: number;
  orders_sent?: number;
  kill_switch?: { tripped_sessions: string[] };
  equity_curve?: { t: number; equity: number }[];
}

export interface BacktestList {
  total: number;
  runs: BacktestRun[];
}

export function isApiError(x: unknown): x is ApiErrorBody {
  return typeof x === 'object' && x !== null && typeof (x as ApiErrorBody).error === 'object' && (x as ApiErrorBody).error !== null && typeof (x as ApiErrorBody).error.message === 'string';
}
