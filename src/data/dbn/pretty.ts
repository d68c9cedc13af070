// `--inspect --pretty`: a DBN record or metadata the way people read it. Fixed-point prices
// (1e-9 units) become decimal numbers, nanosecond UNIX timestamps ISO 8601 UTC strings with all
// nine digits; the "undefined" sentinels (i64::MAX price, u64::MAX time) become null. The field
// names are Databento's; only the values' form changes. Without --pretty the raw integers stay.
import { UNDEF_PRICE, UNDEF_TIMESTAMP } from './constants.ts';

const PRICE_KEYS = new Set([
  'price',
  'bid_px',
  'ask_px',
  'min_price_increment',
  'high_limit_price',
  'low_limit_price',
  'display_factor',
  'unit_of_measure_qty',
]);
const TIME_KEYS = new Set(['ts_event', 'ts_recv', 'ts_out', 'start', 'end', 'expiration', 'activation']);
const NS_PER_S = 1_000_000_000n;

/** 1e-9 fixed point -> the decimal number (5129250000000n -> 5129.25). */
export function fixedToDecimal(px: bigint): number {
  const neg = px < 0n;
  const a = neg ? -px : px;
  const frac = (a % NS_PER_S).toString().padStart(9, '0').replace(/0+$/, '');
  return Number(`${neg ? '-' : ''}${a / NS_PER_S}${frac ? `.${frac}` : ''}`);
}

/** ns since the epoch -> 2024-01-02T14:30:00.374063174Z (exact: the nanoseconds are integer digits). */
export function isoNs(ns: bigint): string {
  const s = ns / NS_PER_S;
  const rest = ns % NS_PER_S;
  const whole = new Date(Number(s) * 1000).toISOString().slice(0, 19);
  return `${whole}.${rest.toString().padStart(9, '0')}Z`;
}

/** A decoded record or metadata, its prices and timestamps converted (a new object). */
export function prettyDbn(value: unknown, key = ''): unknown {
  if (typeof value === 'bigint') {
    if (PRICE_KEYS.has(key)) return value === UNDEF_PRICE ? null : fixedToDecimal(value);
    if (TIME_KEYS.has(key)) return value === UNDEF_TIMESTAMP || value < 0n ? null : isoNs(value);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => prettyDbn(v, key));
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, prettyDbn(v, k)]));
  }
  return value;
}
