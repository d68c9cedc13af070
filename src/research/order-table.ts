// The order log (--orders) and the quote/state series (--quotes) as column tables, from the
// session results of the run itself. Times are exact ns since the epoch (UTC; `time` is the same
// instant in ISO 8601 to the millisecond, truncated); prices in index points; latencies in ns.

import { BID, LIQ_MAKER } from '../core/events.ts';
import { sessionNsToUnixNs } from '../market/dbn-time.ts';
import { contractForRoot, ticksToPrice } from '../market/instruments.ts';
import type { AccountSession } from '../backtest/account.ts';
import type { ResolvedRequest } from '../backtest/request.ts';
import { sessionContracts } from '../backtest/session-dates.ts';
import {
  OL_EXCH,
  OL_FEE,
  OL_ID,
  OL_KIND,
  OL_LEAVES,
  OL_LIQ,
  OL_PRICE,
  OL_QTY,
  OL_REASON,
  OL_RECV,
  OL_SENT,
  OL_SIDE,
  OL_STRIDE,
  ORDER_EVENTS,
} from '../backtest/order-log.ts';
import type { Cell, Column, ColumnKind } from './fill-table.ts';

type Req = Pick<ResolvedRequest, 'root' | 'dates' | 'contracts'>;

/**
 * time/time_ns: when the row happened: an order message's arrival at the exchange, a report's
 * receipt by the engine. sent_ns: the engine sent the order message (of a report: the message
 * that caused it). exchange_ns: the message's arrival / the report's event at the exchange.
 * received_ns: the engine received the report (empty for a message). latency_ns: exchange_ns -
 * sent_ns for a message (order entry), received_ns - exchange_ns for a report (its way back).
 * since_sent_ns: received_ns - sent_ns of a report (an ack's round trip; a fill's includes the
 * time the order rested). quantity: a new order's size, a cancel's open quantity, a modify's new
 * total (filled + working), a fill's size.
 */
export const ORDER_COLUMNS: readonly { name: string; kind: ColumnKind }[] = [
  { name: 'time', kind: 'string' },
  { name: 'time_ns', kind: 'timestamp_ns' },
  { name: 'session_date', kind: 'date' },
  { name: 'symbol', kind: 'string' },
  { name: 'event', kind: 'string' },
  { name: 'order_id', kind: 'int64' },
  { name: 'side', kind: 'string' },
  { name: 'price', kind: 'double' },
  { name: 'quantity', kind: 'int64' },
  { name: 'leaves', kind: 'int64' },
  { name: 'sent_ns', kind: 'timestamp_ns' },
  { name: 'exchange_ns', kind: 'timestamp_ns' },
  { name: 'received_ns', kind: 'timestamp_ns' },
  { name: 'latency_ns', kind: 'int64' },
  { name: 'since_sent_ns', kind: 'int64' },
  { name: 'liquidity', kind: 'string' },
  { name: 'fee', kind: 'double' },
  { name: 'reason', kind: 'int64' },
];

/** Our quotes, the mid and our position at each sample (once a second of exchange time). */
export const QUOTE_COLUMNS: readonly { name: string; kind: ColumnKind }[] = [
  { name: 'time', kind: 'string' },
  { name: 'time_ns', kind: 'timestamp_ns' },
  { name: 'session_date', kind: 'date' },
  { name: 'symbol', kind: 'string' },
  { name: 'bid', kind: 'double' },
  { name: 'ask', kind: 'double' },
  { name: 'mid', kind: 'double' },
  { name: 'position', kind: 'int64' },
];

const NS_PER_MS = 1_000_000n;
/** ISO 8601 of an epoch-ns instant, truncated to the millisecond (integer arithmetic). */
const isoMs = (ns: bigint) => new Date(Number(ns / NS_PER_MS)).toISOString();
const int = (x: number): bigint | null => (Number.isNaN(x) ? null : BigInt(x));
const num = (x: number): number | null => (Number.isNaN(x) ? null : x);

function table(spec: readonly { name: string; kind: ColumnKind }[]) {
  const cols: Column[] = spec.map((c) => ({ ...c, values: [] as Cell[] }));
  const put = (...cells: Cell[]) => cells.forEach((v, k) => cols[k].values.push(v));
  return { cols, put };
}

export function orderTable(req: Req, sessions: AccountSession[]): Column[] {
  const tick = contractForRoot(req.root).tickSize;
  const contractOn = sessionContracts(req);
  const { cols, put } = table(ORDER_COLUMNS);
  for (const { result: s } of sessions) {
    const d = s?.orderLog;
    if (!s || !d) continue;
    const symbol = contractOn(s.date);
    const unix = (ns: number) => (Number.isNaN(ns) ? null : sessionNsToUnixNs(s.date, ns));
    for (let o = 0; o < d.length; o += OL_STRIDE) {
      const isReport = !Number.isNaN(d[o + OL_RECV]);
      const at = isReport ? d[o + OL_RECV] : d[o + OL_EXCH];
      const atNs = sessionNsToUnixNs(s.date, at);
      const fill = ORDER_EVENTS[d[o + OL_KIND]] === 'fill';
      put(
        isoMs(atNs),
        atNs,
        s.date,
        symbol,
        ORDER_EVENTS[d[o + OL_KIND]],
        BigInt(d[o + OL_ID]),
        d[o + OL_SIDE] === BID ? 'BUY' : 'SELL',
        ticksToPrice(d[o + OL_PRICE], tick),
        int(d[o + OL_QTY]),
        int(d[o + OL_LEAVES]),
        unix(d[o + OL_SENT]),
        unix(d[o + OL_EXCH]),
        unix(d[o + OL_RECV]),
        BigInt(isReport ? d[o + OL_RECV] - d[o + OL_EXCH] : d[o + OL_EXCH] - d[o + OL_SENT]),
        isReport ? BigInt(d[o + OL_RECV] - d[o + OL_SENT]) : null,
        fill ? (d[o + OL_LIQ] === LIQ_MAKER ? 'maker' : 'taker') : null,
        num(d[o + OL_FEE]),
        int(d[o + OL_REASON]),
      );
    }
  }
  return cols;
}

export function quoteTable(req: Req, sessions: AccountSession[]): Column[] {
  const tick = contractForRoot(req.root).tickSize;
  const contractOn = sessionContracts(req);
  const { cols, put } = table(QUOTE_COLUMNS);
  for (const { result: s } of sessions) {
    const q = s?.quotes;
    const pos = s?.quotePositions;
    if (!s || !q || !pos) continue;
    const symbol = contractOn(s.date);
    for (let i = 0; i < q.times.length; i++) {
      const ns = sessionNsToUnixNs(s.date, q.times[i]);
      put(
        isoMs(ns),
        ns,
        s.date,
        symbol,
        num(ticksToPrice(q.bid[i], tick)),
        num(ticksToPrice(q.ask[i], tick)),
        num(ticksToPrice(q.mid[i], tick)),
        BigInt(pos[i]),
      );
    }
  }
  return cols;
}
