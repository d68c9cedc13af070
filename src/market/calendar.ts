// Trading calendar: business days and the America/New_York session clock. Engine timestamps
// are nanoseconds since midnight New York time of the session date; this module converts
// them to UTC epoch time at the edges (API, CSV).

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

export function isBusinessDay(d: Date): boolean {
  const wd = d.getUTCDay();
  return wd !== 0 && wd !== 6;
}

/** Business days from start to end inclusive, as YYYY-MM-DD strings. */
export function businessDays(start: string, end: string): string[] {
  const s = parseDate(start);
  const e = parseDate(end);
  if (!s || !e) throw new Error(`bad date range ${start}..${end}`);
  const out: string[] = [];
  for (let t = s.getTime(); t <= e.getTime(); t += 86_400_000) {
    const d = new Date(t);
    if (isBusinessDay(d)) out.push(formatDate(d));
  }
  return out;
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
