// The sessions of a backtest request: which dates have a session (CME trading days, early
// closes), which contract trades on each (a root: the front month; a month-coded symbol: that
// contract only, up to its last session) and each session's window.

import type { FieldError } from '../wire/error.ts';
import type { ResolvedRequest } from '../wire/backtest-request.ts';
import type { EngineConfig } from '../config/schema.ts';
import {
  CALENDAR_FIRST_YEAR,
  CALENDAR_LAST_YEAR,
  hasSession,
  holidaysBetween,
  inCalendarYears,
  parseClock,
  sessionCloseNs,
  tradingDays,
} from '../market/calendar.ts';
import { contractSymbol, contractWindowEnd, expiryMessage, frontMonth, lastSessionDate } from '../market/contract-calendar.ts';
import { type ContractSpec, contractForRoot, findContract, parseSymbol, type Instrument } from '../market/instruments.ts';

/** A root ("ES": the front month of each date) or one month-coded contract ("ESH24"), or null. */
export function parseRequestSymbol(symbol: string, referenceYear: number): { root: string; contract: Instrument | null } | null {
  if (findContract(symbol)) return { root: symbol, contract: null };
  try {
    const c = parseSymbol(symbol, referenceYear);
    return { root: c.root, contract: c };
  } catch {
    return null;
  }
}

/**
 * A root's session hours, ns after New York midnight: its contract table's regular hours
 * (regular_open/regular_close, Chicago time), else the [simulation] session hours.
 */
export function sessionHours(spec: Pick<ContractSpec, 'regularOpenNs' | 'regularCloseNs'>, config: EngineConfig): { startNs: number; endNs: number } {
  if (spec.regularOpenNs !== null && spec.regularCloseNs !== null) return { startNs: spec.regularOpenNs, endNs: spec.regularCloseNs };
  return { startNs: parseClock(config.simulation.session_start)!, endNs: parseClock(config.simulation.session_end)! };
}

/** The session window of `date` for one contract: its hours, cut by an early close and by the contract's termination. */
function sessionWindow(contract: Instrument, date: string, config: EngineConfig): { startNs: number; endNs: number | null } {
  const hours = sessionHours(contract, config);
  const endNs = sessionCloseNs(date, hours.endNs);
  return { startNs: hours.startNs, endNs: contractWindowEnd(contract, date, hours.startNs, endNs) };
}

/**
 * The trading days of startDate..endDate and the contract traded on each, or the field errors:
 * dates outside the calendar's years, no trading day at all, too many, or (a month-coded
 * symbol) a date where that contract no longer trades.
 */
export function resolveSessions(
  startDate: string,
  endDate: string,
  sym: { root: string; contract: Instrument | null },
  config: EngineConfig,
): { dates: string[]; contracts: string[]; errors: FieldError[] } {
  const none = { dates: [], contracts: [] };
  const maxDays = config.backtest.max_days;
  for (const [field, d] of [
    ['startDate', startDate],
    ['endDate', endDate],
  ] as const) {
    if (!inCalendarYears(d))
      return { ...none, errors: [{ field, message: `${d} is outside the CME calendar's years ${CALENDAR_FIRST_YEAR}-${CALENDAR_LAST_YEAR}` }] };
  }
  if (endDate < startDate) return { ...none, errors: [{ field: 'endDate', message: `endDate ${endDate} is before startDate ${startDate}` }] };
  const hours = sessionHours(sym.contract ?? contractForRoot(sym.root), config);
  const startNs = hours.startNs;
  if (sym.contract) {
    const err = contractError(sym.contract, startDate, endDate, startNs, hours.endNs);
    if (err) return { ...none, errors: [err] };
  }
  // Coarse guard before listing the days one by one: a range this long in calendar days always
  // holds more than max_days trading days.
  const calendarDays = (Date.parse(endDate) - Date.parse(startDate)) / 86_400_000 + 1;
  if (calendarDays > maxDays * 2 + 14) {
    return {
      ...none,
      errors: [{ field: 'endDate', message: `range ${startDate}..${endDate} is longer than the configured maximum of ${maxDays} trading days` }],
    };
  }
  const dates = tradingDays(startDate, endDate, startNs);
  if (dates.length === 0) {
    const early = tradingDays(startDate, endDate);
    const named = holidaysBetween(startDate, endDate).map((h) => `${h.date} ${h.name}`);
    const why = early.length
      ? `${early.join(', ')} close early at 13:00 ET, not after the session's start ${hoursLabel(startNs)}`
      : named.length
        ? `weekends and CME holidays have no session: ${named.join(', ')}`
        : 'weekends have no session';
    const span = startDate === endDate ? `on ${startDate}` : `between ${startDate} and ${endDate}`;
    return { ...none, errors: [{ field: 'endDate', message: `no CME session ${span} (${why})${nearestSessions(startDate, endDate, startNs)}` }] };
  }
  if (dates.length > maxDays) {
    return { ...none, errors: [{ field: 'endDate', message: `range covers ${dates.length} trading days; the configured maximum is ${maxDays}` }] };
  }
  // A month-coded contract trades on all of them (checked above); a root, the front month of each.
  try {
    return { dates, contracts: dates.map((date) => contractSymbol(sym.contract ?? frontMonth(sym.root, date))), errors: [] };
  } catch (e) {
    // The front month's roll date falls outside the calendar's years (late 2035).
    return { ...none, errors: [{ field: 'endDate', message: `no ${sym.root} front month for ${startDate}..${endDate}: ${(e as Error).message}` }] };
  }
}

