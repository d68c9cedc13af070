// CME holidays and early closes of the regular session (09:30-16:00 America/New_York), computed
// by rule for the years 2015-2035. Sources: NYSE Rule 7.2 (holidays, observed dates) and the
// NYSE early-close schedule, which the CME Group holiday calendar follows for its US products: on
// these holidays CME Globex at most trades an abbreviated session with no settlement, so the date
// has no regular session for any product here (ES NQ YM RTY MES MNQ CL GC, and the interest-rate
// group of [contracts.<ROOT>]: CME closes US rate futures at 12:00 CT = 13:00 ET on the early-close
// days, the instant used below; docs/instruments.md says what is not modelled).
// Written here rather than taken from npm: the one maintained candidate, nyse-holidays (one
// maintainer, dayjs), has no early closes and no one-off closures.
//
// Choices, so the figures can be checked:
// - Good Friday is a full holiday (NYSE closed; CME's short equity session some years, when the
//   jobs report falls on it, ends before 09:30 ET).
// - Early close at 13:00 ET, the NYSE close. CME equity index futures halt at 12:15 CT = 13:15 ET
//   on those days, but the session here follows the cash session (it ends at 16:00, not 16:15).
// - Juneteenth from 2022. New Year's Day on a Saturday is not observed (NYSE Rule 7.2); other
//   Saturday holidays move to Friday, Sunday ones to Monday.

export const CALENDAR_FIRST_YEAR = 2015;
export const CALENDAR_LAST_YEAR = 2035;
/** 13:00 America/New_York, ns after midnight. */
export const EARLY_CLOSE_NS = 13 * 3600e9;

/** One-off closures (national days of mourning) not given by any rule. */
const CLOSURES: Readonly<Record<string, string>> = {
  '2018-12-05': 'National Day of Mourning (George H. W. Bush)',
  '2025-01-09': 'National Day of Mourning (Jimmy Carter)',
};

const DAY_MS = 86_400_000;
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
const utc = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);
const weekday = (t: number) => new Date(t).getUTCDay();

/** The n-th (1-based) weekday `wd` (0 Sunday) of a month; n = -1: the last one. */
function nthWeekday(y: number, m: number, wd: number, n: number): number {
  if (n > 0) {
    const first = utc(y, m, 1);
    return first + (((wd - weekday(first) + 7) % 7) + (n - 1) * 7) * DAY_MS;
  }
  const last = utc(y, m + 1, 0);
  return last - ((weekday(last) - wd + 7) % 7) * DAY_MS;
}

/** Easter Sunday (Gregorian; anonymous algorithm, Meeus, Astronomical Algorithms ch. 8). */
function easter(y: number): number {
  const a = y % 19,
    b = Math.floor(y / 100),
    c = y % 100;
  const d = Math.floor(b / 4),
    e = b % 4,
    f = Math.floor((b + 8) / 25),
    g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4),
    k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  return utc(y, month, ((h + l - 7 * m + 114) % 31) + 1);
}

/** A fixed-date holiday's observed date: Saturday -> Friday, Sunday -> Monday. */
function observed(t: number): number {
  const wd = weekday(t);
  return wd === 6 ? t - DAY_MS : wd === 0 ? t + DAY_MS : t;
}

/** Whether the calendar covers the year of `date` (YYYY-MM-DD). */
export function inCalendarYears(date: string): boolean {
  return yearCovered(Number(date.slice(0, 4)));
}

const yearCovered = (y: number) => Number.isInteger(y) && y >= CALENDAR_FIRST_YEAR && y <= CALENDAR_LAST_YEAR;

const yearCache = new Map<number, { holidays: Map<string, string>; earlyCloses: Set<string> }>();

function year(y: number) {
  let c = yearCache.get(y);
  if (c) return c;
  if (!yearCovered(y)) {
    throw new RangeError(`the CME calendar covers ${CALENDAR_FIRST_YEAR}-${CALENDAR_LAST_YEAR}; ${y} is outside it`);
  }
  const holidays = new Map<string, string>();
  const add = (t: number, name: string) => holidays.set(iso(t), name);
  const newYear = utc(y, 1, 1);
  if (weekday(newYear) !== 6) add(observed(newYear), "New Year's Day");
  add(nthWeekday(y, 1, 1, 3), 'Martin Luther King Jr. Day');
  add(nthWeekday(y, 2, 1, 3), "Washington's Birthday");
  add(easter(y) - 2 * DAY_MS, 'Good Friday');
  add(nthWeekday(y, 5, 1, -1), 'Memorial Day');
  if (y >= 2022) add(observed(utc(y, 6, 19)), 'Juneteenth');
  add(observed(utc(y, 7, 4)), 'Independence Day');
  add(nthWeekday(y, 9, 1, 1), 'Labor Day');
  const thanksgiving = nthWeekday(y, 11, 4, 4);
  add(thanksgiving, 'Thanksgiving Day');
  add(observed(utc(y, 12, 25)), 'Christmas Day');
  for (const [d, name] of Object.entries(CLOSURES)) if (d.startsWith(`${y}-`)) holidays.set(d, name);
  // Early closes: the day after Thanksgiving; July 3 and December 24 when they fall Monday to
  // Thursday (on a Friday they are the observed holiday or precede a weekend holiday).
  const earlyCloses = new Set([iso(thanksgiving + DAY_MS)]);
  for (const t of [utc(y, 7, 3), utc(y, 12, 24)]) if (weekday(t) >= 1 && weekday(t) <= 4) earlyCloses.add(iso(t));
  c = { holidays, earlyCloses };
  yearCache.set(y, c);
  return c;
}

/** The holiday's name when `date` (YYYY-MM-DD) is a CME holiday, else null. Throws outside the years covered. */
export function cmeHoliday(date: string): string | null {
  return year(Number(date.slice(0, 4))).holidays.get(date) ?? null;
}

/** The early close (ns after New York midnight) of `date`, or null on a full-length day. */
export function earlyCloseNs(date: string): number | null {
  return year(Number(date.slice(0, 4))).earlyCloses.has(date) ? EARLY_CLOSE_NS : null;
}

/** Every holiday of a year, in date order (for documentation and tests). */
export function cmeHolidays(y: number): { date: string; name: string }[] {
  return [...year(y).holidays].map(([date, name]) => ({ date, name })).sort((a, b) => (a.date < b.date ? -1 : 1));
}

/** The holidays from start to end inclusive (YYYY-MM-DD), in date order. */
export function holidaysBetween(start: string, end: string): { date: string; name: string }[] {
  const out: { date: string; name: string }[] = [];
  for (let y = Number(start.slice(0, 4)); y <= Number(end.slice(0, 4)); y++) out.push(...cmeHolidays(y).filter((h) => h.date >= start && h.date <= end));
  return out;
}

/** Every early-close date of a year, in date order. */
export function earlyCloses(y: number): string[] {
  return [...year(y).earlyCloses].sort();
}
