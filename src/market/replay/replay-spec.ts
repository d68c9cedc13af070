// What one replayed session needs to open its recorded data: plain data, so it crosses into the
// backtest pool's workers inside the SessionSpec. Times: the engine counts ns after New York
// midnight of the session date; DBN counts ns since the UNIX epoch, so each session carries the
// epoch ns of its New York midnight (as decimal text: it exceeds 2^53).

import { newYorkDateOf, sessionMidnightUnixNs } from '../dbn-time.ts';
import { isTradingDay } from '../calendar.ts';
import { inCalendarYears } from '../cme-holidays.ts';

/** Schemas the engine replays: MBO (order by order) and MBP-10 (10 levels per side). */
export const REPLAY_SCHEMAS = ['mbo', 'mbp-10'] as const;
export type ReplaySchema = (typeof REPLAY_SCHEMAS)[number];

export interface ReplaySessionSpec {
  /**
   * The files read, in time order: those holding the session's trade date, from the last that
   * opens with a book snapshot at or before the window's start (else the first), so that
   * everything before the window warms the book (dbn-source.ts).
   */
  files: string[];
  schema: ReplaySchema;
  /** The raw symbol replayed (e.g. ESH4) and its instrument id in the files. */
  symbol: string;
  instrumentId: number;
  /** Epoch ns of New York midnight of the session date, decimal. */
  baseUtcNs: string;
  /** DBN price units (1e-9) per tick of the contract. */
  tickUnits: number;
  /** One L2 event per order change (l3_fifo needs each change's priority) instead of per level. */
  perOrder: boolean;
}

// A CME Globex trade date ends at the product's daily close, 16:00 Chicago (17:00 New York) for
// every product group the engine models (equity index, energy, metals, interest rates: CME Globex
// Sunday-Friday 17:00-16:00 Chicago with a daily 60-minute break; docs/instruments.md), and opens at the previous
// trade date's close: the evening, the pre-open included, belongs to the next trade date, and
// so does a weekend's or a holiday's trading (CME's rule: a holiday's session is part of the
// next trade date's).
const DAILY_CLOSE_NY_NS = 17n * 3_600_000_000_000n;
const DAY_MS = 86_400_000;

const nextDate = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** A date with a CME session (a weekday, not a holiday; weekdays outside the calendar's years). */
function tradesOn(date: string): boolean {
  if (!inCalendarYears(date)) {
    const wd = new Date(`${date}T00:00:00Z`).getUTCDay();
    return wd !== 0 && wd !== 6;
  }
  return isTradingDay(date);
}

/** Epoch ns of the daily close ending trade date `date`. */
export function tradeDateCloseUtcNs(date: string): bigint {
  return sessionMidnightUnixNs(date) + DAILY_CLOSE_NY_NS;
}

/** Epoch ns of the open of trade date `date`: the previous trade date's close. */
export function tradeDateOpenUtcNs(date: string): bigint {
  let d = nextDate(date, -1);
  while (!tradesOn(d)) d = nextDate(d, -1);
  return tradeDateCloseUtcNs(d);
}

/** The CME trade date (YYYY-MM-DD) of an epoch-ns time: the first trading day whose close is after it. */
export function tradeDateOf(utcNs: bigint): string {
  let d = newYorkDateOf(utcNs);
  if (utcNs >= tradeDateCloseUtcNs(d)) d = nextDate(d, 1);
  while (!tradesOn(d)) d = nextDate(d, 1);
  return d;
}

/**
 * Globex is closed from Friday's close to Sunday 17:00 New York (the pre-open before the 18:00
 * open): a window inside that holds no data (a Friday's daily file ends with such an evening).
 */
export function inWeekendClosure(fromUtcNs: bigint, toUtcNs: bigint): boolean {
  const d = newYorkDateOf(fromUtcNs);
  const wd = new Date(`${d}T00:00:00Z`).getUTCDay();
  if (wd === 5 && fromUtcNs < tradeDateCloseUtcNs(d)) return false;
  const sunday = wd === 5 ? nextDate(d, 2) : wd === 6 ? nextDate(d, 1) : wd === 0 ? d : null;
  return sunday !== null && toUtcNs <= sessionMidnightUnixNs(sunday) + DAILY_CLOSE_NY_NS;
}
