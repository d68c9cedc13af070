// Contract months, last trading days and the front-month roll, on the CME calendar (calendar.ts).
// Rules from the CME Group contract specifications ("Termination of Trading"):
// - ES NQ YM RTY MES MNQ (quarterly H M U Z): trading terminates at 09:30 ET on the 3rd Friday of
//   the contract month (the preceding trading day when that Friday is a holiday). The expiring
//   contract therefore has no regular session (09:30-16:00) on its last trading day.
// - CL (every month): trading terminates 3 business days before the 25th calendar day of the
//   month before the contract month; 4 business days before it when the 25th is not a business
//   day. Termination at 14:30 ET (the close of the settlement period).
// - GC (active months G J M Q V Z): trading terminates at 12:30 CT = 13:30 ET on the third-last
//   business day of the contract month.
// - 10-Year T-Note and the other Treasury futures (rule treasury_quarterly, months H M U Z):
//   trading terminates at 12:01 CT = 13:01 ET on the seventh business day preceding the last
//   business day of the contract month (CME Group, 10-Year T-Note Futures contract specs).
// - Euro FX and the other currency futures (rule fx_quarterly, months H M U Z): trading
//   terminates at 9:16 CT = 10:16 ET on the second business day before the third Wednesday of
//   the contract month (CME Group, Euro FX Futures contract specs).
// Each root names its rule in its contract table (`expiry`, instruments.ts).
// Roll rule of a root (the front month on a session date), stated so runs can be checked:
// - equity index: the Thursday 8 calendar days before the last trading day, CME's published
//   roll date (from then on, the next quarterly contract);
// - CL: on its last trading day (the front is the nearest contract still trading after it);
// - GC: on the first notice day, the last business day of the month before the contract month
//   (no one trades a deliverable gold contract into the notice period);
// - Treasuries: on the first intention day, two business days before the first business day of
//   the contract month (the first day a short may declare delivery; CME's Treasury delivery
//   calendar), when liquidity has moved to the next contract;
// - currencies: five trading days before the last trading day (a convention of ours, not CME's:
//   volume moves to the next quarter in the week before expiry).

import { addTradingDays, formatDate, hasSession, isTradingDay, sessionCloseNs } from './calendar.ts';
import { contractForRoot, type ExpiryRule, type Instrument, MONTH_CODES, parseSymbol } from './instruments.ts';

type Contract = Pick<Instrument, 'root' | 'month' | 'year'> & { expiry?: ExpiryRule | null };

const LISTED_MONTHS: Readonly<Record<ExpiryRule, string>> = {
  equity_quarterly: 'HMUZ',
  crude_monthly: MONTH_CODES,
  gold: 'GJMQVZ',
  treasury_quarterly: 'HMUZ',
  fx_quarterly: 'HMUZ',
};
/** When trading terminates on the last trading day, ns after New York midnight. */
const TERMINATION_NS: Readonly<Record<ExpiryRule, number>> = {
  equity_quarterly: 9.5 * 3600e9,
  crude_monthly: 14.5 * 3600e9,
  gold: 13.5 * 3600e9,
  treasury_quarterly: (13 * 60 + 1) * 60e9,
  fx_quarterly: (10 * 60 + 16) * 60e9,
};
const TERMINATION_LABEL: Readonly<Record<ExpiryRule, string>> = {
  equity_quarterly: '09:30 ET',
  crude_monthly: '14:30 ET',
  gold: '13:30 ET',
  treasury_quarterly: '13:01 ET',
  fx_quarterly: '10:16 ET',
};

const ymd = (y: number, m: number, d: number) => formatDate(new Date(Date.UTC(y, m - 1, d)));

/** The contract's expiry rule: its own (a parsed Instrument carries it), else its root's. */
function ruleOf(c: Contract): ExpiryRule {
  const rule = c.expiry ?? contractForRoot(c.root).expiry;
  if (rule === null) throw new Error(`${c.root} has no expiry rule (known from recorded data only): add [contracts.${c.root}] with expiry to the config`);
  return rule;
}

/** The contract's canonical symbol: root + month code + two-digit year (ESH24). */
export function contractSymbol(c: Contract): string {
  return `${c.root}${MONTH_CODES[c.month - 1]}${String(c.year % 100).padStart(2, '0')}`;
}

