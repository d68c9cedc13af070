// A backtest's result and its run record (POST /api/backtest, GET /api/backtests[/{id}],
// DELETE /api/backtests/{id}, the stream's backtest_progress and backtest_complete events).

import { z } from 'zod';
import { dataQualitySchema } from './data-quality.ts';
import { feeScheduleSchema } from './fee-schedule.ts';
import { alertSchema } from './live-state.ts';
import { resolvedRequestSchema, strategyIdentitySchema } from './backtest-request.ts';
import { DAILY_SHARPE_MIN_DAYS, executionCounterFields, intradaySharpe, tradeMetricFields } from './trade-metrics.ts';

const usd = (what: string) => z.number().describe(`${what}, USD`);

export const markoutSchema = z
  .object({
    fills_qty: z.int().describe('contracts measured'),
    avg_ticks: z.number().nullable().describe('average, ticks'),
    avg_usd_per_contract: z.number().nullable().describe('average, USD per contract'),
  })
  .describe('Markout at one horizon: mid move after our fills, signed in our favour.');
export type MarkoutFigure = z.infer<typeof markoutSchema>;

export const killSwitchOutcomeSchema = z
  .object({
    tripped: z.boolean().describe('whether it tripped'),
    at: z.iso.datetime().nullable().describe('when it tripped'),
    session_date: z.iso.date().nullable().describe('session where it tripped'),
    rule: z.string().nullable().describe('the rule that tripped it: MAX_DRAWDOWN or MAX_DAILY_LOSS'),
    equity: z.number().nullable().describe('account equity when it tripped, USD'),
    tripped_sessions: z.array(z.iso.date()).describe('sessions where it tripped (at most one: no later session trades)'),
    sessions_not_traded: z.array(z.iso.date()).describe('later sessions not traded because it had tripped'),
  })
  .describe("The account's kill switch. A multi-day run is one account: once it trips, no later session trades, so a run it stopped is not a plain success.");

