// The backtest request the common flags (--symbol, --start, --end, --seed, --use-ml) describe,
// and the flag that sets each request field, so a usage error names what the user typed.
// (backtest-command.ts builds the same body inline; it can switch to this when merged.)

import type { EngineConfig } from '../config/schema.ts';
import type { BacktestRequest } from '../backtest/request.ts';
import type { CliOptions } from './args.ts';

export const FLAG_OF_FIELD: Record<string, string> = { symbol: '--symbol', startDate: '--start', endDate: '--end', seed: '--seed', useML: '--use-ml' };

export function requestFromFlags(opts: CliOptions, config: EngineConfig): BacktestRequest {
  const body: BacktestRequest = { symbol: opts.symbol ?? config.trading.symbols[0] };
  if (opts.start) body.startDate = opts.start;
  if (opts.end) body.endDate = opts.end;
  if (opts.seed !== undefined) body.seed = opts.seed;
  if (opts.useMl) body.useML = true;
  return body;
}
