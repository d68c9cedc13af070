// The per-fill export as columns: one definition shared by the CSV, the Parquet file and the
// HTML report. Today's nine columns keep their names and order; the new ones follow them.
// Units: price and mid in index points, fee and the realized P&L in USD, markouts in ticks per
// contract, signed in our favour: side x (mid(t+h) - price), as in the result's markouts.
// realized_pnl_gross: what the quantity this fill closed made on price (0 for a fill that only
// opens); realized_pnl_net = realized_pnl_gross - fee, this fill's own fee. Summed over the
// fills they give the result's realized_pnl_gross, fees and realized_pnl_net (docs/metrics.md).

import { BID, LIQ_MAKER } from '../core/events.ts';
import { sessionNsToUnixNs } from '../market/dbn-time.ts';
import { contractForRoot, ticksToPrice } from '../market/instruments.ts';
import type { AccountSession } from '../backtest/account.ts';
import type { ResolvedRequest } from '../backtest/request.ts';
import { sessionContracts } from '../backtest/session-dates.ts';
import { MARKOUT_LABELS } from '../portfolio/markouts.ts';
import type { FillField } from '../portfolio/fill-log.ts';

/**
 * string: text; int64: whole numbers (bigint, exact to 2^63); double: float64 or null (not
 * measured); timestamp_ns: ns since the epoch, UTC (bigint; in CSV the integer, in Parquet a
 * nanosecond timestamp); date: YYYY-MM-DD (in Parquet a DATE).
 */
export type ColumnKind = 'string' | 'int64' | 'double' | 'timestamp_ns' | 'date';
export type Cell = string | bigint | number | null;
export interface Column {
  name: string;
  kind: ColumnKind;
  values: Cell[];
}

export const FILL_COLUMNS: readonly { name: string; kind: ColumnKind }[] = [
  { name: 'time', kind: 'string' },
  { name: 'session_date', kind: 'date' },
  { name: 'symbol', kind: 'string' },
  { name: 'side', kind: 'string' },
  { name: 'price', kind: 'double' },
  { name: 'quantity', kind: 'int64' },
  { name: 'liquidity', kind: 'string' },
  { name: 'fee', kind: 'double' },
  { name: 'order_id', kind: 'int64' },
  { name: 'time_ns', kind: 'timestamp_ns' },
  { name: 'position_after', kind: 'int64' },
  { name: 'realized_pnl_gross', kind: 'double' },
  { name: 'realized_pnl_net', kind: 'double' },
  { name: 'mid', kind: 'double' },
  ...MARKOUT_LABELS.map((l) => ({ name: `markout_${l}`, kind: 'double' as const })),
];

const MARKOUT_FIELDS = MARKOUT_LABELS.map((l) => `markout${l}` as FillField);
const orNull = (x: number) => (Number.isNaN(x) ? null : x);

/** `symbol` is the contract traded in each session (ESM24), not the root or symbol requested. */
export function fillTable(req: Pick<ResolvedRequest, 'root' | 'dates' | 'contracts'>, sessions: AccountSession[]): Column[] {
  const tick = contractForRoot(req.root).tickSize;
  const contractOn = sessionContracts(req);
  const cols = FILL_COLUMNS.map((c) => ({ ...c, values: [] as Cell[] }));
  const put = (...cells: Cell[]) => cells.forEach((v, k) => cols[k].values.push(v));
  for (const { result: s } of sessions) {
    const c = s?.fillColumns;
    if (!s || !c) continue;
    const symbol = contractOn(s.date);
    for (let i = 0; i < c.exchTs.length; i++) {
      const ns = sessionNsToUnixNs(s.date, c.exchTs[i]);
      put(
        isoOfUnixNs(ns),
        s.date,
        symbol,
        c.side[i] === BID ? 'BUY' : 'SELL',
        ticksToPrice(c.price[i], tick),
        BigInt(c.qty[i]),
        c.liq[i] === LIQ_MAKER ? 'maker' : 'taker',
        c.fee[i],
        BigInt(c.orderId[i]),
        ns,
        BigInt(c.position[i]),
        c.realized[i],
        c.realized[i] - c.fee[i],
        orNull(ticksToPrice(c.mid[i], tick)),
        ...MARKOUT_FIELDS.map((f) => orNull(c[f][i])),
      );
    }
  }
  return cols;
}

/** `time`: time_ns truncated to the millisecond, in integers (a float sum of ms and ns/1e6 can round up into the next ms). */
export function isoOfUnixNs(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n)).toISOString();
}

/** The run's equity curve, every sample (session open, each simulated minute, session end). */
export function equityTable(curve: readonly { t: number; equity: number }[]): Column[] {
  return [
    { name: 'time', kind: 'string', values: curve.map((p) => new Date(p.t).toISOString()) },
    // In BigInt: epoch ms x 1e6 passes 2^53, where a float64 product would round.
    { name: 'time_ns', kind: 'timestamp_ns', values: curve.map((p) => BigInt(p.t) * 1_000_000n) },
    { name: 'equity', kind: 'double', values: curve.map((p) => p.equity) },
  ];
}

/**
 * CSV with a header row. Numbers are written in JavaScript's shortest round-trip form, so
 * parsing them gives back the exact float64; a null (not measured) is an empty field.
 */
export function toCsv(cols: Column[]): string {
  return csvHeader(cols) + csvRows(cols);
}

export function csvHeader(cols: readonly { name: string }[]): string {
  return cols.map((c) => c.name).join(',') + '\n';
}

/** The CSV's rows without the header (a file streamed in parts: header once, then each part's rows). */
export function csvRows(cols: Column[]): string {
  const n = cols[0]?.values.length ?? 0;
  let out = '';
  for (let i = 0; i < n; i++) out += cols.map((c) => (c.values[i] === null ? '' : String(c.values[i]))).join(',') + '\n';
  return out;
}
