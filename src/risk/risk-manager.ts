// Pre-trade risk checks and the kill switch.
// - No order above max order size.
// - |position + every open buy (or sell) order| never exceeds the position limit: in-flight
//   orders count until the exchange confirms them done, so no fill can take us past it.
// - Drawdown from the running equity peak and the day's loss trip the kill switch (when enabled):
//   the engine then cancels everything and quotes nothing more in the session.
// Equity here is checked at every change the engine sees (a fill, a new two-sided mid), and the
// largest drawdown those checks saw is kept (maxDrawdownFrac): the reported max_drawdown_pct is
// that figure, the one the kill switch acts on (docs/metrics.md), not the per-minute samples'.
//
// The checks take a value v and an account base b: equity = b + v. The live simulation passes
// the equity itself (b = 0). A backtest session passes its P&L since the open (its portfolio
// starts at zero capital) with b = the account's equity at the open, so that everything the
// session computes except the drawdown check is the same whatever it carries in, and the
// drawdown check can be replayed for another base and peak from the session's drawdown path
// (see DrawdownPath): that is what lets a multi-day run's sessions run in parallel and still
// give the bytes of a sequential run. The daily loss is measured in v (v at the open minus v),
// so it does not depend on the base either.

import { BID } from '../core/events.ts';
import { AlertLog } from './alerts.ts';
import { RISK_STATE_FIELDS, ST_BASE, ST_DAY, ST_DAY_START, ST_KILL_TS, ST_KILL_VALUE, ST_KILLED, ST_MAX_DD, ST_PEAK, ST_REASON } from './risk-slots.ts';

export interface RiskLimits {
  maxOrderSize: number;
  positionLimit: number;
  maxDrawdownFrac: number; // 0.06 = 6 %
  maxDailyLoss: number; // USD
  killSwitchEnabled: boolean;
  /** After a trip, close the position (the engine's IOC orders); false or absent: keep it, as CME's kill switch does. */
  flattenOnKill?: boolean;
}

export const RISK_OK = 0;
export const RISK_ORDER_TOO_LARGE = 1;
export const RISK_POSITION_LIMIT = 2;
export const RISK_KILLED = 3;

// Kill-switch state and the equity references live in a small Float64Array that may sit in a
// SharedArrayBuffer, so a tripped kill switch stays tripped across an engine-thread restart and a
// session roll (it needs a restart of the process to clear, as a human decision).
export { RISK_STATE_FIELDS };
export const KILL_REASONS = ['', 'MAX_DRAWDOWN', 'MAX_DAILY_LOSS', 'ENGINE_RESTARTS', 'MANUAL', 'OTHER'] as const;

/** Warn at half of a loss limit. */
export const WARN_FRACTION = 0.5;
const POSITION_WARN = 0.8; // warn at 80 % position utilisation

export class RiskManager {
  readonly limits: RiskLimits;
  readonly alerts = new AlertLog();
  private readonly st: Float64Array;
  /** Current drawdown from the peak (fraction), loss since the day started (USD), last value checked. */
  private readonly now = new Float64Array(3);
  /** Levels of drawdown and daily loss at which the next warning or trip is due. */
  private readonly next = new Float64Array(2);
  /** onEquity's inputs, passed on to checkEquity. */
  private readonly scratch = new Float64Array(2);
  /**
   * Orders the checks refused: a quote refused again on every requote is one refused order
   * until the desired quote (price or size) changes or an order on that side passes.
   */
  rejected = 0;
  /** Every refusal: a quote refused on each of n requotes counts n times. */
  blockedRequotes = 0;
  /** Price and size of the last refused order per side (NaN: none since the last accepted one). */
  private readonly lastRefused = new Float64Array([NaN, NaN, NaN, NaN]);
  private ddWarned = false;
  private lossWarned = false;
  private posWarned = false;
  private ddBreached = false;
  private lossBreached = false;

  /** The values checked, as a drawdown path, when the session asked for one. */
  readonly path: DrawdownPath | null;

