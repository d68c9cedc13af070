// Backtest runs for the API: validation, admission by cost, ids, the journal, progress and
// completion events, cancellation, idempotency keys.
//
// Every run gets an id and is journaled (journal/): first as `running`, then `completed` /
// `failed` / `cancelled`. Only an index of the runs is kept in memory; a finished run's record is
// read from disk when asked for. A run whose journal write fails is reported `failed` with
// error code `storage_error` (never a silent success).
//
// Sessions run on the Piscina pool, never on the main thread. Admission counts sessions (trading
// days): beyond `[backtest] max_queued_sessions` running or queued, submit() answers `busy` with
// the queue's estimated drain time (admission.ts).

import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { Piscina } from 'piscina';
import type pino from 'pino';
import type { BacktestResult, BacktestRun } from '../wire/backtest-run.ts';
import type { EngineConfig } from '../config/schema.ts';
import { Admission } from './admission.ts';
import { requestHash, replayable } from './journal/idempotency.ts';
import { Journal, type StorageHealth } from './journal/journal.ts';
import { boundedError, type BacktestIndexEntry, type BacktestRecord } from './journal/record.ts';
import type { Page } from './journal/run-index.ts';
import { RecordTooLargeError } from './journal/store.ts';
import { validateBacktestRequest, type FieldError, type ResolvedRequest } from '../backtest/request.ts';
import { warnDataQuality } from '../market/replay/quality.ts';
import { createBacktestPool, runBacktest, type RunOptions, type SessionExecutor } from '../backtest/run.ts';

export type { BacktestIndexEntry, BacktestRecord } from './journal/record.ts';
export type { StorageHealth } from './journal/journal.ts';

/** The API shape: run metadata plus every result field at the top level. */
export type BacktestRunView = BacktestRun;

export type BacktestEvent = { type: 'progress'; id: string; symbol: string; progress: number } | { type: 'complete'; run: BacktestRunView };

export type SubmitOutcome =
  | { kind: 'invalid'; errors: FieldError[] }
  | { kind: 'busy'; retryAfterS: number; message: string }
  | { kind: 'closed' }
  /** The Idempotency-Key names a run of another request. */
  | { kind: 'key_mismatch'; id: string }
  /**
   * `stored` settles once the run's first record is written: null when it is on disk (the run may
   * be acknowledged), else what the journal said (the run has failed with storage_error).
   */
  | { kind: 'accepted'; id: string; done: Promise<BacktestRecord>; stored: Promise<string | null> }
  /** The Idempotency-Key named this run of the same request: no new run; `done` is null if its file is gone. */
  | { kind: 'replayed'; id: string; done: Promise<BacktestRecord | null> };

export type Runner = (req: ResolvedRequest, config: EngineConfig, opts: RunOptions) => Promise<{ result: BacktestResult }>;

export interface BacktestServiceOptions {
  config: EngineConfig;
  logger: pino.Logger;
  /** Journal root (default config.data_dir); files go to `<dataDir>/backtests`. */
  dataDir?: string;
  /** Pool threads (default config.backtest.pool_size, 0 = available CPUs). */
  poolSize?: number;
  /** A pool to use instead of creating one (the service still destroys it on close). */
  pool?: Piscina;
  /** Sessions admitted at once, running or queued (default config.backtest.max_queued_sessions). */
  maxQueuedSessions?: number;
  /** Equity curve points kept in results (default 500). */
  maxCurvePoints?: number;
  /** Minimum interval between progress events of one run (ms, default 250). */
  progressIntervalMs?: number;
  /** Replaces runBacktest (tests). */
  runner?: Runner;
  /** Where sessions run instead of the pool (QUEUE_URL: BullMQ workers, src/jobs). */
  executor?: SessionExecutor;
}

