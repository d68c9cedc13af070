// Number formatting for a trading screen: prices on the contract's tick grid, USD with two
// decimals and a sign, counts with separators, latencies in µs. Formatters are built once.

import { CONTRACTS } from '../../market/instruments.ts';

export const DASH = '—';

export interface PriceFormat {
  root: string;
  tick: number;
  decimals: number;
  pointValue: number;
  /** A price on the tick grid, e.g. 5012.25; null as a dash. */
  price(p: number | null | undefined): string;
  /** A price that may sit between ticks (mid, microprice): one more decimal when needed. */
  fine(p: number | null | undefined): string;
}

/** Decimals that show every multiple of the tick exactly (0.25: 2; 0.015625: 6; 0.00005: 5). */
function decimalsOf(tick: number): number {
  for (let d = 0; d < 12; d++) {
    const x = tick * 10 ** d;
    if (Math.abs(x - Math.round(x)) < 1e-9 * Math.max(1, x)) return d;
  }
  return 12;
}

const priceFormats = new Map<string, PriceFormat>();

/**
 * The price format of a contract root (ES, NQ, CL, ...): from the tick size and point value the
 * engine's state gives (a root configured with [contracts.<ROOT>] or known from definition
 * records), else the built-in table; a root known to neither falls back to 2 decimals.
 */
export function priceFormat(root: string, tickSize?: number, pointValue?: number): PriceFormat {
  let f = priceFormats.get(root);
  if (f && (tickSize === undefined || f.tick === tickSize)) return f;
  const spec = Object.prototype.hasOwnProperty.call(CONTRACTS, root) ? CONTRACTS[root] : undefined;
  const tick = tickSize ?? spec?.tickSize ?? 0.01;
  const decimals = decimalsOf(tick);
  f = {
    root,
    tick,
    decimals,
    pointValue: pointValue ?? spec?.pointValue ?? 1,
    price: (p) => (p === null || p === undefined || !Number.isFinite(p) ? DASH : (Math.round(p / tick) * tick).toFixed(decimals)),
    fine: (p) => {
      if (p === null || p === undefined || !Number.isFinite(p)) return DASH;
      const onGrid = Math.abs(p / tick - Math.round(p / tick)) < 1e-6;
      return p.toFixed(onGrid ? decimals : decimals + 1);
    },
  };
  priceFormats.set(root, f);
  return f;
}

const usd2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const usd2Signed = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: 'exceptZero' });
const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const intSigned = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, signDisplay: 'exceptZero' });
const dec2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

const ok = (x: number | null | undefined): x is number => x !== null && x !== undefined && Number.isFinite(x);

/** USD, two decimals: 1,234.56 */
export const fmtUsd = (x: number | null | undefined): string => (ok(x) ? usd2.format(x) : DASH);
/** Signed USD, two decimals: +1,234.56 / -12.00 */
export const fmtPnl = (x: number | null | undefined): string => (ok(x) ? usd2Signed.format(x) : DASH);
export const fmtInt = (x: number | null | undefined): string => (ok(x) ? int.format(x) : DASH);
export const fmtSignedInt = (x: number | null | undefined): string => (ok(x) ? intSigned.format(x) : DASH);
export const fmtDec2 = (x: number | null | undefined): string => (ok(x) ? dec2.format(x) : DASH);
/** A fraction as a percentage: 0.5123 -> 51.23% */
export const fmtFracPct = (x: number | null | undefined, digits = 2): string => (ok(x) ? `${(x * 100).toFixed(digits)}%` : DASH);
/** A value already in percent: 1.5 -> 1.50% */
export const fmtPct = (x: number | null | undefined, digits = 2): string => (ok(x) ? `${x.toFixed(digits)}%` : DASH);

/** Microseconds with a precision that suits the magnitude: 0.214, 12.4, 1,530 */
export function fmtUs(x: number | null | undefined): string {
  if (!ok(x)) return DASH;
  if (x < 1) return x.toFixed(3);
  if (x < 100) return x.toFixed(1);
  return int.format(x);
}

/** A duration given in µs, in the unit that reads best: 850 µs, 52.3 ms, 1.05 s */
export function fmtLatency(us: number | null | undefined): string {
  if (!ok(us)) return DASH;
  if (us < 1000) return `${us < 10 ? us.toFixed(1) : int.format(us)} µs`;
  if (us < 1e6) return `${(us / 1000).toFixed(us < 1e4 ? 2 : 1)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}

/** Whole dollars: 100,000 */
export const fmtUsd0 = (x: number | null | undefined): string => (ok(x) ? int.format(Math.round(x)) : DASH);

/** Seconds as 1d 02:03:04 / 02:03:04 */
export function fmtDuration(s: number | null | undefined): string {
  if (!ok(s) || s < 0) return DASH;
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.floor(s % 60);
  const hms = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`;
  return d > 0 ? `${d}d ${hms}` : hms;
}

// Exchange time is shown in New York time, as CME session times are.
const nyTime = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour12: false, hour: '2-digit', minute: '2-digit', second: '2-digit' });
const nyMinute = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour12: false, hour: '2-digit', minute: '2-digit' });
const nyDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' });

function fixMidnight(s: string): string {
  return s.startsWith('24:') ? `00:${s.slice(3)}` : s;
}

/** Epoch ms -> HH:MM:SS New York. */
export const fmtNyTime = (ms: number): string => (Number.isFinite(ms) ? fixMidnight(nyTime.format(ms)) : DASH);
/** Epoch ms -> HH:MM New York. */
export const fmtNyMinute = (ms: number): string => (Number.isFinite(ms) ? fixMidnight(nyMinute.format(ms)) : DASH);
/** Epoch ms -> YYYY-MM-DD New York. */
export const fmtNyDate = (ms: number): string => (Number.isFinite(ms) ? nyDate.format(ms) : DASH);

/** Epoch ms -> HH:MM:SS.mmm New York (fills). */
export function fmtNyTimeMs(ms: number): string {
  if (!Number.isFinite(ms)) return DASH;
  const frac = String(Math.floor(((ms % 1000) + 1000) % 1000)).padStart(3, '0');
  return `${fmtNyTime(ms)}.${frac}`;
}

/** CSS class of a signed figure. */
export const signClass = (x: number | null | undefined): string => (!ok(x) || x === 0 ? 'flat' : x > 0 ? 'pos' : 'neg');

const usdAxis = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** A chart's USD price scale: "$1,234.56", "-$12,000.00" (the library's default has neither `$` nor separators). */
export const USD_AXIS = { type: 'custom', minMove: 0.01, formatter: (x: number) => usdAxis.format(x) } as const;
