// Trading calendar: CME trading days (weekdays that are not CME holidays, cme-holidays.ts), the
// session window of a date (early closes), and the America/New_York session clock. Engine
// timestamps are nanoseconds since midnight New York time of the session date; this module
// converts them to UTC epoch time at the edges (API, CSV).

import { cmeHoliday, earlyCloseNs } from './cme-holidays.ts';

export { CALENDAR_FIRST_YEAR, CALENDAR_LAST_YEAR, cmeHoliday, EARLY_CLOSE_NS, earlyCloseNs, holidaysBetween, inCalendarYears } from './cme-holidays.ts';

export const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** Parses YYYY-MM-DD strictly (rejects 2024-02-30); returns a UTC-midnight Date or null. */
export function parseDate(s: string): Date | null {
  if (!DATE_RE.test(s)) return null;
  const d = new Date(`${s}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s) return null;
  return d;
}

export function formatDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

const DAY_MS = 86_400_000;

/** A weekday that is not a CME holiday: the date has a regular session. Throws outside the calendar's years. */
export function isTradingDay(date: string): boolean {
  const wd = new Date(`${date}T00:00:00Z`).getUTCDay();
  return wd !== 0 && wd !== 6 && cmeHoliday(date) === null;
}

/** A trading day whose session, opening at `sessionStartNs`, is not cut to nothing by an early close. */
export function hasSession(date: string, sessionStartNs: number): boolean {
  return isTradingDay(date) && (earlyCloseNs(date) ?? Infinity) > sessionStartNs;
}

/** The first date on or after `date` with a session opening at `sessionStartNs`. */
export function firstSessionDate(date: string, sessionStartNs: number): string {
  let d = date;
  while (!hasSession(d, sessionStartNs)) d = addTradingDays(d, 1);
  return d;
}

/** The dates from start to end inclusive with a session opening at `sessionStartNs` (default: any trading day), as YYYY-MM-DD strings. */
export function tradingDays(start: string, end: string, sessionStartNs = 0): string[] {
  const s = parseDate(start);
  const e = parseDate(end);
  if (!s || !e) throw new Error(`bad date range ${start}..${end}`);
  const out: string[] = [];
  for (let t = s.getTime(); t <= e.getTime(); t += DAY_MS) {
    const d = formatDate(new Date(t));
    if (hasSession(d, sessionStartNs)) out.push(d);
  }
  return out;
}

/** The trading day `n` trading days after `date` (n < 0: before; n = 0: `date` itself, which need not trade). */
export function addTradingDays(date: string, n: number): string {
  let t = Date.parse(`${date}T00:00:00Z`);
  const step = n < 0 ? -DAY_MS : DAY_MS;
  for (let left = Math.abs(n); left > 0; ) {
    t += step;
    if (isTradingDay(formatDate(new Date(t)))) left--;
  }
  return formatDate(new Date(t));
}

/** The close of `date`'s session: the configured close, or the early close when earlier. */
export function sessionCloseNs(date: string, configuredCloseNs: number): number {
  const early = earlyCloseNs(date);
  return early !== null && early < configuredCloseNs ? early : configuredCloseNs;
}

/** Parses HH:MM into nanoseconds after midnight. */
export function parseClock(s: string): number | null {
  const m = /^(\d{2}):(\d{2})$/.exec(s);
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 23 || min > 59) return null;
  return (h * 60 + min) * 60 * 1e9;
}

const nyOffsetCache = new Map<string, number>();

/** Minutes New York local time is ahead of UTC on that date (-300 or -240). */
export function newYorkOffsetMinutes(date: string): number {
  let off = nyOffsetCache.get(date);
  if (off === undefined) {
    const noonUtc = new Date(`${date}T17:00:00Z`);
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', timeZoneName: 'shortOffset' }).formatToParts(noonUtc);
    const name = parts.find((p) => p.type === 'timeZoneName')?.value ?? 'GMT-5';
    const m = /GMT([+-]\d+)(?::(\d+))?/.exec(name);
    off = m ? Number(m[1]) * 60 + Math.sign(Number(m[1])) * Number(m[2] ?? 0) : -300;
    nyOffsetCache.set(date, off);
  }
  return off;
}

/** UTC epoch milliseconds of an engine timestamp (ns after New York midnight of `date`). */
export function sessionNsToEpochMs(date: string, ns: number): number {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`);
  return midnightUtc - newYorkOffsetMinutes(date) * 60_000 + ns / 1e6;
}
