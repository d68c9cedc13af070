// CME futures contract specs and month-coded symbol parsing (ESH24, ESH4).
//
// One definition of a contract: a table shaped like the config's [contracts.<ROOT>] (snake_case,
// docs/instruments.md). The built-in roots below are written in that shape; the config adds or
// replaces roots (useConfiguredContracts, called by the config loader), and recorded data may
// bring its own from DBN definition records (src/market/replay/definitions.ts).
import type { MarketProfile } from './market-profile.ts';

/** Product groups: their holidays, daily close and early closes are modelled (docs/instruments.md). */
export const PRODUCT_GROUPS = ['equity_index', 'energy', 'metals', 'interest_rate', 'currency'] as const;
export type ProductGroup = (typeof PRODUCT_GROUPS)[number];

/** Expiry and roll rules (contract-calendar.ts says each rule and its source). */
export const EXPIRY_RULES = ['equity_quarterly', 'crude_monthly', 'gold', 'treasury_quarterly', 'fx_quarterly'] as const;
export type ExpiryRule = (typeof EXPIRY_RULES)[number];

/** [contracts.<ROOT>.market]: what the synthetic market needs of a root (profiles.ts). */
export interface MarketTable {
  /** The price range: a session opens at a price drawn uniformly from it, or with the continuous path the daily path stays in it (daily-path.ts). */
  price_low: number;
  price_high: number;
  /** Annualised volatility of the efficient price (fraction). */
  annual_vol: number;
  /** Typical size of a best-level queue, contracts. */
  queue: number;
  /** Typical order size, contracts. */
  order_size: number;
}

/** [contracts.<ROOT>]: a contract as the config writes it. */
export interface ContractTable {
  product: string;
  /** Price units per tick. */
  tick_size: number;
  /** USD per 1.0 of price. */
  point_value: number;
  currency: 'USD';
  group: ProductGroup;
  expiry: ExpiryRule;
  /** Regular hours in Chicago time ("HH:MM"); absent: the [simulation] session hours. */
  regular_open?: string;
  regular_close?: string;
  market?: MarketTable;
}

export interface ContractSpec {
  root: string;
  product: string;
  tickSize: number; // price units per tick
  pointValue: number; // USD per 1.0 of price
  tickValue: number; // USD per tick
  currency: 'USD';
  /** Null only for a root known from a definition record alone (no contract calendar). */
  group: ProductGroup | null;
  expiry: ExpiryRule | null;
  /** Regular hours, ns after New York midnight; null: the [simulation] session hours. */
  regularOpenNs: number | null;
  regularCloseNs: number | null;
  /** The synthetic market's profile inputs; null: the root has none (the generator refuses it). */
  market: { annualVol: number; queue: number; orderSize: number } | null;
  /** Opening-price range of the synthetic market (NaN without a market profile). */
  typicalLow: number;
  typicalHigh: number;
  /** Where the spec came from: 'built-in', 'contracts.ZN' (the config) or a definition record. */
  source: string;
  /**
   * A market profile selected by the config ([market] profile, e.g. a calibrated one): the
   * synthetic market's whole profile instead of the one derived from `market` (profiles.ts).
   * Plain numbers, so it travels with the spec to pool workers, generator threads and queue jobs.
   */
  profile?: Readonly<MarketProfile>;
}

export interface Instrument extends ContractSpec {
  symbol: string; // as configured, e.g. ESH24
  monthCode: string;
  month: number; // 1..12
  year: number; // four digits
}

const builtin = (product: string, tick_size: number, point_value: number, group: ProductGroup, expiry: ExpiryRule, market: MarketTable): ContractTable => ({
  product,
  tick_size,
  point_value,
  currency: 'USD',
  group,
  expiry,
  market,
});
const mkt = (price_low: number, price_high: number, annual_vol: number, queue: number, order_size: number): MarketTable => ({
  price_low,
  price_high,
  annual_vol,
  queue,
  order_size,
});

