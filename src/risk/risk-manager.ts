// Pre-trade risk checks and the kill switch.
// - No order above max order size.
// - |position + every open buy (or sell) order| never exceeds the position limit: in-flight
//   orders count until the exchange confirms them done, so no fill can take us past it.
// - Drawdown from the running equity peak and the day's loss trip the kill switch (when enabled):
//   the engine then cancels everything and quotes nothing more in the session.
// Equity here is checked continuously (every market event); the reported max_drawdown_pct
// metric is computed over the per-minute samples as REFERENCE.md defines it.

import { BID } from '../core/events.ts';
import { AlertLog } from './alerts.ts';

export interface RiskLimits {
  maxOrderSize: number;
  positionLimit: number;
  maxDrawdownFrac: number; // 0.06 = 6 %
  maxDailyLoss: number; // USD
  killSwitchEnabled: boolean;
}

export const RISK_OK = 0;
export const RISK_ORDER_TOO_LARGE = 1;
export const RISK_POSITION_LIMIT = 2;
export const RISK_KILLED = 3;

const WARN_FRACTION = 0.5; // warn at half of a loss limit
const POSITION_WARN = 0.8; // warn at 80 % position utilisation

export class RiskManager {
  readonly limits: RiskLimits;
  readonly alerts = new AlertLog();
  killed = false;
  killReason = '';
  killTs = -1;
  peakEquity = -Infinity;
  dayStartEquity = NaN;
  drawdownFrac = 0;
  dailyLoss = 0;
  rejected = 0;
  private ddWarned = false;
  private lossWarned = false;
  private posWarned = false;
  private ddBreached = false;
  private lossBreached = false;

  constructor(limits: RiskLimits) {
    this.limits = limits;
  }

  /** Pre-trade check of a new order against position + open orders on that side. */
  checkOrder(side: number, qty: number, position: number, openBuy: number, openSell: number): number {
    let r = RISK_OK;
    if (this.killed) r = RISK_KILLED;
    else if (qty > this.limits.maxOrderSize || qty <= 0) r = RISK_ORDER_TOO_LARGE;
    else if (side === BID ? position + openBuy + qty > this.limits.positionLimit : position - openSell - qty < -this.limits.positionLimit) r = RISK_POSITION_LIMIT;
    if (r !== RISK_OK) this.rejected++;
    return r;
  }

  /** Marks the start of a trading day (daily loss is measured from here). */
  startDay(equity: number): void {
    this.dayStartEquity = equity;
    if (equity > this.peakEquity) this.peakEquity = equity;
  }

  /** Continuous equity check; returns true when this call tripped the kill switch. */
  onEquity(ts: number, equity: number): boolean {
    if (equity > this.peakEquity) this.peakEquity = equity;
    this.drawdownFrac = this.peakEquity > 0 ? (this.peakEquity - equity) / this.peakEquity : 0;
    this.dailyLoss = this.dayStartEquity - equity;
    if (this.killed) return false;
    const L = this.limits;
    if (!this.ddBreached && this.drawdownFrac >= L.maxDrawdownFrac) {
      this.ddBreached = true;
      return this.trip(ts, 'MAX_DRAWDOWN', `drawdown ${(this.drawdownFrac * 100).toFixed(2)}% reached the ${(L.maxDrawdownFrac * 100).toFixed(2)}% limit`, this.drawdownFrac, L.maxDrawdownFrac);
    }
    if (!this.lossBreached && this.dailyLoss >= L.maxDailyLoss) {
      this.lossBreached = true;
      return this.trip(ts, 'MAX_DAILY_LOSS', `daily loss $${this.dailyLoss.toFixed(2)} reached the $${L.maxDailyLoss.toFixed(2)} limit`, this.dailyLoss, L.maxDailyLoss);
    }
    if (!this.ddWarned && this.drawdownFrac >= WARN_FRACTION * L.maxDrawdownFrac) {
      this.ddWarned = true;
      this.alerts.add(ts, 'warning', 'DRAWDOWN_WARNING', `drawdown ${(this.drawdownFrac * 100).toFixed(2)}% is past half the ${(L.maxDrawdownFrac * 100).toFixed(2)}% limit`, this.drawdownFrac, L.maxDrawdownFrac);
    }
    if (!this.lossWarned && this.dailyLoss >= WARN_FRACTION * L.maxDailyLoss) {
      this.lossWarned = true;
      this.alerts.add(ts, 'warning', 'DAILY_LOSS_WARNING', `daily loss $${this.dailyLoss.toFixed(2)} is past half the $${L.maxDailyLoss.toFixed(2)} limit`, this.dailyLoss, L.maxDailyLoss);
    }
    return false;
  }

  /** Position utilisation warnings (with hysteresis so a position near the limit does not spam). */
  onPosition(ts: number, position: number): void {
    const abs = position < 0 ? -position : position;
    const lim = this.limits.positionLimit;
    if (!this.posWarned && abs >= POSITION_WARN * lim) {
      this.posWarned = true;
      this.alerts.add(ts, 'warning', 'POSITION_HIGH', `position ${position} is at ${Math.round((abs / lim) * 100)}% of the ${lim} limit`, abs, lim);
    } else if (this.posWarned && abs < 0.5 * lim) this.posWarned = false;
    if (abs > lim) {
      this.alerts.add(ts, 'critical', 'POSITION_BREACH', `position ${position} exceeds the ${lim} limit`, abs, lim);
    }
  }

  /** Trips the kill switch (also used for external causes, e.g. a worker restart). */
  trip(ts: number, code: string, message: string, value: number, limit: number): boolean {
    if (!this.limits.killSwitchEnabled) {
      this.alerts.add(ts, 'critical', code, `${message} (kill switch disabled: still quoting)`, value, limit);
      return false;
    }
    this.killed = true;
    this.killReason = code;
    this.killTs = ts;
    this.alerts.add(ts, 'critical', 'KILL_SWITCH', `kill switch: ${message}; all orders cancelled, quoting stopped`, value, limit);
    return true;
  }
}
