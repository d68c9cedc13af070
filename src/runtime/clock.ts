// The simulated clock of simulation mode, shared by every worker as a pure function of wall
// time: session k is the k-th business day from the start date; sessions follow each other back
// to back (the overnight is skipped), each lasting (session_end - session_start) / speed of wall
// time. Engine timestamps are continuous ns since midnight New York time of the start date, so a
// later day's times are offset by whole days.

import { isBusinessDay, parseDate, formatDate } from '../market/calendar.ts';

export const NS_PER_DAY = 86_400e9;

export class SimClock {
  readonly startDate: string;
  readonly sessionStartNs: number;
  readonly sessionEndNs: number;
  readonly speed: number;
  /** Wall-clock origin in ms (performance.timeOrigin + performance.now() of the main thread). */
  readonly originMs: number;
  private readonly sessionLenNs: number;
  private readonly dates: string[] = [];
  private readonly offsets: number[] = [];

  constructor(startDate: string, sessionStartNs: number, sessionEndNs: number, speed: number, originMs: number) {
    this.startDate = startDate;
    this.sessionStartNs = sessionStartNs;
    this.sessionEndNs = sessionEndNs;
    this.speed = speed;
    this.originMs = originMs;
    this.sessionLenNs = sessionEndNs - sessionStartNs;
  }

  /** Wall-clock ms on the shared time base (same in every thread of the process). */
  static wallMs(): number {
    return performance.timeOrigin + performance.now();
  }

  /** Simulated ns elapsed since the first session's open at wall time `wallMs`. */
  elapsedNs(wallMs: number): number {
    const e = (wallMs - this.originMs) * 1e6 * this.speed;
    return e > 0 ? e : 0;
  }

  sessionIndex(wallMs: number): number {
    return Math.floor(this.elapsedNs(wallMs) / this.sessionLenNs);
  }

  /** Continuous engine time at wall time `wallMs`. */
  nowNs(wallMs: number): number {
    const e = this.elapsedNs(wallMs);
    const k = Math.floor(e / this.sessionLenNs);
    return this.dayOffsetNs(k) + this.sessionStartNs + (e - k * this.sessionLenNs);
  }

  /** Wall-clock ms at which the engine clock reads `ns` during session k (inverse of nowNs). */
  wallMsAt(ns: number, k: number): number {
    const intoSession = ns - this.dayOffsetNs(k) - this.sessionStartNs;
    return this.originMs + (k * this.sessionLenNs + intoSession) / (1e6 * this.speed);
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
    return { startNs: off + this.sessionStartNs, endNs: off + this.sessionEndNs };
  }

  private extend(k: number): void {
    if (this.dates.length > k) return;
    const start = parseDate(this.startDate)!.getTime();
    let t = this.dates.length ? parseDate(this.dates[this.dates.length - 1])!.getTime() + 86_400_000 : start;
    while (this.dates.length <= k) {
      const d = new Date(t);
      if (isBusinessDay(d)) {
        this.dates.push(formatDate(d));
        this.offsets.push(Math.round((t - start) / 86_400_000) * NS_PER_DAY);
      }
      t += 86_400_000;
    }
  }
}
