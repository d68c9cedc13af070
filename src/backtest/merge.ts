// Merges the sessions of one account (account.ts) into one result. Metrics are recomputed over
// the whole run from the merged samples and counters, never averaged across sessions:
// - the account's equity at a sample is the session's equity at its open plus the session's P&L
//   there (carry.capital + pnl: one addition, the same in a parallel and a sequential run); the
//   first sample of every later session (equal to the previous close) is not repeated;
// - max drawdown is the largest the equity checks saw (every fill and mid change: the kill
//   switch's figure), per session with the account's carry; the per-minute samples' own is
//   max_drawdown_pct_1min (the curve is kept for charts);
// - Sharpe is the daily one (session closes, not-traded sessions as zero returns) from
//   DAILY_SHARPE_MIN_DAYS sessions on, else the intraday one over the per-minute samples;
// - win rate and profit factor come from the summed closed-trade counts and sums;
// - figures carry full float64 precision: only tables for people round.

import type { BacktestResult, MarkoutFigure } from '../wire/backtest-run.ts';
import type { FeeScheduleView } from '../wire/fee-schedule.ts';
import { sessionNsToEpochMs } from '../market/calendar.ts';
import { contractForRoot, ticksToPrice } from '../market/instruments.ts';
import { addQuality, emptyQuality, type ReplayQuality } from '../market/replay/quality.ts';
import { MARKOUT_LABELS } from '../portfolio/markouts.ts';
import { dailySharpe, maxDrawdownPct, profitFactor, sharpeRatio, winRate } from '../portfolio/metrics.ts';
import { emptyTradeStats } from '../portfolio/portfolio.ts';
import { type AccountSession, sessionMaxDrawdown } from './account.ts';
import type { ResolvedRequest } from './request.ts';
import { sessionContracts } from './session-dates.ts';

export type { BacktestResult, MarkoutFigure } from '../wire/backtest-run.ts';

