// The simulated clock of simulation mode, shared by every worker as a pure function of wall
// time: session k is the k-th CME trading day from the start date (weekends and CME holidays
// skipped, calendar.ts); sessions follow each other back to back (the overnight is skipped), each
// lasting (its close - session_start) / speed of wall time, where the close is session_end or the
// day's early close. Engine timestamps are continuous ns since midnight New York time of the
// start date, so a later day's times are offset by whole days.

import { formatDate, hasSession, parseDate, sessionCloseNs } from '../market/calendar.ts';

export const NS_PER_DAY = 86_400e9;
const L_FROM = 0;
const L_TO = 1;
const L_OFFSET = 2;

export class SimClock {
  readonly startDate: string;
  readonly sessionStartNs: number;
  readonly sessionEndNs: number;
  readonly speed: number;
  /** Wall-clock origin in ms on the shared time base (wall-clock.ts wallMs(), read by the main thread). */
  readonly originMs: number;
  private readonly dates: string[] = [];
  private readonly offsets: number[] = [];
  /** Simulated ns of trading before session k opens (the sum of the earlier sessions' lengths). */
  private readonly opens: number[] = [0];
  /** The session of the last nowNs(): opens[k], opens[k + 1], dayOffsetNs(k) (empty range at first). */
  private readonly last = new Float64Array(3);

  constructor(startDate: string, sessionStartNs: number, sessionEndNs: number, speed: number, originMs: number) {
    this.startDate = startDate;
    this.sessionStartNs = sessionStartNs;
    this.sessionEndNs = sessionEndNs;
    this.speed = speed;
    this.originMs = originMs;
  }

  /** Simulated ns elapsed since the first session's open at wall time `wallMs`. */
  elapsedNs(wallMs: number): number {
    // Math.max, not `e > 0 ? e : 0` (hot-path rule 4).
    return Math.max((wallMs - this.originMs) * 1e6 * this.speed, 0);
  }

  sessionIndex(wallMs: number): number {
    return this.sessionAt(this.elapsedNs(wallMs));
  }

  /**
   * Continuous engine time at wall time `wallMs`. The worker threads call it on every pass of
   * their idle loops, and the general path (binary search, calendar) allocated: 4 scavenges per
   * 1M calls (test/integration/sessions/simulation-worker-clock.test.ts). So the session found last is kept in a
   * typed array and the usual call is a few reads that inline. Same arithmetic either way.
   */
  nowNs(wallMs: number): number {
    const e = this.elapsedNs(wallMs);
    const c = this.last;
    if (!(e >= c[L_FROM] && e < c[L_TO])) this.findSession(e);
    return c[L_OFFSET] + this.sessionStartNs + (e - c[L_FROM]);
  }

  /** Sets `last` to the session holding elapsed time e (kept out of nowNs so that it inlines). */
  private findSession(e: number): void {
    const k = this.sessionAt(e);
    const c = this.last;
    c[L_FROM] = this.opens[k];
    c[L_TO] = this.opens[k + 1];
    c[L_OFFSET] = this.dayOffsetNs(k);
  }

  /** Wall-clock ms at which the engine clock reads `ns` during session k (inverse of nowNs). */
  wallMsAt(ns: number, k: number): number {
    const intoSession = ns - this.dayOffsetNs(k) - this.sessionStartNs;
    return this.originMs + (this.opens[k] + intoSession) / (1e6 * this.speed);
  }

  /** YYYY-MM-DD of session k. */
  date(k: number): string {
    this.extend(k);
    return this.dates[k];
  }

  /** Offset of session k's midnight from the start date's midnight, ns. */
  dayOffsetNs(k: number): number {
    this.extend(k);
    return this.offsets[k];
  }

  sessionBounds(k: number): { startNs: number; endNs: number } {
    const off = this.dayOffsetNs(k);
    return { startNs: off + this.sessionStartNs, endNs: off + this.closeNs(this.dates[k]) };
  }

  private closeNs(date: string): number {
    return sessionCloseNs(date, this.sessionEndNs);
  }

  /** The session k with opens[k] <= e < opens[k + 1] (binary search; sessions are added as needed). */
  private sessionAt(e: number): number {
    while (this.opens[this.opens.length - 1] <= e) this.extend(this.dates.length);
    let lo = 0;
    let hi = this.dates.length - 1; // opens[hi + 1] > e
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.opens[mid] <= e) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private extend(k: number): void {
    if (this.dates.length > k) return;
    const start = parseDate(this.startDate)!.getTime();
    let t = this.dates.length ? parseDate(this.dates[this.dates.length - 1])!.getTime() + 86_400_000 : start;
    while (this.dates.length <= k) {
      const date = formatDate(new Date(t));
      if (hasSession(date, this.sessionStartNs)) {
        this.dates.push(date);
        this.offsets.push(Math.round((t - start) / 86_400_000) * NS_PER_DAY);
        this.opens.push(this.opens[this.opens.length - 1] + this.closeNs(date) - this.sessionStartNs);
      }
      t += 86_400_000;
    }
  }
}
