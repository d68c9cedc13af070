// Merges the sessions of a run into one result. Metrics are recomputed over the whole run from
// the merged samples and counters, never averaged across sessions:
// - sessions are independent (each starts flat with the initial capital), so the run's equity
//   curve chains them: session k's curve is shifted by the P&L of the sessions before it; the
//   first sample of every later session (equal to the previous close) is not repeated;
// - win rate and profit factor come from the summed closed-trade counts and sums.

import type { BacktestResult, MarkoutFigure } from '../api/backtest-run.ts';
import { sessionNsToEpochMs } from '../market/calendar.ts';
import { contractForRoot, ticksToPrice } from '../market/instruments.ts';
import { MARKOUT_LABELS } from '../portfolio/markouts.ts';
import { maxDrawdownPct, profitFactor, sharpeRatio, winRate } from '../portfolio/metrics.ts';
import { emptyTradeStats } from '../portfolio/portfolio.ts';
import type { ResolvedRequest } from './request.ts';
import type { SessionResult } from './session.ts';

export type { BacktestResult, MarkoutFigure } from '../api/backtest-run.ts';

const round = (x: number, d = 6) => Math.round(x * 10 ** d) / 10 ** d;

export function mergeSessions(req: ResolvedRequest, sessions: SessionResult[]): BacktestResult {
  const spec = contractForRoot(req.root);
  const ordered = [...sessions].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const trades = emptyTradeStats();
  const curve: { t: number; equity: number }[] = [];
  const values: number[] = [];
  const mkSum = MARKOUT_LABELS.map(() => 0);
  const mkQty = MARKOUT_LABELS.map(() => 0);
  const alerts: BacktestResult['alerts'] = [];
  let carried = 0; // P&L of the sessions before this one
  let events = 0, fills = 0, volume = 0, fees = 0, realized = 0, unrealized = 0, orders = 0, cancels = 0, rejects = 0, riskRejects = 0, predictions = 0, maxAbs = 0;
  const tripped: string[] = [];
  const perSession: BacktestResult['session_results'] = [];
  for (const s of ordered) {
    events += s.eventsProcessed;
    fills += s.fills;
    volume += s.volume;
    fees += s.feesPaid;
    realized += s.realizedPnl;
    unrealized += s.unrealizedPnl;
    orders += s.ordersSent;
    cancels += s.cancelsSent;
    rejects += s.rejects;
    riskRejects += s.riskRejects;
    predictions += s.predictions;
    if (s.maxAbsPosition > maxAbs) maxAbs = s.maxAbsPosition;
    trades.count += s.trades.count;
    trades.wins += s.trades.wins;
    trades.losses += s.trades.losses;
    trades.grossWin += s.trades.grossWin;
    trades.grossLoss += s.trades.grossLoss;
    s.markouts.sumTicks.forEach((v, h) => (mkSum[h] += v));
    s.markouts.qty.forEach((v, h) => (mkQty[h] += v));
    if (s.killSwitch.tripped) tripped.push(s.date);
    for (const a of s.alerts) alerts.push({ ...a, ts: sessionNsToEpochMs(s.date, a.ts), date: s.date });
    const first = curve.length === 0 ? 0 : 1;
    for (let i = first; i < s.equityValues.length; i++) {
      const eq = s.equityValues[i] - s.initialCapital + req.initialCapital + carried;
      values.push(eq);
      curve.push({ t: sessionNsToEpochMs(s.date, s.equityTimes[i]), equity: round(eq, 2) });
    }
    const pnl = s.equityValues[s.equityValues.length - 1] - s.initialCapital;
    carried += pnl;
    perSession.push({
      date: s.date,
      pnl: round(pnl, 2),
      fills: s.fills,
      events: s.eventsProcessed,
      final_position: s.finalPosition,
      final_mid: Number.isFinite(s.finalMidTicks) ? ticksToPrice(s.finalMidTicks, spec.tickSize) : null,
      kill_switch: s.killSwitch.tripped,
    });
  }
  const markouts: Record<string, MarkoutFigure> = {};
  MARKOUT_LABELS.forEach((label, h) => {
    const q = mkQty[h];
    markouts[label] = {
      fills_qty: q,
      avg_ticks: q > 0 ? round(mkSum[h] / q, 4) : null,
      avg_usd_per_contract: q > 0 ? round((mkSum[h] / q) * spec.tickValue, 4) : null,
    };
  });
  const finalEquity = req.initialCapital + carried;
  const pf = profitFactor(trades);
  return {
    symbol: req.symbol,
    root: req.root,
    start_date: req.startDate,
    end_date: req.endDate,
    sessions: ordered.length,
    seed: req.seed,
    use_ml: req.useML,
    model_version: req.model?.version ?? null,
    params: {
      initialCapital: req.initialCapital,
      spreadMultiplier: req.spreadMultiplier,
      skewFactor: req.skewFactor,
      inventoryLimit: req.inventoryLimit,
      positionLimit: req.positionLimit,
      maxDrawdown: req.maxDrawdown,
    },
    events_processed: events,
    total_pnl: round(finalEquity - req.initialCapital, 2),
    sharpe_ratio: round(sharpeRatio(values), 4),
    max_drawdown_pct: round(maxDrawdownPct(values), 4),
    win_rate: round(winRate(trades), 4),
    profit_factor: pf === null ? null : round(pf, 4),
    total_trades: trades.count,
    winning_trades: trades.wins,
    losing_trades: trades.losses,
    total_fills: fills,
    volume,
    fees_paid: round(fees, 2),
    realized_pnl: round(realized, 2),
    unrealized_pnl: round(unrealized, 2),
    final_position: ordered.length ? ordered[ordered.length - 1].finalPosition : 0,
    max_abs_position: maxAbs,
    final_equity: round(finalEquity, 2),
    initial_capital: req.initialCapital,
    orders_sent: orders,
    cancels_sent: cancels,
    rejects,
    risk_rejects: riskRejects,
    predictions,
    markouts,
    kill_switch: { tripped_sessions: tripped },
    alerts,
    session_results: perSession,
    equity_curve: curve,
  };
}