/** The contract's last trading day, YYYY-MM-DD. */
export function lastTradingDay(c: Contract): string {
  const { month: m, year: y } = c;
  switch (ruleOf(c)) {
    case 'equity_quarterly': {
      const firstWd = new Date(Date.UTC(y, m - 1, 1)).getUTCDay();
      const third = ymd(y, m, 1 + ((5 - firstWd + 7) % 7) + 14);
      return isTradingDay(third) ? third : addTradingDays(third, -1);
    }
    case 'crude_monthly': {
      const d25 = ymd(m === 1 ? y - 1 : y, m === 1 ? 12 : m - 1, 25);
      return addTradingDays(d25, isTradingDay(d25) ? -3 : -4);
    }
    case 'gold': {
      const afterMonth = ymd(m === 12 ? y + 1 : y, m === 12 ? 1 : m + 1, 1);
      return addTradingDays(afterMonth, -3);
    }
    case 'treasury_quarterly': {
      const lastBusinessDay = addTradingDays(ymd(m === 12 ? y + 1 : y, m === 12 ? 1 : m + 1, 1), -1);
      return addTradingDays(lastBusinessDay, -7);
    }
    case 'fx_quarterly': {
      const firstWd = new Date(Date.UTC(y, m - 1, 1)).getUTCDay();
      const thirdWednesday = ymd(y, m, 1 + ((3 - firstWd + 7) % 7) + 14);
      return addTradingDays(thirdWednesday, -2);
    }
  }
}

/** From this date on, a root no longer trades the contract: the next contract is the front month. */
export function rollDate(c: Contract): string {
  const ltd = lastTradingDay(c);
  switch (ruleOf(c)) {
    case 'equity_quarterly':
      return formatDate(new Date(Date.parse(`${ltd}T00:00:00Z`) - 8 * 86_400_000));
    case 'crude_monthly':
      return ltd;
    case 'gold':
      return addTradingDays(ymd(c.year, c.month, 1), -1);
    case 'treasury_quarterly': {
      const first = ymd(c.year, c.month, 1);
      return addTradingDays(isTradingDay(first) ? first : addTradingDays(first, 1), -2);
    }
    case 'fx_quarterly':
      return addTradingDays(ltd, -5);
  }
}

/**
 * Where the contract's session on `date` ends, within the day's window [startNs, endNs): on its
 * last trading day at the termination time. Null when the contract does not trade in the
 * window: after its last trading day, or when trading terminates at or before startNs.
 */
export function contractWindowEnd(c: Contract, date: string, startNs: number, endNs: number): number | null {
  const ltd = lastTradingDay(c);
  if (date > ltd) return null;
  const end = date === ltd ? Math.min(endNs, TERMINATION_NS[ruleOf(c)]) : endNs;
  return end > startNs ? end : null;
}

/** The last date the contract has a session in the configured hours (on or before its last trading day). */
export function lastSessionDate(c: Contract, sessionStartNs: number, sessionEndNs: number): string {
  let d = lastTradingDay(c);
  while (!hasSession(d, sessionStartNs) || contractWindowEnd(c, d, sessionStartNs, sessionCloseNs(d, sessionEndNs)) === null) d = addTradingDays(d, -1);
  return d;
}

/** Until when a contract trades, for an error about a date past its last session. */
export function expiryMessage(c: Contract, sessionStartNs: number, sessionEndNs: number): string {
  const f = ruleOf(c);
  const last = lastSessionDate(c, sessionStartNs, sessionEndNs);
  return (
    `${contractSymbol(c)} trades until its last trading day ${lastTradingDay(c)} (trading terminates at ${TERMINATION_LABEL[f]}; its ` +
    `last session is ${last})`
  );
}

/** The front-month contract of a root on a session date (see the roll rule above). */
export function frontMonth(root: string, date: string): Instrument {
  const months = LISTED_MONTHS[ruleOf({ root, month: 1, year: 2000 })];
  let y = Number(date.slice(0, 4));
  let m = Number(date.slice(5, 7));
  for (let i = 0; i < 24; i++) {
    if (months.includes(MONTH_CODES[m - 1])) {
      const c = { root, month: m, year: y };
      if (date < rollDate(c)) return parseSymbol(contractSymbol(c));
    }
    if (++m > 12) {
      m = 1;
      y++;
    }
  }
  throw new Error(`no ${root} contract found after ${date}`);
}