/** The built-in roots (docs/instruments.md), in the [contracts.<ROOT>] shape. */
export const BUILTIN_CONTRACTS: Readonly<Record<string, ContractTable>> = Object.freeze({
  ES: builtin('E-mini S&P 500', 0.25, 50, 'equity_index', 'equity_quarterly', mkt(5000, 6000, 0.145, 320, 9)),
  NQ: builtin('E-mini Nasdaq-100', 0.25, 20, 'equity_index', 'equity_quarterly', mkt(17000, 21000, 0.18, 12, 2)),
  YM: builtin('E-mini Dow', 1.0, 5, 'equity_index', 'equity_quarterly', mkt(38000, 44000, 0.14, 14, 1.5)),
  RTY: builtin('E-mini Russell 2000', 0.1, 50, 'equity_index', 'equity_quarterly', mkt(1900, 2400, 0.2, 25, 2)),
  MES: builtin('Micro E-mini S&P 500', 0.25, 5, 'equity_index', 'equity_quarterly', mkt(5000, 6000, 0.145, 90, 3)),
  MNQ: builtin('Micro E-mini Nasdaq-100', 0.25, 2, 'equity_index', 'equity_quarterly', mkt(17000, 21000, 0.18, 18, 3)),
  CL: builtin('Crude oil', 0.01, 1000, 'energy', 'crude_monthly', mkt(60, 90, 0.32, 30, 3)),
  GC: builtin('Gold', 0.1, 100, 'metals', 'gold', mkt(1900, 2700, 0.15, 15, 2)),
});

/** "HH:MM" Chicago time as ns after New York midnight (Chicago is New York - 1 h all year: both keep US DST). */
export function chicagoClockToNyNs(hhmm: string): number {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) throw new Error(`'${hhmm}' is not a time "HH:MM"`);
  return ((Number(m[1]) + 1) * 60 + Number(m[2])) * 60e9;
}

/** Whole ticks per point, or null when the tick does not divide a point (prices are integer ticks). */
export function ticksPerPoint(tickSize: number): number | null {
  const n = Math.round(1 / tickSize);
  return n >= 1 && Math.abs(n * tickSize - 1) < 1e-9 ? n : null;
}

/** The runtime spec of a contract table. */
export function contractSpec(root: string, t: ContractTable, source: string): ContractSpec {
  const perPoint = ticksPerPoint(t.tick_size);
  if (perPoint === null) throw new Error(`${source}: tick_size ${t.tick_size} does not divide one point into whole ticks`);
  return {
    root,
    product: t.product,
    tickSize: t.tick_size,
    pointValue: t.point_value,
    // Point value over whole ticks per point: exact for every built-in (12.5, 10, 1.25) and for
    // binary fractions such as the 10-Year Note's 1/64 ($15.625), unlike tick_size x point_value.
    tickValue: t.point_value / perPoint,
    currency: t.currency,
    group: t.group,
    expiry: t.expiry,
    regularOpenNs: t.regular_open === undefined ? null : chicagoClockToNyNs(t.regular_open),
    regularCloseNs: t.regular_close === undefined ? null : chicagoClockToNyNs(t.regular_close),
    market: t.market ? { annualVol: t.market.annual_vol, queue: t.market.queue, orderSize: t.market.order_size } : null,
    typicalLow: t.market?.price_low ?? Number.NaN,
    typicalHigh: t.market?.price_high ?? Number.NaN,
    source,
  };
}

/** The built-in specs by root. */
export const CONTRACTS: Readonly<Record<string, ContractSpec>> = Object.freeze(
  Object.fromEntries(Object.entries(BUILTIN_CONTRACTS).map(([root, t]) => [root, contractSpec(root, t, 'built-in')])),
);

let configured: Readonly<Record<string, ContractSpec>> = {};
/** Roots known only from recorded data's definition records (replay/definitions.ts), by root. */
const fromData = new Map<string, ContractSpec>();

/**
 * Makes a root known from a definition record to this thread's lookups (a run's report and
 * merge find its tick size and value by root). The same root with another spec is an error:
 * one process, one spec per root.
 */
export function rememberDataContract(spec: ContractSpec): void {
  const had = fromData.get(spec.root);
  if (had && (had.tickSize !== spec.tickSize || had.tickValue !== spec.tickValue)) {
    throw new Error(
      `${spec.source}: ${spec.root} tick ${spec.tickSize} ($${spec.tickValue}) differs from ${had.source} (tick ${had.tickSize}, ` +
        `$${had.tickValue}); add [contracts.${spec.root}] to say which is right`,
    );
  }
  fromData.set(spec.root, spec);
}