/** "; the nearest sessions: D1 (before) and D2 (after)", for a range without a session; each looked for up to 30 days away within the calendar's years. */
function nearestSessions(startDate: string, endDate: string, sessionStartNs: number): string {
  const near = (from: string, step: number): string | null => {
    let t = Date.parse(`${from}T00:00:00Z`);
    for (let i = 0; i < 30; i++) {
      t += step * 86_400_000;
      const d = new Date(t).toISOString().slice(0, 10);
      if (!inCalendarYears(d)) return null;
      if (hasSession(d, sessionStartNs)) return d;
    }
    return null;
  };
  const found = [
    [near(startDate, -1), 'before'],
    [near(endDate, 1), 'after'],
  ]
    .filter(([d]) => d !== null)
    .map(([d, w]) => `${d} (${w})`);
  return found.length ? `; the nearest session${found.length === 1 ? '' : 's'}: ${found.join(' and ')}` : '';
}

/** The field error when a month-coded contract has no session on startDate or endDate. */
function contractError(c: Instrument, startDate: string, endDate: string, startNs: number, endNs: number): FieldError | null {
  let last: string;
  try {
    last = lastSessionDate(c, startNs, endNs);
  } catch (e) {
    // Its expiry falls outside the calendar's years (CLF15 expires in 2014, ESZ99 in 2099): the
    // contract is at fault, whatever the dates.
    return { field: 'symbol', message: `cannot place ${contractSymbol(c)} on the calendar: ${(e as Error).message}` };
  }
  const field = startDate > last ? 'startDate' : endDate > last ? 'endDate' : null;
  return field && { field, message: `${expiryMessage(c, startNs, endNs)}, so it has no session on ${field === 'startDate' ? startDate : endDate}` };
}

/** The contract a request trades on each of its dates (as resolveSessions listed them). */
export function sessionContracts(req: Pick<ResolvedRequest, 'dates' | 'contracts'>): (date: string) => string {
  const byDate = new Map(req.dates.map((d, i) => [d, req.contracts[i]]));
  return (date) => {
    const c = byDate.get(date);
    if (c === undefined) throw new Error(`no contract resolved for session ${date}`);
    return c;
  };
}

/** SessionSpec bounds of a resolved date (its window is never empty: resolveSessions checked it). */
export function sessionBounds(contract: Instrument, date: string, config: EngineConfig): { sessionStartNs: number; sessionEndNs: number } {
  const w = sessionWindow(contract, date, config);
  if (w.endNs === null) throw new Error(`${contractSymbol(contract)} has no session on ${date}`);
  return { sessionStartNs: w.startNs, sessionEndNs: w.endNs };
}

const hoursLabel = (ns: number) => `${String(Math.floor(ns / 3600e9)).padStart(2, '0')}:${String(Math.floor((ns % 3600e9) / 60e9)).padStart(2, '0')} ET`;
