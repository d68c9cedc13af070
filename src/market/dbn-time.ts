// The one conversion between the engine's clock and DBN's. The engine stamps events in ns since
// midnight New York time of the session date (EV_TS, EV_RECV), with the date's offset as
// src/market/calendar.ts defines it (newYorkOffsetMinutes, the offset at noon: every CME
// session date has one offset all day); DBN stamps them in ns since the UNIX epoch (UTC), which
// exceeds 2^53, hence bigint. Both directions are exact for integer session ns.
import { newYorkOffsetMinutes } from './calendar.ts';

const NS_PER_MS = 1_000_000n;
const NS_PER_MIN = 60_000_000_000n;

/** UNIX-epoch ns of midnight New York time on `date` (YYYY-MM-DD). */
export function sessionMidnightUnixNs(date: string): bigint {
  const midnightUtcMs = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(midnightUtcMs)) throw new RangeError(`sessionMidnightUnixNs: ${JSON.stringify(date)} is not a YYYY-MM-DD date`);
  return BigInt(midnightUtcMs) * NS_PER_MS - BigInt(newYorkOffsetMinutes(date)) * NS_PER_MIN;
}

/** Engine time (integer ns after New York midnight of `date`) -> DBN time (ns since the epoch). */
export function sessionNsToUnixNs(date: string, sessionNs: number): bigint {
  if (!Number.isSafeInteger(sessionNs)) throw new RangeError(`sessionNsToUnixNs: ${sessionNs} is not an integer number of ns`);
  return sessionMidnightUnixNs(date) + BigInt(sessionNs);
}

/** DBN time -> engine time of session date `date`; the inverse of sessionNsToUnixNs. */
export function unixNsToSessionNs(date: string, unixNs: bigint): number {
  return Number(unixNs - sessionMidnightUnixNs(date));
}

/** The New York calendar date (YYYY-MM-DD) of an instant given in ns since the epoch. */
export function newYorkDateOf(unixNs: bigint): string {
  const ms = Number(unixNs / NS_PER_MS);
  // Guess with the offset of the UTC date, then correct once if the local date's offset differs.
  let date = new Date(ms).toISOString().slice(0, 10);
  for (let i = 0; i < 2; i++) {
    const local = new Date(ms + newYorkOffsetMinutes(date) * 60_000).toISOString().slice(0, 10);
    if (local === date) break;
    date = local;
  }
  return date;
}
