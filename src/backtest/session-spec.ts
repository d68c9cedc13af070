// A session's input and output (SessionSpec, SessionResult): plain data, so a spec crosses into a
// pool worker or a queue job and a result comes back. The driver that runs one is session.ts.

import type { ContractSpec } from '../market/instruments.ts';
import type { ExecutionParams } from '../exchange/venue.ts';
import type { ReplaySessionSpec } from '../market/replay/replay-spec.ts';
import type { ReplayQuality } from '../market/replay/quality.ts';
import type { ModelFile } from '../ml/inference/model.ts';
import type { ClosedTradeStats } from '../portfolio/portfolio.ts';
import type { FillField } from '../portfolio/fill-log.ts';
import type { MarkoutSums } from '../portfolio/markouts.ts';
import type { QuoteSeries } from '../portfolio/quote-samples.ts';
import type { Alert } from '../risk/alerts.ts';
import type { RiskLimits } from '../risk/risk-manager.ts';
import type { StrategyIdentity } from '../strategy/port.ts';

/**
 * What a session of a multi-day run inherits from the sessions before it: the account's equity
 * at its open and the running equity peak (null: none yet). A session whose account's kill
 * switch has tripped is not run at all. JSON-safe, like the whole spec.
 */
export interface AccountCarry {
  capital: number;
  peak: number | null;
}

export interface SessionStrategy extends StrategyIdentity {
  file: string | null;
}

/** Everything one session needs; plain data so it can cross into a pool worker. */
export interface SessionSpec {
  root: string;
  /**
   * The root's contract spec (a pool worker knows neither the config's [contracts] nor the
   * data's definitions); absent: the built-in table's.
   */
  contract?: ContractSpec;
  date: string; // YYYY-MM-DD
  seed: number;
  sessionStartNs: number;
  sessionEndNs: number;
  activity: number;
  carry: AccountCarry;
  limits: RiskLimits;
  /** The strategy by name and content hash, its resolved parameters, and the file it came from (null: built-in, or a queue job, which never carries a path). */
  strategy: SessionStrategy;
  /** Run the model (its prediction is ctx.signal); needs `model`. */
  useML: boolean;
  flattenMinutes: number;
  execution: ExecutionParams;
  collectFills: boolean;
  /** Research recordings beyond the fills (absent: none): the order log (--orders), our position at each quote sample (--quotes; needs collectFills). */
  record?: { orders?: boolean; quotePositions?: boolean };
  /** The model file when useML (validated in the main thread; plain data for the worker). */
  model?: ModelFile | null;
  /** Recorded market data (one DBN file) instead of the synthetic generator. */
  replay?: ReplaySessionSpec | null;
  /**
   * The synthetic generator in a thread of its own (src/market/source-thread.ts): set by runBacktest when
   * the run leaves a core free for it. The events, and so the results, are the same either way.
   */
  generatorThread?: boolean;
  /**
   * The market alone, through the exchange, with no engine (session-market.ts): a session the
   * kill switch kept from trading still reports its open and close mids.
   */
  marketOnly?: boolean;
}

export interface SessionResult {
  date: string;
  /** The carry the session ran with. */
  carryIn: AccountCarry;
  eventsProcessed: number;
  ordersSent: number;
  cancelsSent: number;
  rejects: number;
  cancelRejects: number;
  /** Orders the risk checks refused (one per refused quote), and every refused requote. */
  riskRejects: number;
  blockedRequotes: number;
  /** Our resting orders the exchange cancelled by self-match prevention. */
  selfMatchPrevented: number;
  fills: number;
  /** Maker fills of orders that joined an empty level (a queue-realism diagnostic). */
  zeroAheadFills: number;
  volume: number;
  feesPaid: number;
  realizedPnl: number;
  unrealizedPnl: number;
  finalPosition: number;
  maxAbsPosition: number;
  /** The mark at the end: the mid of the last two-sided touch (NaN: none seen). The session's close_mid. */
  finalMidTicks: number;
  /** The market's first two-sided mid of the session, in ticks (NaN: none): its open_mid. */
  openMidTicks: number;
  trades: ClosedTradeStats;
  markouts: MarkoutSums;
  /** The session's P&L since its open (equity - carryIn.capital), sampled at the open, each minute and the end. */
  pnlTimes: number[]; // ns after New York midnight of `date`
  pnlValues: number[]; // USD
  /** The largest drawdown the session's checks saw with carryIn (fraction; RiskManager.maxDrawdownFrac). */
  maxDrawdownFrac: number;
  /** What the drawdown check saw, to replay it for another carry (RiskManager's DrawdownPath). */
  drawdownPath: { highs: number[]; lows: number[]; overflowed: boolean };
  /** `pnl`: the session P&L when it tripped (the account's equity there is carryIn.capital + pnl). */
  killSwitch: { tripped: boolean; reason: string; ts: number; pnl: number };
  alerts: Alert[];
  predictions: number;
  fillColumns: Record<FillField, Float64Array> | null;
  /** Our quotes once a second (with collectFills: the report's price chart), else null. */
  quotes: QuoteSeries | null;
  /** spec.record.orders: the order log's rows (OL_STRIDE each, src/backtest/order-log.ts); absent otherwise. */
  orderLog?: Float64Array;
  /** spec.record.quotePositions: our position at each quote sample; absent otherwise. */
  quotePositions?: Float64Array;
  /** Recorded data only (absent for the synthetic market): how the file met the engine. */
  dataQuality?: ReplayQuality;
}