/** Installs the config's [contracts] tables (each call replaces the last). */
export function useConfiguredContracts(tables: Readonly<Record<string, ContractTable>> | undefined): void {
  configured = contractsOf(tables);
}

/** Installs the config's contract specs as config/contracts.ts derives them (the loader calls this). */
export function useConfiguredSpecs(specs: Readonly<Record<string, ContractSpec>>): void {
  configured = specs;
}

/** The specs of a [contracts] section (validated by the config schema). */
export function contractsOf(tables: Readonly<Record<string, ContractTable>> | undefined): Record<string, ContractSpec> {
  return Object.fromEntries(Object.entries(tables ?? {}).map(([root, t]) => [root, contractSpec(root, t, `contracts.${root}`)]));
}

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** The roots known here: the config's, then the built-in ones it does not replace. */
export function knownRoots(table: Readonly<Record<string, ContractSpec>> = configured): string[] {
  const data = table === configured ? [...fromData.keys()] : [];
  return [...new Set([...Object.keys(table), ...Object.keys(CONTRACTS), ...data])];
}

/** A root's contract table: the config's or the built-in one (never a definition record's), or undefined. */
export function tableContract(root: string): ContractSpec | undefined {
  return findContract(root, configured, false);
}

/** The spec of a root, or undefined: a configured root replaces a built-in one of the same name. */
export function findContract(root: string, table: Readonly<Record<string, ContractSpec>> = configured, withData = true): ContractSpec | undefined {
  return own(table, root) ? table[root] : own(CONTRACTS, root) ? CONTRACTS[root] : withData && table === configured ? fromData.get(root) : undefined;
}

export class SymbolError extends Error {}

/** The contract spec of a root such as `ES`; throws SymbolError naming the known roots. */
export function contractForRoot(root: string, table: Readonly<Record<string, ContractSpec>> = configured): ContractSpec {
  const c = findContract(root, table);
  if (!c)
    throw new SymbolError(
      `unknown contract root '${root}' (known: ${knownRoots(table).join(', ')}; add a [contracts.${root}] table to the config for another CME future)`,
    );
  return c;
}

export const MONTH_CODES = 'FGHJKMNQUVXZ';

// A contract root: 1 to 3 capital letters and digits, a letter first or second, as CME's are
// (ES, ZN, 6E, M2K, SR3). A month-coded symbol is a root, a month code and 1 or 2 year digits;
// the year is the trailing digits and the month the letter before them, so 6EH24 and M2KZ4 parse.
const ROOT = '(?:[A-Z][A-Z0-9]{0,2}|[0-9][A-Z][A-Z0-9]?)';
export const ROOT_RE = new RegExp(`^${ROOT}$`);
export const SYMBOL_RE = new RegExp(`^(${ROOT})([${MONTH_CODES}])(\\d{1,2})$`);

/**
 * Parses a month-coded contract symbol: root + month code + 1 or 2 year digits.
 * One-digit years are taken in the decade nearest `referenceYear`.
 */
export function parseSymbol(symbol: string, referenceYear = 2024, table: Readonly<Record<string, ContractSpec>> = configured): Instrument {
  const m = SYMBOL_RE.exec(symbol);
  if (!m) {
    throw new SymbolError(`malformed contract symbol '${symbol}': expected root + month code (${MONTH_CODES}) + year, e.g. ESH24 or ESH4`);
  }
  const [, root, monthCode, yy] = m;
  const c = contractForRoot(root, table);
  let year: number;
  if (yy.length === 2) year = 2000 + Number(yy);
  else {
    const decade = Math.floor(referenceYear / 10) * 10;
    const candidates = [decade - 10, decade, decade + 10].map((d) => d + Number(yy));
    year = candidates.reduce((best, y) => (Math.abs(y - referenceYear) < Math.abs(best - referenceYear) ? y : best));
  }
  return { ...c, symbol, monthCode, month: MONTH_CODES.indexOf(monthCode) + 1, year };
}

/** Converts integer ticks (the engine's prices) to a price for display and export. */
export function ticksToPrice(ticks: number, tickSize: number): number {
  // Divide by the whole number of ticks per point rather than multiply by the tick size: the
  // correctly rounded quotient is the double nearest the decimal price (75.23, not
  // 75.23000000000001), and half ticks stay exact (5160.125). No decimal rounding anywhere.
  return ticks / Math.round(1 / tickSize);
}