export const backtestResultSchema = z
  .object({
    symbol: z.string().describe('symbol as requested'),
    root: z.string().describe('contract root'),
    contracts: z.array(z.string()).describe('contracts traded, in date order, each once (a root rolls from one to the next)'),
    start_date: z.iso.date().describe('first date'),
    end_date: z.iso.date().describe('last date'),
    sessions: z.int().describe('sessions run'),
    seed: z.int().describe('seed'),
    use_ml: z.boolean().describe('model on'),
    model_version: z.string().nullable().describe('version of the model the run used (null without useML)'),
    data_source: z.string().describe('where the market came from: "synthetic", or "dbn <name> (<schema>, <symbol>)" for recorded data'),
    strategy: strategyIdentitySchema,
    data_quality: dataQualitySchema
      .nullable()
      .describe("recorded data: the sessions' data-quality counters summed (docs/replay.md); null for the synthetic market"),
    params: resolvedRequestSchema
      .pick({ initialCapital: true, spreadMultiplier: true, skewFactor: true, inventoryLimit: true, positionLimit: true, maxDrawdown: true })
      .describe('Strategy and risk parameters used.'),
    events_processed: z.int().describe('market-data events handled'),
    total_pnl: usd('final equity - initial capital, net of fees'),
    ...tradeMetricFields,
    sharpe_ratio: z
      .number()
      .describe(
        `the run's Sharpe ratio, on the basis sharpe_basis names: sharpe_daily from ${DAILY_SHARPE_MIN_DAYS} sessions on, else ` +
          `sharpe_intraday_1min (docs/metrics.md)`,
      ),
    sharpe_basis: z
      .enum(['daily', 'intraday_1min'])
      .describe('which Sharpe sharpe_ratio is: daily returns x sqrt(252), or per-minute returns x sqrt(252 x 390)'),
    sharpe_daily: z
      .number()
      .nullable()
      .describe(
        `mean / sample std (n-1) of the daily returns of the account's equity (session closes; a session not traded after a kill-switch stop ` +
          `is a zero return) x sqrt(252); null with fewer than ${DAILY_SHARPE_MIN_DAYS} sessions`,
      ),
    sharpe_intraday_1min: intradaySharpe,
    max_drawdown_pct_1min: z.number().describe('max drawdown over the per-minute equity samples only (equity_curve), percent: never above max_drawdown_pct'),
    winning_trades: z.int().describe('closed trades with P&L > 0'),
    losing_trades: z.int().describe('closed trades with P&L < 0'),
    total_fills: z.int().describe('fills'),
    zero_ahead_fills: z
      .int()
      .describe(
        'maker fills of orders that joined an empty price level (nothing displayed ahead when they arrived): a check on how often a fill ' +
          'came from winning a race for a new level',
      ),
    volume: z.int().describe('contracts filled'),
    fees: usd('fees paid, every fill of the run (negative: a net rebate)'),
    fee_schedule: feeScheduleSchema,
    realized_pnl_gross: usd('realized P&L of the closed (FIFO-matched) quantity on price alone, gross of fees'),
    realized_pnl_net: usd('realized_pnl_gross - fees (every fee, open lots included): total_pnl = realized_pnl_net + unrealized_pnl'),
    unrealized_pnl: usd('open position marked at the end, at the last two-sided mid (fees of its entry are in fees)'),
    final_position: z.int().describe('contracts at the end'),
    max_abs_position: z.int().describe('largest absolute position, contracts'),
    final_equity: usd('equity at the end'),
    initial_capital: usd('initial capital'),
    orders_sent: z.int().describe('orders sent'),
    cancels_sent: z.int().describe('cancels sent'),
    rejects: z.int().describe('rejected orders'),
    ...executionCounterFields,
    predictions: z.int().describe('model predictions'),
    markouts: z.record(z.string(), markoutSchema).describe('horizon label (100ms, 1s, 10s, 60s) -> markout'),
    kill_switch: killSwitchOutcomeSchema,
    alerts: z
      .array(alertSchema.extend({ ts: z.number().describe('epoch ms'), date: z.iso.date().describe('session date') }).describe('A risk alert of one session.'))
      .describe('risk alerts'),
    session_results: z
      .array(
        z
          .object({
            date: z.iso.date().describe('session date'),
            contract: z.string().describe('contract traded that day, e.g. ESM24'),
            traded: z.boolean().describe('false when the kill switch had tripped in an earlier session'),
            pnl: usd('session P&L'),
            fills: z.int().describe('fills'),
            events: z.int().describe('events'),
            final_position: z.int().describe('contracts'),
            final_mid: z.number().nullable().describe('the mark at the session end: the mid of the last two-sided book the session saw (null: none)'),
            open_mid: z
              .number()
              .nullable()
              .describe("the market's first two-sided mid of the session, whether we traded or not (null: none, or a session not run)"),
            close_mid: z
              .number()
              .nullable()
              .describe("the market's last two-sided mid of the session, also after a kill-switch stop (null: none, or a session not run)"),
            kill_switch: z.boolean().describe('kill switch tripped'),
            data_quality: dataQualitySchema
              .nullable()
              .describe("recorded data: the session's data-quality counters; null for the synthetic market or a session not traded"),
          })
          .describe('One session.'),
      )
      .describe('per-session figures'),
    equity_curve: z
      .array(z.object({ t: z.int().describe('epoch ms'), equity: usd('equity') }).describe('One equity sample.'))
      .describe('equity per simulated minute; the API keeps at most 500 points (first, last, and the low and high of each bucket)'),
  })
  .describe('The result of a backtest run.');
export type BacktestResult = z.infer<typeof backtestResultSchema>;

