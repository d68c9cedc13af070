// CME futures contract specs (REFERENCE.md) and month-coded symbol parsing (ESH24, ESH4).

export interface ContractSpec {
  root: string;
  product: string;
  tickSize: number; // price units per tick
  pointValue: number; // USD per 1.0 of price
  tickValue: number; // USD per tick
  typicalLow: number;
  typicalHigh: number;
}

export interface Instrument extends ContractSpec {
  symbol: string; // as configured, e.g. ESH24
  monthCode: string;
  month: number; // 1..12
  year: number; // four digits
}

const spec = (root: string, product: string, tickSize: number, pointValue: number, typicalLow: number, typicalHigh: number): ContractSpec => ({
  root,
  product,
  tickSize,
  pointValue,
  tickValue: Math.round(tickSize * pointValue * 100) / 100,
  typicalLow,
  typicalHigh,
});

export const CONTRACTS: Readonly<Record<string, ContractSpec>> = Object.freeze({
  ES: spec('ES', 'E-mini S&P 500', 0.25, 50, 5000, 6000),
  NQ: spec('NQ', 'E-mini Nasdaq-100', 0.25, 20, 17000, 21000),
  YM: spec('YM', 'E-mini Dow', 1.0, 5, 38000, 44000),
  RTY: spec('RTY', 'E-mini Russell 2000', 0.1, 50, 1900, 2400),
  MES: spec('MES', 'Micro E-mini S&P 500', 0.25, 5, 5000, 6000),
  MNQ: spec('MNQ', 'Micro E-mini Nasdaq-100', 0.25, 2, 17000, 21000),
  CL: spec('CL', 'Crude oil', 0.01, 1000, 60, 90),
  GC: spec('GC', 'Gold', 0.1, 100, 1900, 2700),
});

export const MONTH_CODES = 'FGHJKMNQUVXZ';

export class SymbolError extends Error {}

/** The contract spec of a root such as `ES`; throws SymbolError naming the known roots. */
export function contractForRoot(root: string): ContractSpec {
  const c = Object.prototype.hasOwnProperty.call(CONTRACTS, root) ? CONTRACTS[root] : undefined;
  if (!c) throw new SymbolError(`unknown contract root '${root}' (known: ${Object.keys(CONTRACTS).join(', ')})`);
  return c;
}

/**
 * Parses a month-coded contract symbol: root + month code + 1 or 2 year digits.
 * One-digit years are taken in the decade nearest `referenceYear`.
 */
export function parseSymbol(symbol: string, referenceYear = 2024): Instrument {
  const m = /^([A-Z]{1,3})([FGHJKMNQUVXZ])(\d{1,2})$/.exec(symbol);
  if (!m) {
    throw new SymbolError(`malformed contract symbol '${symbol}': expected root + month code (${MONTH_CODES}) + year, e.g. ESH24 or ESH4`);
  }
  const [, root, monthCode, yy] = m;
  const c = contractForRoot(root);
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