export interface ServiceObserver {
  onFinished?(status: 'completed' | 'failed' | 'cancelled', seconds: number): void;
  onRejected?(reason: 'busy' | 'invalid'): void;
  onRunning?(n: number, queuedSessions: number): void;
  onJournalWriteFailed?(): void;
  /** Corrupt records moved to quarantine (the count found at start is reported when attached). */
  onQuarantined?(n: number): void;
  onJournalSize?(runs: number, bytes: number): void;
  onRetentionDeleted?(n: number): void;
}

const JOURNAL_DIR = 'backtests';
const DAY_MS = 86_400_000;

interface Active {
  record: BacktestRecord;
  abort: AbortController;
  t0: bigint;
  done?: Promise<BacktestRecord>;
}

/**
 * Keeps at most `max` points of an equity curve: the first and last sample and, per bucket, the
 * lowest and highest equity in time order (so peaks and troughs, hence the drawdown, survive).
 */
export function downsampleCurve<T extends { t: number; equity: number }>(curve: T[], max = 500): T[] {
  max = Math.max(4, Math.floor(max));
  if (curve.length <= max) return curve.slice();
  const inner = curve.length - 2;
  const buckets = Math.floor((max - 2) / 2);
  const out: T[] = [curve[0]];
  for (let b = 0; b < buckets; b++) {
    const lo = 1 + Math.floor((b * inner) / buckets);
    const hi = 1 + Math.floor(((b + 1) * inner) / buckets); // exclusive
    if (hi <= lo) continue;
    let iMin = lo,
      iMax = lo;
    for (let i = lo + 1; i < hi; i++) {
      if (curve[i].equity < curve[iMin].equity) iMin = i;
      if (curve[i].equity > curve[iMax].equity) iMax = i;
    }
    if (iMin === iMax) out.push(curve[iMin]);
    else if (iMin < iMax) out.push(curve[iMin], curve[iMax]);
    else out.push(curve[iMax], curve[iMin]);
  }
  out.push(curve[curve.length - 1]);
  return out;
}

/** The API view of a record: metadata + flattened result (optionally without the equity curve). */
export function toApi(r: BacktestRecord, withCurve = true): BacktestRunView {
  const { result, idempotency: _key, ...meta } = r;
  if (!result) return { ...meta };
  if (withCurve) return { ...meta, ...result };
  const { equity_curve: _curve, ...rest } = result;
  return { ...meta, ...rest };
}

/** The list view of an index entry (the idempotency key is remembered, not served). */
export function toListItem(e: BacktestIndexEntry) {
  const { idempotency: _key, ...item } = e;
  return item;
}

/** The error of a run the journal could not store. */
function storageFailure(e: unknown): { code: string; message: string } {
  const tooLarge = e instanceof RecordTooLargeError;
  return boundedError(
    tooLarge ? 'record_too_large' : 'storage_error',
    `the backtest journal could not store the run: ${e instanceof Error ? e.message : String(e)}`,
  );
}

export class BacktestService {
  readonly journalDir: string;
  readonly poolSize: number;
  readonly admission: Admission;
  private journal: Journal | null = null;
  private readonly active = new Map<string, Active>();
  private readonly listeners = new Set<(ev: BacktestEvent) => void>();
  private readonly log: pino.Logger;
  private pool: Piscina | null;
  private seq = 0;
  private closed = false;
  /** Sessions reserved by reserve(). */
  private reserved = 0;
  private observerHooks: ServiceObserver = {};

  constructor(private readonly o: BacktestServiceOptions) {
    this.log = o.logger.child({ component: 'backtests' });
    this.journalDir = resolve(o.dataDir ?? o.config.data_dir, JOURNAL_DIR);
    this.poolSize = Math.max(1, o.poolSize ?? (o.config.backtest.pool_size || availableParallelism()));
    this.admission = new Admission({
      maxSessions: Math.max(1, o.maxQueuedSessions ?? o.config.backtest.max_queued_sessions),
      poolThreads: this.poolSize,
      defaultSessionSeconds: o.config.backtest.session_seconds_estimate,
    });
    this.pool = o.pool ?? null;
  }

