// The --fills CSV: one row per fill, enough to recompute the run's P&L: for each session,
// sum of -signed(price x quantity) x $/point - fees + final position x final mid x $/point.

import { sessionNsToEpochMs } from '../market/calendar.ts';
import { contractForRoot, ticksToPrice } from '../market/instruments.ts';
import { BID, LIQ_MAKER } from '../core/events.ts';
import type { AccountSession } from './account.ts';
import type { ResolvedRequest } from './request.ts';
import { sessionContracts } from './session-dates.ts';

export const FILLS_CSV_HEADER = 'time,session_date,symbol,side,price,quantity,liquidity,fee,order_id';

/** `symbol` is the contract traded in each session (ESM24), not the root or symbol requested. */
export function fillsCsv(req: Pick<ResolvedRequest, 'root' | 'dates' | 'contracts'>, sessions: AccountSession[]): string {
  const spec = contractForRoot(req.root);
  const contractOn = sessionContracts(req);
  const lines = [FILLS_CSV_HEADER];
  for (const { result: s } of sessions) {
    const c = s?.fillColumns;
    if (!s || !c) continue;
    const symbol = contractOn(s.date);
    for (let i = 0; i < c.exchTs.length; i++) {
      const t = new Date(sessionNsToEpochMs(s.date, c.exchTs[i])).toISOString();
      lines.push(
        [
          t,
          s.date,
          symbol,
          c.side[i] === BID ? 'BUY' : 'SELL',
          ticksToPrice(c.price[i], spec.tickSize),
          c.qty[i],
          c.liq[i] === LIQ_MAKER ? 'maker' : 'taker',
          c.fee[i],
          c.orderId[i],
        ].join(','),
      );
    }
  }
  return lines.join('\n') + '\n';
}
