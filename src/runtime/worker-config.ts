// What every simulation worker receives in workerData, and the pieces they derive from it.

import type { EngineConfig } from '../config/schema.ts';
import { parseClock } from '../market/calendar.ts';
import { contractForRoot, type ContractSpec } from '../market/instruments.ts';
import type { RiskLimits } from '../risk/risk-manager.ts';
import type { QuoteParams } from '../strategy/market-maker.ts';
import type { SharedLayout } from './layout.ts';
import { SimClock } from './clock.ts';

export interface WorkerInit {
  layout: SharedLayout;
  config: EngineConfig;
  /** Shared wall-clock origin (ms) of the simulated clock. */
  originMs: number;
  /** Order-book generation this worker serves (0 at start, +1 per engine restart). */
  generation: number;
  /** How many times this worker role has been restarted. */
  restarts: number;
  /** Spin this long (µs) before blocking when idle. */
  spinUs: number;
}

export function simClock(init: WorkerInit): SimClock {
  const sim = init.config.simulation;
  return new SimClock(sim.start_date, parseClock(sim.session_start)!, parseClock(sim.session_end)!, sim.speed, init.originMs);
}

export function specOf(root: string): ContractSpec {
  return contractForRoot(root);
}

export function riskLimits(c: EngineConfig): RiskLimits {
  return {
    maxOrderSize: c.trading.max_order_size,
    positionLimit: Math.min(c.trading.max_position, c.risk.max_position),
    maxDrawdownFrac: c.risk.max_drawdown_pct,
    maxDailyLoss: c.risk.max_daily_loss,
    killSwitchEnabled: c.risk.enable_kill_switch,
  };
}

export function quoteParams(c: EngineConfig): QuoteParams {
  return {
    orderSize: Math.min(c.strategy.order_size, c.trading.max_order_size),
    spreadMultiplier: c.strategy.spread_multiplier,
    skewFactor: c.strategy.skew_factor,
    inventoryLimit: c.strategy.inventory_limit,
    volSpreadFactor: c.strategy.vol_spread_factor,
    useML: c.strategy.use_ml,
    mlWeight: c.strategy.ml_weight,
  };
}

export function latencyParams(c: EngineConfig) {
  return {
    orderLatencyNs: c.latency.order_latency_ns,
    marketDataLatencyNs: c.latency.market_data_latency_ns,
    responseLatencyNs: c.latency.response_latency_ns ?? c.latency.order_latency_ns,
    jitterNs: c.latency.jitter_ns,
  };
}

/** Busy-waits up to `us` microseconds; returns early when `done()` says so. */
export function spinFor(us: number): void {
  const until = performance.now() + us / 1000;
  while (performance.now() < until) {
    /* spin */
  }
}