  /** Creates the service and opens the journal. */
  static async open(o: BacktestServiceOptions): Promise<BacktestService> {
    const s = new BacktestService(o);
    await s.load();
    return s;
  }

  /** Opens the journal (once). */
  async load(): Promise<void> {
    if (this.journal) return;
    const st = this.o.config.storage;
    this.journal = await Journal.open({
      dir: this.journalDir,
      limits: { maxRuns: st.max_runs, maxBytes: st.max_bytes, maxAgeMs: st.max_age_days * DAY_MS },
      maxRecordBytes: st.max_record_bytes,
      idempotencyTtlMs: st.idempotency_ttl_hours * 3_600_000,
      logger: this.log,
    });
    this.observer = this.observerHooks;
  }

  /** Metric hooks; attaching reports what the journal found at start. */
  get observer(): ServiceObserver {
    return this.observerHooks;
  }

  set observer(o: ServiceObserver) {
    this.observerHooks = o;
    const j = this.journal;
    if (!j) return;
    j.observer = {
      onWriteFailed: () => o.onJournalWriteFailed?.(),
      onQuarantined: () => o.onQuarantined?.(1),
      onDeleted: (n) => o.onRetentionDeleted?.(n),
      onSize: (runs, bytes) => o.onJournalSize?.(runs, bytes),
    };
    const h = j.health();
    if (h.quarantined) o.onQuarantined?.(h.quarantined);
    o.onJournalSize?.(h.runs, h.bytes);
  }

  private get j(): Journal {
    if (!this.journal) throw new Error('BacktestService: load() first');
    return this.journal;
  }

  get running(): number {
    return this.active.size;
  }