export const BACKTEST_STATUSES = ['running', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
export type BacktestStatus = (typeof BACKTEST_STATUSES)[number];

const runMetaSchema = z.object({
  id: z.string().meta({ description: 'run id', examples: ['bt_20240102T093000123Z_0001_a1b2c3'] }),
  status: z.enum(BACKTEST_STATUSES).describe('running, completed, failed, cancelled (by request or shutdown) or interrupted (the engine stopped mid-run)'),
  resolved: resolvedRequestSchema,
  started_at: z.iso.datetime().describe('start time'),
  finished_at: z.iso.datetime().nullable().describe('end time (null while running)'),
  duration_ms: z.number().nonnegative().nullable().describe('wall time in ms, from the monotonic clock at ns resolution (null while running)'),
  progress: z.number().describe('fraction done, 0..1'),
  error: z
    .object({
      code: z.string().describe('cancelled, interrupted, backtest_failed, storage_error (the journal could not be written) or record_too_large'),
      message: z.string().describe('message (at most 500 characters)'),
    })
    .nullable()
    .describe('Why the run did not complete.'),
});

export const backtestRunSchema = runMetaSchema
  .extend(backtestResultSchema.partial().shape)
  .describe('A backtest run: metadata plus, once completed, every result field.');
/** A run as the API serves it: metadata plus the result fields at the top level once completed. */
export type BacktestRun = z.infer<typeof backtestRunSchema>;

export const backtestRunSummarySchema = runMetaSchema
  .extend(backtestResultSchema.omit({ equity_curve: true }).partial().shape)
  .describe('A backtest run without its equity curve.');
export type BacktestRunSummary = z.infer<typeof backtestRunSummarySchema>;

export const backtestListItemSchema = z
  .object({
    id: runMetaSchema.shape.id,
    status: runMetaSchema.shape.status,
    started_at: runMetaSchema.shape.started_at,
    finished_at: runMetaSchema.shape.finished_at,
    duration_ms: runMetaSchema.shape.duration_ms,
    symbol: z.string().describe('symbol as requested (normalised: trimmed, upper case)'),
    start_date: z.iso.date().describe('first date'),
    end_date: z.iso.date().describe('last date'),
    sessions: z.int().describe('sessions (CME trading days) of the range'),
    seed: z.int().describe('seed'),
    use_ml: z.boolean().describe('model on'),
    data_source: z.string().describe('where the market came from: "synthetic", or "dbn <name> (<schema>, <symbol>)" for recorded data'),
    strategy: z.string().describe('the strategy by name'),
    total_pnl: z.number().nullable().describe('total P&L, USD (null unless completed)'),
    sharpe_ratio: z.number().nullable().describe('Sharpe ratio (null unless completed)'),
    max_drawdown_pct: z.number().nullable().describe('maximum drawdown, percent (null unless completed)'),
    kill_switch_tripped: z
      .boolean()
      .nullable()
      .describe('the kill switch stopped the run (kill_switch.tripped of the result; null unless completed): such a run completed but is not a plain success'),
    error: runMetaSchema.shape.error,
    bytes: z.int().describe("size of the run's journal file, bytes (0 when it could not be written)"),
  })
  .describe('A run as the list serves it: the fields of the in-memory index; GET /api/backtests/{id} has the rest.');
export type BacktestListItem = z.infer<typeof backtestListItemSchema>;

export const backtestListSchema = z
  .object({
    total: z.int().describe('runs in the journal'),
    runs: z.array(backtestListItemSchema).describe('one page of runs, newest first'),
    next_cursor: z.string().nullable().describe('pass as `cursor` for the next (older) page; null on the last page'),
  })
  .describe('One page of runs, newest first. Paging by cursor is stable under concurrent inserts: a new run never shifts a later page.');
export type BacktestList = z.infer<typeof backtestListSchema>;

export const backtestProgressSchema = z
  .object({ id: z.string().describe('run id'), symbol: z.string().describe('symbol'), progress: z.number().describe('fraction done, 0..1') })
  .describe('Progress of a running backtest (at most ~4 per second per run).');
export type BacktestProgressEvent = z.infer<typeof backtestProgressSchema>;
