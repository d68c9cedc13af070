// The synthetic market's daily price path: one continuous market across days. Each trading day
// of the CME calendar (2015-2035) has an open and a close of the efficient price, fixed up front
// from (root, seed) alone, so a session's market does not depend on which other sessions run,
// nor where (pool threads, queue workers): the generator of any one day reads its anchors here.
//
// Per trading day d, in log price x (natural log of the price in points):
//   open(d)  = close(d-1) + gap(d)                       (day 0: a uniform draw over the range)
//   close(d) = open(d) - theta (open(d) - mid) + s(d) z   (reflected into [low, high])
// - gap(d): the overnight gap, a two-component normal mixture (profile gapSd, gapJumpProb,
//   gapJumpSd): calm nights N(0, gapSd^2), news nights (probability gapJumpProb) N(0, gapJumpSd^2).
// - s(d): the day's open-to-close volatility, the one the generator's latent price has over the
//   day's hours: annualVol / sqrt(252) x sqrt(hours / 6.5 h) x exp((hDay - dispersion^2 / 2) / 2),
//   hDay ~ N(0, dailyVolDispersion^2) the day's log-variance level, which the generator then uses
//   as its own (a busy day moves more and trades more).
// - theta = ln 2 / pathReversionDays: a soft pull of each day's move toward the middle of the
//   contract's range [typicalLow, typicalHigh]; a close beyond an edge is reflected back inside,
//   so closes stay in the range and an open leaves it by at most one overnight gap.
// The day's anchors are times of the session clock: the open at the root's regular open (09:30
// New York unless its contract table says otherwise), the close at its regular close or the
// day's early close.

import { Rng, hashSeed } from '../core/rng.ts';
import { CALENDAR_FIRST_YEAR, CALENDAR_LAST_YEAR, earlyCloseNs, isTradingDay } from './calendar.ts';
import type { ContractSpec } from './instruments.ts';
import type { MarketProfile } from './market-profile.ts';
import { RTH_CLOSE_NS, RTH_OPEN_NS } from './regular-hours.ts';

const NS_PER_HOUR = 3600e9;
const RTH_HOURS = (RTH_CLOSE_NS - RTH_OPEN_NS) / NS_PER_HOUR;

/** The anchor times of `date` for a root: its regular open and its close (an early close cuts it). */
export function pathHours(spec: Pick<ContractSpec, 'regularOpenNs' | 'regularCloseNs'>, date: string): { openNs: number; closeNs: number } {
  return hoursOf(spec, earlyCloseNs(date) ?? Infinity);
}

function hoursOf(spec: Pick<ContractSpec, 'regularOpenNs' | 'regularCloseNs'>, earlyClose: number): { openNs: number; closeNs: number } {
  const openNs = spec.regularOpenNs ?? RTH_OPEN_NS;
  const closeNs = Math.min(earlyClose, spec.regularCloseNs ?? RTH_CLOSE_NS);
  return { openNs, closeNs: closeNs > openNs ? closeNs : openNs + 1 };
}

interface TradingCalendar {
  dates: string[];
  index: Map<string, number>;
  /** Each day's early close (ns after New York midnight), Infinity: none. */
  earlyClose: Float64Array;
}

/** The calendar's trading days, in order, and each one's index (built once per process). */
let days: TradingCalendar | null = null;
function tradingCalendar(): TradingCalendar {
  if (days) return days;
  const dates: string[] = [];
  const end = Date.UTC(CALENDAR_LAST_YEAR, 11, 31);
  for (let t = Date.UTC(CALENDAR_FIRST_YEAR, 0, 1); t <= end; t += 86_400_000) {
    const d = new Date(t).toISOString().slice(0, 10);
    if (isTradingDay(d)) dates.push(d);
  }
  const earlyClose = Float64Array.from(dates, (d) => earlyCloseNs(d) ?? Infinity);
  days = { dates, index: new Map(dates.map((d, i) => [d, i])), earlyClose };
  return days;
}

/** One root's path for one seed: per trading day, the efficient price (ticks) at its open and close, and the day's log-variance level. */
export interface DailyPath {
  readonly dates: readonly string[];
  readonly openTicks: Float64Array;
  readonly closeTicks: Float64Array;
  /** log(open(d) / close(d-1)); 0 for the first day. */
  readonly gap: Float64Array;
  readonly hDay: Float64Array;
  /** The index of a trading day; throws for a date without a session or outside the calendar. */
  dayIndex(date: string): number;
}