  /**
   * Admits `sessions` of other work on the pool (recomputing a run's research artifacts), counted
   * with the runs' until the returned release is called; null when admission refuses it.
   */
  reserve(sessions: number): (() => void) | null {
    if (this.closed || !this.admission.admits(this.queuedSessions, sessions)) return null;
    this.reserved += sessions;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reserved -= sessions;
    };
  }

  /** Sessions of the admitted runs (running or queued on the pool) and reservations: what admission bounds. */
  get queuedSessions(): number {
    let n = this.reserved;
    for (const a of this.active.values()) n += a.record.resolved.dates.length;
    return n;
  }

  /** Sessions not yet done of the admitted runs (progress counts): what Retry-After drains. */
  get remainingSessions(): number {
    let n = this.reserved;
    for (const a of this.active.values()) n += a.record.resolved.dates.length * (1 - a.record.progress);
    return n;
  }

  get maxQueuedSessions(): number {
    return this.admission.o.maxSessions;
  }

  /**
   * Validates and admits a run. The returned `done` settles when it finishes (never rejects).
   * With an Idempotency-Key that names a run of the same request, that run is returned instead.
   */
  submit(body: unknown, idempotencyKey: string | null = null): SubmitOutcome {
    if (this.closed) return { kind: 'closed' };
    const v = validateBacktestRequest(body, this.o.config);
    if (!v.ok) {
      this.observer.onRejected?.('invalid');
      return { kind: 'invalid', errors: v.errors };
    }
    const req = v.request;
    req.symbol = req.symbol.trim().toUpperCase();
    const hash = requestHash(req);
    if (idempotencyKey !== null) {
      const prior = this.j.findKey(idempotencyKey);
      if (prior && prior.idempotency?.request_hash !== hash) return { kind: 'key_mismatch', id: prior.id };
      if (prior && replayable(prior)) {
        return { kind: 'replayed', id: prior.id, done: this.whenDone(prior.id) ?? this.read(prior.id) };
      }
    }
    const sessions = req.dates.length;
    const queued = this.queuedSessions;
    if (!this.admission.admits(queued, sessions)) {
      this.observer.onRejected?.('busy');
      const retryAfterS = this.admission.retryAfterSeconds(this.remainingSessions);
      return {
        kind: 'busy',
        retryAfterS,
        message:
          `this request has ${sessions} session(s) and ${queued} are running or queued: together over [backtest] max_queued_sessions = ` +
          `${this.maxQueuedSessions} ` +
          `for a pool of ${this.poolSize} thread(s); the queue drains in about ${retryAfterS} s`,
      };
    }
    const now = new Date();
    const id = this.newId(now);
    const record: BacktestRecord = {
      id,
      status: 'running',
      resolved: req,
      started_at: now.toISOString(),
      finished_at: null,
      duration_ms: null,
      progress: 0,
      error: null,
      result: null,
      idempotency: idempotencyKey === null ? null : { key: idempotencyKey, request_hash: hash },
    };
    this.j.track(record);
    const active: Active = { record, abort: new AbortController(), t0: process.hrtime.bigint() };
    this.active.set(id, active);
    this.observer.onRunning?.(this.active.size, this.queuedSessions);
    this.log.info({ id, symbol: req.symbol, start: req.startDate, end: req.endDate, sessions, seed: req.seed }, 'backtest started');
    const firstWrite = this.j.save(record).then(
      () => null,
      (e: unknown) => e,
    );
    const done = this.execute(active, firstWrite);
    active.done = done;
    const stored = firstWrite.then((e) => (e === null ? null : storageFailure(e).message));
    return { kind: 'accepted', id, done, stored };
  }

  /** Runs an admitted run; `firstWrite` is its first journal write (null once on disk, else the error). */
  private async execute(a: Active, firstWrite: Promise<unknown>): Promise<BacktestRecord> {
    const running = a.record;
    let outcome: Partial<BacktestRecord> = {};
    const interval = this.o.progressIntervalMs ?? 250;
    let lastEmit = 0;
    const run = this.o.runner ?? runBacktest;
    const writeError = await firstWrite;
    const stored = writeError === null;
    if (!stored) this.fail(running, writeError);
    if (stored) {
      try {
        // Cancelled before it started (e.g. while its first journal write was pending).
        if (a.abort.signal.aborted) throw a.abort.signal.reason;
        const pool = this.o.executor ? null : this.ensurePool();
        const { result } = await run(running.resolved, this.o.config, {
          pool,
          executor: this.o.executor,
          signal: a.abort.signal,
          onProgress: (f) => {
            running.progress = Math.min(1, Math.max(0, f));
            const now = Date.now();
            if (now - lastEmit >= interval || f >= 1) {
              lastEmit = now;
              this.emit({ type: 'progress', id: running.id, symbol: running.resolved.symbol, progress: running.progress });
            }
          },
        });
        if (a.abort.signal.aborted) throw a.abort.signal.reason ?? new Error('cancelled');
        outcome = { status: 'completed', progress: 1, result: { ...result, equity_curve: downsampleCurve(result.equity_curve, this.o.maxCurvePoints ?? 500) } };
      } catch (e) {
        if (a.abort.signal.aborted) {
          const why = a.abort.signal.reason;
          outcome = { status: 'cancelled', error: boundedError('cancelled', why instanceof Error ? why.message : String(why ?? 'cancelled')) };
        } else {
          outcome = { status: 'failed', error: boundedError('backtest_failed', e instanceof Error ? e.message : String(e)) };
          this.log.error({ id: a.record.id, err: e }, 'backtest failed');
        }
      }
    }
    const ns = Number(process.hrtime.bigint() - a.t0);
    // The finished record is a copy: readers see the run as running until it is journaled and counted.
    const rec: BacktestRecord = { ...a.record, ...outcome, finished_at: new Date().toISOString(), duration_ms: ns / 1e6 };
    if (stored) {
      try {
        await this.j.save(rec);
      } catch (e) {
        this.fail(rec, e);
        // A record too large for the journal still fits once its result is dropped.
        if (e instanceof RecordTooLargeError) await this.j.save(rec).catch(() => {});
        else this.j.remember(rec);
      }
    } else this.j.remember(rec);
    this.active.delete(rec.id);
    this.observer.onRunning?.(this.active.size, this.queuedSessions);
    if (rec.status === 'completed') this.admission.record(ns / 1e9, rec.resolved.dates.length);
    this.observer.onFinished?.(rec.status as 'completed' | 'failed' | 'cancelled', ns / 1e9);
    this.log.info({ id: rec.id, status: rec.status, duration_ms: rec.duration_ms, total_pnl: rec.result?.total_pnl }, 'backtest finished');
    if (rec.result?.session_results) warnDataQuality((o, m) => this.log.warn(o, m), rec.result.session_results, { id: rec.id });
    this.emit({ type: 'complete', run: toApi(rec, false) });
    return rec;
  }

  /** Marks a run failed because the journal could not store it. */
  private fail(rec: BacktestRecord, e: unknown): void {
    rec.status = 'failed';
    rec.result = null;
    rec.error = storageFailure(e);
  }

  /** Cancels a running run. Returns false when it is not running. */
  cancel(id: string, reason = 'cancelled by request'): boolean {
    const a = this.active.get(id);
    if (!a) return false;
    a.abort.abort(new Error(reason));
    return true;
  }

  /** Settles when a running run ends; null when it is not running. */
  whenDone(id: string): Promise<BacktestRecord> | null {
    return this.active.get(id)?.done ?? null;
  }

  /** The index entry of a run, or null. */
  entry(id: string): BacktestIndexEntry | null {
    return this.j.index.get(id) ?? null;
  }

  /** A run's whole record: from memory while it runs, else from disk; null when unknown. */
  async read(id: string): Promise<BacktestRecord | null> {
    const a = this.active.get(id);
    if (a) return a.record;
    return this.j.read(id);
  }

  /** One page of the index, newest first. Throws a RangeError on a cursor this server did not issue. */
  list(limit: number, cursor: string | null = null): Page {
    return this.j.page(limit, cursor);
  }

  get total(): number {
    return this.j.index.size;
  }

  storageHealth(): StorageHealth {
    return this.j.health();
  }

  subscribe(listener: (ev: BacktestEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Cancels every running run (journaled as cancelled), waits for them, destroys the pool. */
  async close(reason = 'server shutting down', graceMs = 3000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const pending = [...this.active.values()];
    for (const a of pending) a.abort.abort(new Error(reason));
    // Each run settles once its aborted tasks reject (Piscina terminates a running task's
    // thread); its journal write follows. A runner that ignores the signal is cut off by
    // destroying the pool after `graceMs`.
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
    await Promise.race([Promise.all(pending.map((a) => a.done)), grace]);
    const pool = this.pool;
    this.pool = null;
    if (pool) await pool.destroy();
    await Promise.race([Promise.all(pending.map((a) => a.done)), grace]);
    clearTimeout(timer);
    await this.journal?.flush();
  }

  /** The executor sessions run on instead of the pool (QUEUE_URL), if any. */
  get executor(): SessionExecutor | undefined {
    return this.o.executor;
  }

  /** The pool, created on first use (sweeps share it: src/sweep/service.ts). */
  ensurePool(): Piscina {
    if (!this.pool) this.pool = createBacktestPool(this.poolSize);
    return this.pool;
  }

  private emit(ev: BacktestEvent): void {
    for (const l of this.listeners) {
      try {
        l(ev);
      } catch (e) {
        this.log.error({ err: e }, 'backtest event listener failed');
      }
    }
  }

  private newId(d: Date): string {
    const stamp = d.toISOString().replace(/[-:.]/g, ''); // 20240102T093000123Z
    this.seq = (this.seq + 1) % 36 ** 4;
    return `bt_${stamp}_${this.seq.toString(36).padStart(4, '0')}_${randomBytes(3).toString('hex')}`;
  }
}
