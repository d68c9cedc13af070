// One journaled run: the full record and the small index entry kept in memory for it.
//
// On disk a run is `<id>.jsonl`, two JSON lines: the index entry, then the whole record. Start-up
// reads only the first line of each file (a few hundred bytes), so 10,000 runs load without
// parsing their results; GET /api/backtests/{id} reads the second line on demand.

import { BACKTEST_STATUSES, type BacktestListItem, type BacktestResult, type BacktestStatus } from '../../wire/backtest-run.ts';
import type { ResolvedRequest } from '../../backtest/request.ts';

/** What the list serves, plus the run's idempotency key (remembered, never listed). */
export type BacktestIndexEntry = BacktestListItem & { idempotency: BacktestRecord['idempotency'] };

/** One run as journaled: the validated request (never the raw body), its state and its result. */
export interface BacktestRecord {
  id: string;
  status: BacktestStatus;
  /** The request with every default filled in (the only form of the request that is stored). */
  resolved: ResolvedRequest;
  started_at: string; // ISO 8601
  finished_at: string | null;
  duration_ms: number | null;
  progress: number; // 0..1
  error: { code: string; message: string } | null;
  /** Set when completed; the equity curve is downsampled to at most `maxCurvePoints`. */
  result: BacktestResult | null;
  /** The client's Idempotency-Key and the hash of the resolved request it was sent with. */
  idempotency: { key: string; request_hash: string } | null;
}

export const RECORD_EXT = '.jsonl';
export const ID_RE = /^bt_[0-9]{8}T[0-9]{9}Z_[0-9a-z]{4}_[0-9a-f]{6}$/;
/** Error messages are cut to this many characters, so a cancelled run's record stays small. */
export const MAX_ERROR_CHARS = 500;
/** The index line is read with one read of this many bytes at start. */
export const MAX_HEADER_BYTES = 4096;

export function boundedError(code: string, message: string): { code: string; message: string } {
  return { code, message: message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS - 1)}…` : message };
}

/** The index entry of a record; `bytes` is the size of its file (0 before the first write). */
export function indexEntry(r: BacktestRecord, bytes: number): BacktestIndexEntry {
  const q = r.resolved;
  return {
    id: r.id,
    status: r.status,
    started_at: r.started_at,
    finished_at: r.finished_at,
    duration_ms: r.duration_ms,
    symbol: q.symbol,
    start_date: q.startDate,
    end_date: q.endDate,
    sessions: q.dates.length,
    seed: q.seed,
    use_ml: q.useML,
    data_source: q.data_source,
    // Records from before the strategy port carry none: those runs were the built-in's.
    strategy: (q.strategy as ResolvedRequest['strategy'] | undefined)?.name ?? 'market_maker',
    total_pnl: r.result?.total_pnl ?? null,
    sharpe_ratio: r.result?.sharpe_ratio ?? null,
    max_drawdown_pct: r.result?.max_drawdown_pct ?? null,
    // A result journaled before the kill switch existed (or a test runner's partial one) has none.
    kill_switch_tripped: r.result ? (r.result.kill_switch?.tripped ?? null) : null,
    error: r.error,
    bytes,
    idempotency: r.idempotency,
  };
}

/** The file's text: index line and record line. The entry's `bytes` is the text's own size. */
export function serializeRecord(r: BacktestRecord): { text: string; entry: BacktestIndexEntry } {
  const body = JSON.stringify(r);
  // The size appears in the header it measures: iterate until the digit count settles (twice at most).
  let bytes = 0;
  for (;;) {
    const head = JSON.stringify(indexEntry(r, bytes));
    const total = Buffer.byteLength(head) + 1 + Buffer.byteLength(body) + 1;
    if (total === bytes) return { text: `${head}\n${body}\n`, entry: indexEntry(r, bytes) };
    bytes = total;
  }
}

const isObj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
const isStatus = (x: unknown): x is BacktestStatus => typeof x === 'string' && (BACKTEST_STATUSES as readonly string[]).includes(x);

/** The index line of a file, or null when it is not one (a corrupt file). */
export function parseIndexLine(line: string, id: string): BacktestIndexEntry | null {
  let x: unknown;
  try {
    x = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObj(x) || x.id !== id || !isStatus(x.status) || typeof x.started_at !== 'string' || typeof x.symbol !== 'string') return null;
  if (typeof x.sessions !== 'number' || typeof x.bytes !== 'number') return null;
  if (x.data_source === undefined) x.data_source = 'synthetic'; // journaled before recorded data existed
  return x as unknown as BacktestIndexEntry;
}

/** The record line of a file, or null when it is not one. */
export function parseRecordLine(line: string, id: string): BacktestRecord | null {
  let x: unknown;
  try {
    x = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObj(x) || x.id !== id || !isStatus(x.status) || !isObj(x.resolved) || typeof x.started_at !== 'string') return null;
  return x as unknown as BacktestRecord;
}
