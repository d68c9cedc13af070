// Performance metrics exactly as docs/metrics.md defines them, over equity samples (one per
// simulated minute and one at the end, or one per trading day) and closed-trade statistics.

import { DAILY_SHARPE_MIN_DAYS } from '../wire/trade-metrics.ts';
import type { ClosedTradeStats } from './portfolio.ts';

/** Minutes in a trading year: 252 days x 390 regular-session minutes. */
export const MINUTES_PER_YEAR = 252 * 390;
/** Trading days in a year: daily returns are annualised by sqrt(252). */
export const TRADING_DAYS_PER_YEAR = 252;
export { DAILY_SHARPE_MIN_DAYS };

export type SharpeBasis = 'daily' | 'intraday_1min';

/** Mean / sample std (n-1) of the returns between successive values x sqrt(periodsPerYear); 0 with < 2 returns or no variance. */
function annualisedSharpe(equity: ArrayLike<number>, periodsPerYear: number): number {
  const n = equity.length - 1;
  if (n < 2) return 0;
  let sum = 0;
  for (let i = 1; i <= n; i++) sum += equity[i] / equity[i - 1] - 1;
  const mean = sum / n;
  let ss = 0;
  for (let i = 1; i <= n; i++) {
    const d = equity[i] / equity[i - 1] - 1 - mean;
    ss += d * d;
  }
  const std = Math.sqrt(ss / (n - 1));
  if (!(std > 0)) return 0;
  return (mean / std) * Math.sqrt(periodsPerYear);
}

/** The intraday Sharpe: per-minute equity samples, x sqrt(252 x 390); 0 with < 2 returns or no variance. */
export function sharpeRatio(equity: ArrayLike<number>): number {
  return annualisedSharpe(equity, MINUTES_PER_YEAR);
}

/**
 * The daily Sharpe: `closes` = the equity at the start of the run, then at each trading day's
 * close (a day not traded repeats the last close: a zero return), x sqrt(252); null with fewer
 * than DAILY_SHARPE_MIN_DAYS days.
 */
export function dailySharpe(closes: ArrayLike<number>): number | null {
  return closes.length - 1 >= DAILY_SHARPE_MIN_DAYS ? annualisedSharpe(closes, TRADING_DAYS_PER_YEAR) : null;
}

/** Max over samples of (running peak - equity) / running peak, in percent. */
export function maxDrawdownPct(equity: ArrayLike<number>): number {
  let peak = -Infinity;
  let worst = 0;
  for (let i = 0; i < equity.length; i++) {
    const e = equity[i];
    if (e > peak) peak = e;
    if (peak > 0) {
      const dd = (peak - e) / peak;
      if (dd > worst) worst = dd;
    }
  }
  return worst * 100;
}

/** Winning closed trades / closed trades (0 when none). */
export function winRate(t: ClosedTradeStats): number {
  return t.count === 0 ? 0 : t.wins / t.count;
}

/** Gross wins / |gross losses|; null when there is no losing trade (JSON has no Infinity). */
export function profitFactor(t: ClosedTradeStats): number | null {
  return t.grossLoss < 0 ? t.grossWin / -t.grossLoss : null;
}
