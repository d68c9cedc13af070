// The engine's parameter objects derived from the config, in one place for every driver:
// the backtest (with a request's overrides on top) and the live simulation.

import type { FeeParams } from '../exchange/fees.ts';
import type { LatencyParams } from '../exchange/latency.ts';
import type { ExecutionParams } from '../exchange/venue.ts';
import type { RiskLimits } from '../risk/risk-manager.ts';
import type { QuoteParams } from '../strategy/market-maker.ts';
import type { EngineConfig } from './schema.ts';

export function riskLimits(c: EngineConfig): RiskLimits {
  return {
    maxOrderSize: c.trading.max_order_size,
    // Both [trading] and [risk] carry a position limit; the tighter one holds.
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

export function latencyParams(c: EngineConfig): LatencyParams {
  return {
    orderLatencyNs: c.latency.order_latency_ns,
    marketDataLatencyNs: c.latency.market_data_latency_ns,
    responseLatencyNs: c.latency.response_latency_ns ?? c.latency.order_latency_ns,
    jitterNs: c.latency.jitter_ns,
  };
}

export function feeParams(c: EngineConfig): FeeParams {
  return { makerFee: c.fees.maker_fee, takerFee: c.fees.taker_fee, exchangeFee: c.fees.exchange_fee };
}

export function executionParams(c: EngineConfig): ExecutionParams {
  return { latency: latencyParams(c), fees: feeParams(c), queueModel: c.execution.queue_model, queuePower: c.execution.queue_power };
}
