// The backtest request the common flags (--symbol, --start, --end, --seed, --use-ml/--no-ml) describe,
// for --backtest and --sweep, and the flag that sets each request field, so a usage error names
// what the user typed. --data is not a request field: it goes to validateBacktestRequest.

import type { EngineConfig } from '../config/schema.ts';
import type { BacktestRequest } from '../backtest/request.ts';
import type { CliOptions } from './args.ts';

export const FLAG_OF_FIELD: Record<string, string> = {
  data: '--data',
  dataset: '--data',
  symbol: '--symbol',
  startDate: '--start',
  endDate: '--end',
  seed: '--seed',
  useML: '--use-ml',
  strategy: '--strategy',
  params: '--param',
};

export function requestFromFlags(opts: CliOptions, config: EngineConfig): BacktestRequest {
  // Recorded data brings its own contract: the configured symbol is the default of the synthetic run only.
  const symbol = opts.symbol ?? (opts.data ? undefined : config.trading.symbols[0]);
  const body: BacktestRequest = symbol ? { symbol } : {};
  if (opts.start) body.startDate = opts.start;
  if (opts.end) body.endDate = opts.end;
  if (opts.seed !== undefined) body.seed = opts.seed;
  if (opts.useMl !== undefined) body.useML = opts.useMl;
  if (opts.strategy !== undefined) body.strategy = opts.strategy;
  if (opts.params !== undefined) body.params = opts.params;
  return body;
}

/** The flag a request field's error is about (a strategy parameter's: --param NAME). */
export function flagOfField(field: string): string | undefined {
  return field.startsWith('params.') ? `--param ${field.slice(7)}` : FLAG_OF_FIELD[field];
}
