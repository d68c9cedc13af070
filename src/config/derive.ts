// The engine's parameter objects derived from the config, in one place for every driver:
// the backtest (with a request's overrides on top) and the live simulation.
// The built-in market maker's parameters are the strategy's own (src/strategy/setup.ts), so
// that the config does not import a strategy.

import type { RootFeeParams } from '../exchange/fees.ts';
import type { LatencyParams } from '../exchange/latency.ts';
import type { ExecutionParams } from '../exchange/venue.ts';
import type { RiskLimits } from '../risk/risk-manager.ts';
import { CONTRACTS } from '../market/instruments.ts';
import type { EngineConfig, FeeTable } from './schema.ts';

export function riskLimits(c: EngineConfig): RiskLimits {
  return {
    maxOrderSize: c.trading.max_order_size,
    // Both [trading] and [risk] carry a position limit; the tighter one holds.
    positionLimit: Math.min(c.trading.max_position, c.risk.max_position),
    maxDrawdownFrac: c.risk.max_drawdown_pct,
    maxDailyLoss: c.risk.max_daily_loss,
    killSwitchEnabled: c.risk.enable_kill_switch,
    flattenOnKill: c.risk.flatten_on_kill,
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

/**
 * Why a root has no fee schedule, or null: a root outside the built-in table (from [contracts]
 * or a definition record) pays only its own [fees.<ROOT>], never the flat table's E-mini figures.
 */
export function feesMissing(c: EngineConfig, root: string, source: string): string | null {
  if (Object.prototype.hasOwnProperty.call(c.fees, root) || (source === 'built-in' && Object.prototype.hasOwnProperty.call(CONTRACTS, root))) return null;
  return (
    `${root} (${source}) has no fee schedule: add [fees.${root}] with maker_fee, taker_fee and exchange_fee to the config (the flat ` +
    `[fees] table holds E-mini figures and applies to built-in roots only)`
  );
}

/** The fee schedule of `root`: its [fees.<ROOT>] section, else (a built-in root) the flat [fees] table. */
export function feeParams(c: EngineConfig, root: string): RootFeeParams {
  const own = Object.prototype.hasOwnProperty.call(c.fees, root) ? (c.fees[root] as FeeTable | undefined) : undefined;
  if (!own && !Object.prototype.hasOwnProperty.call(CONTRACTS, root)) throw new Error(feesMissing(c, root, 'not a built-in root')!);
  const t: FeeTable = own ?? c.fees;
  return { root, source: own ? `fees.${root}` : 'fees', makerFee: t.maker_fee, takerFee: t.taker_fee, exchangeFee: t.exchange_fee };
}

/** How the venue executes orders in `root` (the fee schedule is per root). */
export function executionParams(c: EngineConfig, root: string): ExecutionParams {
  return { latency: latencyParams(c), fees: feeParams(c, root), queueModel: c.execution.queue_model, queuePower: c.execution.queue_power };
}
