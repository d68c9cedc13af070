// What every route module gets: the dependencies and the shared HTTP-layer objects.

import type pino from 'pino';
import type { BacktestService } from '../backtest-service/service.ts';
import type { SweepService } from '../sweep/service.ts';
import type { EngineConfig } from '../config/schema.ts';
import type { RuntimeView } from '../runtime/view.ts';
import type { EngineMetrics } from './metrics.ts';
import type { RawResponses } from './raw-response.ts';
import type { SseHub } from './sse.ts';

export interface HttpDeps {
  runtime: RuntimeView;
  config: EngineConfig;
  logger: pino.Logger;
  backtests: BacktestService;
  /** Sweeps (default: a SweepService on the backtests' pool, created by createHttpApp). */
  sweeps?: SweepService;
}

export interface ApiContext extends HttpDeps {
  metrics: EngineMetrics;
  hub: SseHub;
  /** Bodies routes write to the Node response themselves (the event stream). */
  rawResponses: RawResponses;
  sweeps: SweepService;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
}

/** Seconds since the runtime started (Date.now(): whole milliseconds). */
export function uptimeSeconds(runtime: RuntimeView, now = Date.now()): number {
  return Math.max(0, (now - runtime.startedAtMs) / 1000);
}
