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

// Kill-switch state and the equity references live in a small Float64Array that may sit in a
// SharedArrayBuffer, so a tripped kill switch stays tripped across an engine-thread restart and a
// session roll (it needs a restart of the process to clear, as a human decision).
const ST_KILLED = 0, ST_REASON = 1, ST_KILL_TS = 2, ST_PEAK = 3, ST_DAY_START = 4, ST_DAY = 5;
export const RISK_STATE_FIELDS = 8;
export const KILL_REASONS = ['', 'MAX_DRAWDOWN', 'MAX_DAILY_LOSS', 'ENGINE_RESTARTS', 'MANUAL', 'OTHER'] as const;

const WARN_FRACTION = 0.5; // warn at half of a loss limit
const POSITION_WARN = 0.8; // warn at 80 % position utilisation

export class RiskManager {
  readonly limits: RiskLimits;
  readonly alerts = new AlertLog();
  private readonly st: Float64Array;
  /** Current drawdown from the peak (fraction) and loss since the day started (USD). */
  private readonly now = new Float64Array(2);
  /** Levels of drawdown and daily loss at which the next warning or trip is due. */
  private readonly next = new Float64Array(2);
  rejected = 0;
  private ddWarned = false;
  private lossWarned = false;
  private posWarned = false;
  private ddBreached = false;
  private lossBreached = false;

  /** `state`: RISK_STATE_FIELDS float64s to keep the kill switch and equity references in. */
  constructor(limits: RiskLimits, state?: Float64Array) {
    this.limits = limits;
    this.st = state ?? new Float64Array(RISK_STATE_FIELDS);
    this.next[0] = WARN_FRACTION * limits.maxDrawdownFrac;
    this.next[1] = WARN_FRACTION * limits.maxDailyLoss;
    if (!state) {
      this.st[ST_PEAK] = -Infinity;
      this.st[ST_DAY_START] = NaN;
      this.st[ST_DAY] = -1;
      this.st[ST_KILL_TS] = -1;
    }
  }

  /** A fresh state block (e.g. inside a SharedArrayBuffer) initialised for a new engine. */
  static initState(state: Float64Array): Float64Array {
    state.fill(0);
    state[ST_PEAK] = -Infinity;
    state[ST_DAY_START] = NaN;
    state[ST_DAY] = -1;
    state[ST_KILL_TS] = -1;
    return state;
  }

  get killed(): boolean {
    return this.st[ST_KILLED] === 1;
  }
  get killReason(): string {
    return KILL_REASONS[this.st[ST_REASON]] ?? 'OTHER';
  }
  get killTs(): number {
    return this.st[ST_KILL_TS];
  }
  get peakEquity(): number {
    return this.st[ST_PEAK];
  }
  get dayStartEquity(): number {
    return this.st[ST_DAY_START];
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

  /** Marks the start of trading day `day` (daily loss is measured from here); idempotent per day. */
  startDay(equity: number, day = 0): void {
    if (this.st[ST_DAY] === day) return;
    this.st[ST_DAY] = day;
    this.st[ST_DAY_START] = equity;
    if (equity > this.st[ST_PEAK]) this.st[ST_PEAK] = equity;
  }

  get drawdownFrac(): number {
    return this.now[0];
  }
  get dailyLoss(): number {
    return this.now[1];
  }

  /**
   * Continuous equity check, on every market event; returns true when this call tripped the
   * kill switch. Kept tiny so it inlines (a call that is not inlined boxes its double
   * arguments); warnings and trips are in limitsCrossed().
   */
  onEquity(ts: number, equity: number): boolean {
    const st = this.st;
    if (equity > st[ST_PEAK]) st[ST_PEAK] = equity;
    const peak = st[ST_PEAK];
    const now = this.now;
    now[0] = peak > 0 ? (peak - equity) / peak : 0;
    now[1] = st[ST_DAY_START] - equity;
    if (now[0] < this.next[0] && now[1] < this.next[1]) return false;
    return this.limitsCrossed(ts);
  }

  private limitsCrossed(ts: number): boolean {
    const L = this.limits;
    const dd = this.now[0];
    const loss = this.now[1];
    let tripped = false;
    if (!this.killed) {
      if (!this.ddBreached && dd >= L.maxDrawdownFrac) {
        this.ddBreached = true;
        tripped = this.trip(ts, 'MAX_DRAWDOWN', `drawdown ${(dd * 100).toFixed(2)}% reached the ${(L.maxDrawdownFrac * 100).toFixed(2)}% limit`, dd, L.maxDrawdownFrac);
      } else if (!this.lossBreached && loss >= L.maxDailyLoss) {
        this.lossBreached = true;
        tripped = this.trip(ts, 'MAX_DAILY_LOSS', `daily loss $${loss.toFixed(2)} reached the $${L.maxDailyLoss.toFixed(2)} limit`, loss, L.maxDailyLoss);
      }
      if (!this.ddWarned && dd >= WARN_FRACTION * L.maxDrawdownFrac) {
        this.ddWarned = true;
        if (!this.ddBreached) this.alerts.add(ts, 'warning', 'DRAWDOWN_WARNING', `drawdown ${(dd * 100).toFixed(2)}% is past half the ${(L.maxDrawdownFrac * 100).toFixed(2)}% limit`, dd, L.maxDrawdownFrac);
      }
      if (!this.lossWarned && loss >= WARN_FRACTION * L.maxDailyLoss) {
        this.lossWarned = true;
        if (!this.lossBreached) this.alerts.add(ts, 'warning', 'DAILY_LOSS_WARNING', `daily loss $${loss.toFixed(2)} is past half the $${L.maxDailyLoss.toFixed(2)} limit`, loss, L.maxDailyLoss);
      }
    }
    // Next level that needs attention: the warning, then the limit, then nothing.
    this.next[0] = this.killed || this.ddBreached ? Infinity : this.ddWarned ? L.maxDrawdownFrac : WARN_FRACTION * L.maxDrawdownFrac;
    this.next[1] = this.killed || this.lossBreached ? Infinity : this.lossWarned ? L.maxDailyLoss : WARN_FRACTION * L.maxDailyLoss;
    return tripped;
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
    const r = KILL_REASONS.indexOf(code as (typeof KILL_REASONS)[number]);
    this.st[ST_KILLED] = 1;
    this.st[ST_REASON] = r > 0 ? r : KILL_REASONS.length - 1;
    this.st[ST_KILL_TS] = ts;
    this.alerts.add(ts, 'critical', 'KILL_SWITCH', `kill switch: ${message}; all orders cancelled, quoting stopped`, value, limit);
    return true;
  }
}
