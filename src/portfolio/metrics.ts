// Performance metrics exactly as REFERENCE.md defines them, over equity samples (one per
// simulated minute and one at the end) and closed-trade statistics.

import type { ClosedTradeStats } from './portfolio.ts';

/** Minutes in a trading year: 252 days x 390 regular-session minutes. */
export const MINUTES_PER_YEAR = 252 * 390;

/** Mean / sample std (n-1) of per-sample returns x sqrt(252 x 390); 0 with < 2 returns or no variance. */
export function sharpeRatio(equity: ArrayLike<number>): number {
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
  return (mean / std) * Math.sqrt(MINUTES_PER_YEAR);
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
