// Fee schedule (docs/execution.md, "Fees per product"): USD per contract per fill. A passive (maker) fill pays
// maker_fee + exchange_fee; an aggressive (taker) fill pays taker_fee + exchange_fee. A negative
// result is a rebate. The single place fees are computed: backtest and simulation both use it.

import type { FeeScheduleView } from '../wire/fee-schedule.ts';
import { LIQ_MAKER, LIQ_TAKER } from '../core/events.ts';

export interface FeeParams {
  makerFee: number;
  takerFee: number;
  exchangeFee: number;
}

/** A product's schedule and where it came from: its config table, `fees.MES` or the flat `fees`. */
export interface RootFeeParams extends FeeParams {
  root: string;
  source: string;
}

/**
 * Fee port (hftbacktest's FeeModel): what a fill of `qty` contracts costs, by liquidity flag.
 * The exchange asks it for every fill; a per-product table picks one per instrument.
 */
export interface FeeModel {
  /** USD paid for a fill of `qty` contracts with liquidity flag LIQ_MAKER or LIQ_TAKER. */
  fee(liquidity: number, qty: number): number;
  /** fee() written to out[i]: the hot-path form (no float crosses a call). */
  feeInto(out: Float64Array, i: number, liquidity: number, qty: number): void;
}

/** A flat per-contract schedule: docs/execution.md's maker/taker + exchange fee. */
export class FeeSchedule implements FeeModel {
  readonly makerFee: number;
  readonly takerFee: number;
  readonly exchangeFee: number;
  /** USD per contract for a maker fill (maker + exchange). */
  readonly makerPerContract: number;
  /** USD per contract for a taker fill (taker + exchange). */
  readonly takerPerContract: number;

  constructor(p: FeeParams) {
    for (const k of ['makerFee', 'takerFee', 'exchangeFee'] as const) {
      if (typeof p[k] !== 'number' || !Number.isFinite(p[k])) throw new Error(`fee ${k} must be a finite number, got ${p[k]}`);
    }
    this.makerFee = p.makerFee;
    this.takerFee = p.takerFee;
    this.exchangeFee = p.exchangeFee;
    this.makerPerContract = p.makerFee + p.exchangeFee;
    this.takerPerContract = p.takerFee + p.exchangeFee;
  }

  /** USD paid for a fill of `qty` contracts with liquidity flag LIQ_MAKER or LIQ_TAKER. */
  fee(liquidity: number, qty: number): number {
    if (liquidity === LIQ_MAKER) return qty * this.makerPerContract;
    if (liquidity === LIQ_TAKER) return qty * this.takerPerContract;
    throw new Error(`unknown liquidity flag ${liquidity}`);
  }

  /**
   * fee() written to out[i]: the hot-path form (hot-path rule 3).
   */
  feeInto(out: Float64Array, i: number, liquidity: number, qty: number): void {
    out[i] = liquidity === LIQ_MAKER ? qty * this.makerPerContract : qty * this.takerPerContract;
  }
}

/** The schedule as backtest results and /api/state show it: enough to recompute every fill's fee. */
export function feeScheduleView(p: RootFeeParams): FeeScheduleView {
  const s = new FeeSchedule(p);
  return {
    root: p.root,
    source: p.source,
    maker_fee: s.makerFee,
    taker_fee: s.takerFee,
    exchange_fee: s.exchangeFee,
    maker_per_contract: s.makerPerContract,
    taker_per_contract: s.takerPerContract,
  };
}