  /**
   * `state`: RISK_STATE_FIELDS float64s to keep the kill switch and equity references in.
   * `path`: record the drawdown path of the checked values (backtest sessions).
   */
  constructor(limits: RiskLimits, state?: Float64Array, path: DrawdownPath | null = null) {
    this.path = path;
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

  /**
   * A fresh state block (e.g. inside a SharedArrayBuffer) initialised for a new engine: the
   * account base is added to every checked value, and `peak` is the equity peak carried in.
   */
  static initState(state: Float64Array, base = 0, peak = -Infinity): Float64Array {
    state.fill(0);
    state[ST_PEAK] = peak;
    state[ST_DAY_START] = NaN;
    state[ST_DAY] = -1;
    state[ST_KILL_TS] = -1;
    state[ST_BASE] = base;
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
  /** The checked value when the kill switch tripped (equity there = base + this). */
  get killValue(): number {
    return this.st[ST_KILL_VALUE];
  }
  get peakEquity(): number {
    return this.st[ST_PEAK];
  }
  /** The largest drawdown from the running peak any check saw (fraction; 0: none). */
  get maxDrawdownFrac(): number {
    return this.st[ST_MAX_DD];
  }
  get dayStartEquity(): number {
    return this.st[ST_BASE] + this.st[ST_DAY_START];
  }

  /** Pre-trade check of a new order (price in ticks) against position + open orders on that side. */
  checkOrder(side: number, price: number, qty: number, position: number, openBuy: number, openSell: number): number {
    let r = RISK_OK;
    if (this.killed) r = RISK_KILLED;
    else if (qty > this.limits.maxOrderSize || qty <= 0) r = RISK_ORDER_TOO_LARGE;
    else if (side === BID ? position + openBuy + qty > this.limits.positionLimit : position - openSell - qty < -this.limits.positionLimit)
      r = RISK_POSITION_LIMIT;
    const last = this.lastRefused;
    const k = side === BID ? 0 : 2;
    if (r === RISK_OK) {
      last[k] = NaN;
      return r;
    }
    this.blockedRequotes++;
    if (last[k] !== price || last[k + 1] !== qty) {
      this.rejected++;
      last[k] = price;
      last[k + 1] = qty;
    }
    return r;
  }

  /** Marks the start of trading day `day` (daily loss is measured from here); idempotent per day. */
  startDay(value: number, day = 0): void {
    if (this.st[ST_DAY] === day) return;
    this.st[ST_DAY_START] = value;
    this.st[ST_DAY] = day; // last, as in trip(): a thread terminated in between starts the day again
    this.now[2] = value;
    const equity = this.st[ST_BASE] + value;
    if (equity > this.st[ST_PEAK]) this.st[ST_PEAK] = equity;
    if (this.path !== null) this.path.add(value);
  }

  get drawdownFrac(): number {
    return this.now[0];
  }
  get dailyLoss(): number {
    return this.now[1];
  }

  /**
   * Equity check at `ts` of `value` (equity = base + value); returns true when this call tripped
   * the kill switch. For callers holding plain numbers (tests, rare events): the engine's per-event
   * path calls checkEquity, whose inputs are in a typed array.
   */
  onEquity(ts: number, value: number): boolean {
    const at = this.scratch;
    at[0] = ts;
    at[1] = value;
    return this.checkEquity(at, 0);
  }

  /**
   * The continuous equity check: at[i] = time (ns), at[i + 1] = the value; returns true when
   * this call tripped the kill switch. The inputs come in a typed array (hot-path rule 3);
   * warnings and trips are in limitsCrossed().
   */
  checkEquity(at: Float64Array, i: number): boolean {
    const st = this.st;
    const value = at[i + 1];
    const equity = st[ST_BASE] + value;
    if (equity > st[ST_PEAK]) st[ST_PEAK] = equity;
    const peak = st[ST_PEAK];
    const now = this.now;
    now[0] = drawdownOf(peak, equity);
    if (now[0] > st[ST_MAX_DD]) st[ST_MAX_DD] = now[0];
    now[1] = st[ST_DAY_START] - value;
    now[2] = value;
    if (this.path !== null) this.path.addAt(at, i + 1);
    if (now[0] < this.next[0] && now[1] < this.next[1]) return false;
    return this.limitsCrossed(at[i]);
  }

  /**
   * True when no warning or trip is pending at the last value checked: checking that same value
   * again would change nothing (the peak, the path and every limit already account for it), so
   * a caller whose value has not changed may skip the call.
   */
  get settled(): boolean {
    return this.now[0] < this.next[0] && this.now[1] < this.next[1];
  }

  private limitsCrossed(ts: number): boolean {
    const L = this.limits;
    const dd = this.now[0];
    const loss = this.now[1];
    let tripped = false;
    if (!this.killed) {
      if (!this.ddBreached && dd >= L.maxDrawdownFrac) {
        this.ddBreached = true;
        tripped = this.trip(
          ts,
          'MAX_DRAWDOWN',
          `drawdown ${(dd * 100).toFixed(2)}% reached the ${(L.maxDrawdownFrac * 100).toFixed(2)}% limit`,
          dd,
          L.maxDrawdownFrac,
        );
      } else if (!this.lossBreached && loss >= L.maxDailyLoss) {
        this.lossBreached = true;
        tripped = this.trip(ts, 'MAX_DAILY_LOSS', `daily loss $${loss.toFixed(2)} reached the $${L.maxDailyLoss.toFixed(2)} limit`, loss, L.maxDailyLoss);
      }
      if (!this.ddWarned && dd >= WARN_FRACTION * L.maxDrawdownFrac) {
        this.ddWarned = true;
        if (!this.ddBreached)
          this.alerts.add(
            ts,
            'warning',
            'DRAWDOWN_WARNING',
            `drawdown ${(dd * 100).toFixed(2)}% is past half the ${(L.maxDrawdownFrac * 100).toFixed(2)}% limit`,
            dd,
            L.maxDrawdownFrac,
          );
      }
      if (!this.lossWarned && loss >= WARN_FRACTION * L.maxDailyLoss) {
        this.lossWarned = true;
        if (!this.lossBreached)
          this.alerts.add(
            ts,
            'warning',
            'DAILY_LOSS_WARNING',
            `daily loss $${loss.toFixed(2)} is past half the $${L.maxDailyLoss.toFixed(2)} limit`,
            loss,
            L.maxDailyLoss,
          );
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

  /**
   * Trips the kill switch (also used for external causes, e.g. a worker restart) at `ts`; false
   * when it was already tripped: it trips, and is announced, once.
   */
  trip(ts: number, code: string, message: string, value: number, limit: number): boolean {
    if (this.killed) return false;
    if (!this.limits.killSwitchEnabled) {
      this.alerts.add(ts, 'critical', code, `${message} (kill switch disabled: still quoting)`, value, limit);
      return false;
    }
    const r = KILL_REASONS.indexOf(code as (typeof KILL_REASONS)[number]);
    this.st[ST_REASON] = r > 0 ? r : KILL_REASONS.length - 1;
    this.st[ST_KILL_TS] = ts;
    this.st[ST_KILL_VALUE] = this.now[2];
    // Last: the state is shared memory that outlives the thread, and a thread terminated between
    // these stores must not leave a tripped switch without its reason and time.
    this.st[ST_KILLED] = 1;
    this.alerts.add(ts, 'critical', 'KILL_SWITCH', `kill switch: ${message}; all orders cancelled, quoting stopped`, value, limit);
    return true;
  }
}

/** Drawdown from the peak as a fraction; 0 without a positive peak. One definition for the check and its replay. */
export function drawdownOf(peak: number, equity: number): number {
  return peak > 0 ? (peak - equity) / peak : 0;
}

/**
 * The values a session's drawdown check saw, kept as what decides the check for any base and
 * carried peak: for every new running maximum M of the values, the lowest value m before the
 * next one. With equity = base + value, the peak over a stretch is max(peak in, base + M)
 * (float addition is monotone, so the maximum of base + v is base + the maximum of v) and the
 * worst drawdown in it is at base + m. maxDrawdown(base, peak) is thus exactly the largest
 * drawdown the check would have computed had the session run with that base and peak.
 * Fixed capacity, allocated once: a session whose path outgrows it is marked overflowed (the
 * run then replays it for real instead).
 */
export class DrawdownPath {
  private readonly highs: Float64Array;
  private readonly lows: Float64Array;
  private readonly scratch = new Float64Array(1);
  n = 0;
  overflowed = false;

  constructor(capacity = 1 << 16) {
    this.highs = new Float64Array(capacity);
    this.lows = new Float64Array(capacity);
  }

  add(v: number): void {
    const at = this.scratch;
    at[0] = v;
    this.addAt(at, 0);
  }

  /** add(at[i]), with no double crossing the call (see RiskManager.checkEquity). */
  addAt(at: Float64Array, i: number): void {
    const v = at[i];
    const n = this.n;
    if (n > 0 && v <= this.highs[n - 1]) {
      if (v < this.lows[n - 1]) this.lows[n - 1] = v;
      return;
    }
    if (n === this.highs.length) {
      this.overflowed = true;
      return;
    }
    this.highs[n] = v;
    this.lows[n] = v;
    this.n = n + 1;
  }

  /** Highest value seen (-Infinity when none). */
  get max(): number {
    return this.n > 0 ? this.highs[this.n - 1] : -Infinity;
  }

  /** Largest drawdown the check would have seen with this base and carried-in peak. */
  maxDrawdown(base: number, peakIn: number): number {
    let worst = 0;
    for (let j = 0; j < this.n; j++) {
      const high = base + this.highs[j];
      const peak = high > peakIn ? high : peakIn;
      const dd = drawdownOf(peak, base + this.lows[j]);
      if (dd > worst) worst = dd;
    }
    return worst;
  }

  /** A path from its toJSON() form. */
  static from(p: { highs: number[]; lows: number[]; overflowed: boolean }): DrawdownPath {
    const path = new DrawdownPath(Math.max(1, p.highs.length));
    path.highs.set(p.highs);
    path.lows.set(p.lows);
    path.n = p.highs.length;
    path.overflowed = p.overflowed;
    return path;
  }

  /** Plain arrays for a result that crosses threads (only the used part). */
  toJSON(): { highs: number[]; lows: number[]; overflowed: boolean } {
    return { highs: Array.from(this.highs.subarray(0, this.n)), lows: Array.from(this.lows.subarray(0, this.n)), overflowed: this.overflowed };
  }
}