export function mergeSessions(req: ResolvedRequest, sessions: AccountSession[], feeSchedule: FeeScheduleView): BacktestResult {
  const spec = contractForRoot(req.root);
  const ordered = [...sessions].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const trades = emptyTradeStats();
  const curve: { t: number; equity: number }[] = [];
  const values: number[] = [];
  const mkSum = MARKOUT_LABELS.map(() => 0);
  const mkQty = MARKOUT_LABELS.map(() => 0);
  const alerts: BacktestResult['alerts'] = [];
  const kill: BacktestResult['kill_switch'] = {
    tripped: false,
    at: null,
    session_date: null,
    rule: null,
    equity: null,
    tripped_sessions: [],
    sessions_not_traded: [],
  };
  let maxDrawdown = 0;
  // The account's equity at the start and at each session's close (a session not traded: its carry, unchanged).
  const closes: number[] = [req.initialCapital];
  let finalEquity = req.initialCapital;
  let finalPosition = 0;
  let zeroAhead = 0;
  let events = 0,
    fills = 0,
    volume = 0,
    fees = 0,
    realized = 0,
    unrealized = 0,
    orders = 0,
    cancels = 0,
    rejects = 0,
    riskRejects = 0,
    blockedRequotes = 0,
    selfMatch = 0,
    predictions = 0,
    maxAbs = 0;
  const perSession: BacktestResult['session_results'] = [];
  let quality: ReplayQuality | null = null;
  const contractOn = sessionContracts(req);
  for (const { date, carry, result: s, market } of ordered) {
    const contract = contractOn(date);
    if (s === null) {
      closes.push(carry.capital);
      kill.sessions_not_traded.push(date);
      const open_mid = market ? midPrice(market.openMidTicks, spec.tickSize) : null;
      const close_mid = market ? midPrice(market.closeMidTicks, spec.tickSize) : null;
      perSession.push({
        date,
        contract,
        traded: false,
        pnl: 0,
        fills: 0,
        events: 0,
        final_position: 0,
        final_mid: null,
        open_mid,
        close_mid,
        kill_switch: true,
        data_quality: null,
      });
      continue;
    }
    const dd = sessionMaxDrawdown(s, carry);
    if (dd > maxDrawdown) maxDrawdown = dd;
    if (s.dataQuality) addQuality((quality ??= emptyQuality()), s.dataQuality);
    events += s.eventsProcessed;
    fills += s.fills;
    zeroAhead += s.zeroAheadFills;
    volume += s.volume;
    fees += s.feesPaid;
    realized += s.realizedPnl;
    unrealized += s.unrealizedPnl;
    orders += s.ordersSent;
    cancels += s.cancelsSent;
    rejects += s.rejects;
    riskRejects += s.riskRejects;
    blockedRequotes += s.blockedRequotes;
    selfMatch += s.selfMatchPrevented;
    predictions += s.predictions;
    if (s.maxAbsPosition > maxAbs) maxAbs = s.maxAbsPosition;
    trades.count += s.trades.count;
    trades.wins += s.trades.wins;
    trades.losses += s.trades.losses;
    trades.grossWin += s.trades.grossWin;
    trades.grossLoss += s.trades.grossLoss;
    s.markouts.sumTicks.forEach((v, h) => (mkSum[h] += v));
    s.markouts.qty.forEach((v, h) => (mkQty[h] += v));
    if (s.killSwitch.tripped) {
      kill.tripped = true;
      kill.at = new Date(sessionNsToEpochMs(date, s.killSwitch.ts)).toISOString();
      kill.session_date = date;
      kill.rule = s.killSwitch.reason;
      kill.equity = carry.capital + s.killSwitch.pnl;
      kill.tripped_sessions.push(date);
    }
    for (const a of s.alerts) alerts.push({ ...a, ts: sessionNsToEpochMs(date, a.ts), date });
    const first = curve.length === 0 ? 0 : 1;
    for (let i = first; i < s.pnlValues.length; i++) {
      const eq = carry.capital + s.pnlValues[i];
      values.push(eq);
      curve.push({ t: sessionNsToEpochMs(date, s.pnlTimes[i]), equity: eq });
    }
    const pnl = s.pnlValues.length ? s.pnlValues[s.pnlValues.length - 1] : 0;
    finalEquity = carry.capital + pnl;
    closes.push(finalEquity);
    finalPosition = s.finalPosition;
    perSession.push({
      date,
      contract,
      traded: true,
      pnl,
      fills: s.fills,
      events: s.eventsProcessed,
      final_position: s.finalPosition,
      final_mid: midPrice(s.finalMidTicks, spec.tickSize),
      open_mid: midPrice(s.openMidTicks, spec.tickSize),
      close_mid: midPrice(s.finalMidTicks, spec.tickSize),
      kill_switch: s.killSwitch.tripped,
      data_quality: s.dataQuality ?? null,
    });
  }
  const sharpeDaily = dailySharpe(closes);
  const sharpeIntraday = sharpeRatio(values);
  const markouts: Record<string, MarkoutFigure> = {};
  MARKOUT_LABELS.forEach((label, h) => {
    const q = mkQty[h];
    markouts[label] = {
      fills_qty: q,
      avg_ticks: q > 0 ? mkSum[h] / q : null,
      avg_usd_per_contract: q > 0 ? (mkSum[h] / q) * spec.tickValue : null,
    };
  });
  return {
    symbol: req.symbol,
    root: req.root,
    contracts: [...new Set(perSession.map((p) => p.contract))],
    start_date: req.startDate,
    end_date: req.endDate,
    sessions: ordered.length,
    seed: req.seed,
    use_ml: req.useML,
    model_version: req.model?.version ?? null,
    data_source: req.data_source,
    strategy: req.strategy,
    data_quality: quality,
    params: {
      initialCapital: req.initialCapital,
      spreadMultiplier: req.spreadMultiplier,
      skewFactor: req.skewFactor,
      inventoryLimit: req.inventoryLimit,
      positionLimit: req.positionLimit,
      maxDrawdown: req.maxDrawdown,
    },
    events_processed: events,
    total_pnl: finalEquity - req.initialCapital,
    sharpe_ratio: sharpeDaily ?? sharpeIntraday,
    sharpe_basis: sharpeDaily === null ? 'intraday_1min' : 'daily',
    sharpe_daily: sharpeDaily,
    sharpe_intraday_1min: sharpeIntraday,
    max_drawdown_pct: maxDrawdown * 100,
    max_drawdown_pct_1min: maxDrawdownPct(values),
    win_rate: winRate(trades),
    profit_factor: profitFactor(trades),
    total_trades: trades.count,
    winning_trades: trades.wins,
    losing_trades: trades.losses,
    total_fills: fills,
    zero_ahead_fills: zeroAhead,
    volume,
    fees,
    fee_schedule: feeSchedule,
    realized_pnl_gross: realized,
    realized_pnl_net: realized - fees,
    unrealized_pnl: unrealized,
    final_position: finalPosition,
    max_abs_position: maxAbs,
    final_equity: finalEquity,
    initial_capital: req.initialCapital,
    orders_sent: orders,
    cancels_sent: cancels,
    rejects,
    risk_rejects: riskRejects,
    blocked_requotes: blockedRequotes,
    self_match_prevented: selfMatch,
    predictions,
    markouts,
    kill_switch: kill,
    alerts,
    session_results: perSession,
    equity_curve: curve,
  };
}

/** A mid in ticks as a price (null: none seen). */
function midPrice(ticks: number, tickSize: number): number | null {
  return Number.isFinite(ticks) ? ticksToPrice(ticks, tickSize) : null;
}