/** What the path depends on: its cache key holds all of it. */
type PathInputs = Pick<MarketProfile, 'annualVol' | 'dailyVolDispersion' | 'gapSd' | 'gapJumpProb' | 'gapJumpSd' | 'pathReversionDays'>;

const cache = new Map<string, DailyPath>();
const CACHE_MAX = 32;

/** The daily path of spec's root for `seed` (cached: the same object for the same inputs). */
export function dailyPath(spec: ContractSpec, p: PathInputs, seed: number): DailyPath {
  const key = [
    spec.root,
    seed,
    spec.tickSize,
    spec.typicalLow,
    spec.typicalHigh,
    spec.regularOpenNs,
    spec.regularCloseNs,
    p.annualVol,
    p.dailyVolDispersion,
    p.gapSd,
    p.gapJumpProb,
    p.gapJumpSd,
    p.pathReversionDays,
  ].join('|');
  let path = cache.get(key);
  if (!path) {
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    path = buildPath(spec, p, seed);
    cache.set(key, path);
  }
  return path;
}

function buildPath(spec: ContractSpec, p: PathInputs, seed: number): DailyPath {
  if (!(spec.typicalLow > 0 && spec.typicalHigh >= spec.typicalLow))
    throw new Error(`${spec.root}: the daily path needs a price range 0 < price_low <= price_high, got ${spec.typicalLow}..${spec.typicalHigh}`);
  for (const k of ['gapSd', 'gapJumpSd', 'pathReversionDays'] as const)
    if (!(p[k] > 0)) throw new Error(`${spec.root}: market profile ${k} must be positive, got ${p[k]}`);
  if (!(p.gapJumpProb >= 0 && p.gapJumpProb <= 1)) throw new Error(`${spec.root}: market profile gapJumpProb must be in [0, 1], got ${p.gapJumpProb}`);
  const { dates, index, earlyClose } = tradingCalendar();
  const n = dates.length;
  const openTicks = new Float64Array(n);
  const closeTicks = new Float64Array(n);
  const gap = new Float64Array(n);
  const hDay = new Float64Array(n);
  const lo = Math.log(spec.typicalLow);
  const hi = Math.log(spec.typicalHigh);
  const mid = 0.5 * (lo + hi);
  const theta = Math.LN2 / p.pathReversionDays;
  const disp = p.dailyVolDispersion;
  const lnTick = Math.log(spec.tickSize);
  const rng = new Rng(hashSeed(`daily-path|${spec.root}`, seed));
  let close = lo + (hi - lo) * rng.next();
  for (let d = 0; d < n; d++) {
    // Four draws a day, always, so a day's values depend only on the days before it.
    const jump = rng.next() < p.gapJumpProb;
    const zGap = rng.normal();
    const zH = rng.normal();
    const zRet = rng.normal();
    const g = d === 0 ? 0 : (jump ? p.gapJumpSd : p.gapSd) * zGap;
    const open = close + g;
    const h = disp * zH;
    const { openNs, closeNs } = hoursOf(spec, earlyClose[d]);
    const hours = Math.min(1, (closeNs - openNs) / NS_PER_HOUR / RTH_HOURS);
    const s = (p.annualVol / Math.sqrt(252)) * Math.sqrt(hours) * Math.exp(0.5 * (h - 0.5 * disp * disp));
    close = open - theta * (open - mid) + s * zRet;
    if (close > hi) close = Math.max(lo, 2 * hi - close);
    else if (close < lo) close = Math.min(hi, 2 * lo - close);
    gap[d] = g;
    hDay[d] = h;
    openTicks[d] = Math.exp(open - lnTick);
    closeTicks[d] = Math.exp(close - lnTick);
  }
  return {
    dates,
    openTicks,
    closeTicks,
    gap,
    hDay,
    dayIndex(date: string): number {
      const i = index.get(date);
      if (i === undefined)
        throw new Error(`${spec.root} ${date}: no trading day of the CME calendar (${CALENDAR_FIRST_YEAR}-${CALENDAR_LAST_YEAR}) on the daily price path`);
      return i;
    },
  };
}
