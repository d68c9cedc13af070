// The trade figures that the live state (`stats`) and a backtest result share, described once
// (definitions: docs/metrics.md).

import { z } from 'zod';

export const tradeMetricFields = {
  total_trades: z.int().describe('closed (FIFO-matched) trades'),
  win_rate: z.number().describe('winning closed trades / total_trades, 0..1'),
  profit_factor: z.number().nullable().describe('gross win / |gross loss|; null without a losing trade'),
  max_drawdown_pct: z
    .number()
    .describe(
      'maximum of (running peak - equity) / running peak over every equity change the risk checks see (each fill and each new two-sided ' +
        'mid): the figure the kill switch acts on, percent (5.2 = 5.2%); docs/metrics.md',
    ),
};

/**
 * Daily returns a run needs for its Sharpe ratio to be the daily one (below it, the intraday
 * one): a trading week. Fewer daily returns leave a sample std of three degrees of freedom or
 * less, too few to annualise (docs/metrics.md). Here, beside the shapes that describe it (src/wire
 * imports only zod: the browser bundle reads it); src/portfolio/metrics.ts applies it.
 */
export const DAILY_SHARPE_MIN_DAYS = 5;

/** The Sharpe ratio of per-minute equity returns (the live state's; a backtest's sharpe_intraday_1min). */
export const intradaySharpe = z.number().describe('mean / sample std (n-1) of per-minute equity returns x sqrt(252 x 390); 0 with fewer than two returns');

/** Execution counters that the live state (`counters`) and a backtest result share. */
export const executionCounterFields = {
  risk_rejects: z.int().describe('orders the risk checks refused: a quote refused again on every requote counts once, until it changes'),
  blocked_requotes: z.int().describe('requotes the risk checks blocked: every refusal, repeats included'),
  self_match_prevented: z.int().describe('our resting orders the exchange cancelled by self-match prevention (CME default: cancel resting)'),
};
