// Backtest runs for the API: validation, admission (pool capacity), ids, a journal on disk,
// progress and completion events, cancellation.
//
// Every run gets an id and a journal file `<data_dir>/backtests/<id>.json` (written atomically:
// temp file + rename), first as `running`, then `completed` / `failed` / `cancelled`. The journal
// is read back when the service opens, so runs survive a restart; a run still marked `running`
// at that point was cut short by the previous process and becomes `interrupted`.
//
// Sessions run on the Piscina pool, never on the main thread. Admission: at most
// `maxConcurrentRuns` runs (default: pool size + pool size queued); beyond that submit() answers
// `busy` with a retry hint, so a burst of requests cannot pile up unbounded work.

import { ensureWritableDir } from '../core/writable-dir.ts';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { Piscina } from 'piscina';
import type pino from 'pino';
import type { EngineConfig } from '../config/schema.ts';
import { BACKTEST_STATUSES, type BacktestResult, type BacktestRun, type BacktestStatus } from '../api/backtest-run.ts';
import { validateBacktestRequest, type FieldError, type ResolvedRequest } from './request.ts';
import { createBacktestPool, runBacktest, type RunOptions } from './run.ts';

/** One run as journaled and as served by the API (result fields flattened in by toApi()). */
export interface BacktestRecord {
  id: string;
  status: BacktestStatus;
  /** The request body as posted. */
  request: unknown;
  /** The request with every default filled in. */
  resolved: ResolvedRequest;
  started_at: string; // ISO 8601
  finished_at: string | null;
  duration_ms: number | null;
  progress: number; // 0..1
  error: { code: string; message: string } | null;
  /** Set when completed; the equity curve is downsampled to at most `maxCurvePoints`. */
  result: BacktestResult | null;
}

/** The API shape: run metadata plus every result field at the top level. */
export type BacktestRunView = BacktestRun;

export type BacktestEvent =
  | { type: 'progress'; id: string; symbol: string; progress: number }
  | { type: 'complete'; run: BacktestRunView };

export type SubmitOutcome =
  | { kind: 'invalid'; errors: FieldError[] }
  | { kind: 'busy'; retryAfterS: number; message: string }
  | { kind: 'closed' }
  | { kind: 'accepted'; id: string; done: Promise<BacktestRecord> };

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
  /** Runs admitted at once, running or queued (default 2 x pool size). */
  maxConcurrentRuns?: number;
  /** Equity curve points kept in results (default 500). */
  maxCurvePoints?: number;
  /** Minimum interval between progress events of one run (ms, default 250). */
  progressIntervalMs?: number;
  /** Replaces runBacktest (tests). */
  runner?: Runner;
}

export interface ServiceObserver {
  onFinished?(status: 'completed' | 'failed' | 'cancelled', seconds: number): void;
  onRejected?(reason: 'busy' | 'invalid'): void;
  onRunning?(n: number): void;
}

const JOURNAL_DIR = 'backtests';
const ID_RE = /^bt_[0-9]{8}T[0-9]{9}Z_[0-9a-z]{4}_[0-9a-f]{6}$/;

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
    let iMin = lo, iMax = lo;
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
  const { result, ...meta } = r;
  if (!result) return { ...meta };
  if (withCurve) return { ...meta, ...result };
  const { equity_curve: _curve, ...rest } = result;
  return { ...meta, ...rest };
}

function isRecord(x: unknown): x is BacktestRecord {
  if (x === null || typeof x !== 'object') return false;
  const r = x as Record<string, unknown>;
  return typeof r.id === 'string' && ID_RE.test(r.id) && typeof r.status === 'string' && (BACKTEST_STATUSES as readonly string[]).includes(r.status) && typeof r.started_at === 'string';
}

export class BacktestService {
  readonly journalDir: string;
  readonly poolSize: number;
  readonly maxConcurrentRuns: number;
  private readonly records = new Map<string, BacktestRecord>();
  private readonly active = new Map<string, Active>();
  private readonly listeners = new Set<(ev: BacktestEvent) => void>();
  private readonly writes = new Map<string, Promise<void>>();
  private readonly recentSeconds: number[] = [];
  private readonly log: pino.Logger;
  private pool: Piscina | null;
  private seq = 0;
  private closed = false;
  private opened = false;
  observer: ServiceObserver = {};

  constructor(private readonly o: BacktestServiceOptions) {
    this.log = o.logger.child({ component: 'backtests' });
    this.journalDir = resolve(o.dataDir ?? o.config.data_dir, JOURNAL_DIR);
    this.poolSize = Math.max(1, o.poolSize ?? (o.config.backtest.pool_size || availableParallelism()));
    this.maxConcurrentRuns = Math.max(1, o.maxConcurrentRuns ?? this.poolSize * 2);
    this.pool = o.pool ?? null;
  }

  /** Creates the service and loads the journal. */
  static async open(o: BacktestServiceOptions): Promise<BacktestService> {
    const s = new BacktestService(o);
    await s.load();
    return s;
  }

  /** Reads the journal; runs left `running` by a previous process become `interrupted`. */
  async load(): Promise<void> {
    if (this.opened) return;
    this.opened = true;
    await ensureWritableDir(this.journalDir);
    const files = (await readdir(this.journalDir)).filter((f) => f.endsWith('.json'));
    const loaded: BacktestRecord[] = [];
    for (const f of files) {
      let rec: unknown;
      try {
        rec = JSON.parse(await readFile(join(this.journalDir, f), 'utf8'));
      } catch (e) {
        this.log.warn({ file: f, err: e }, 'skipping unreadable backtest journal file');
        continue;
      }
      if (!isRecord(rec) || `${rec.id}.json` !== f) {
        this.log.warn({ file: f }, 'skipping backtest journal file that is not a run record');
        continue;
      }
      if (rec.status === 'running') {
        rec.status = 'interrupted';
        rec.error = { code: 'interrupted', message: 'the engine stopped while this run was in progress' };
        await this.persist(rec);
        this.log.warn({ id: rec.id }, 'backtest run was interrupted by a restart');
      }
      loaded.push(rec);
    }
    loaded.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const r of loaded) this.records.set(r.id, r);
    this.log.info({ runs: loaded.length, dir: this.journalDir }, 'backtest journal loaded');
  }

  get running(): number {
    return this.active.size;
  }

  /** Validates and admits a run. The returned `done` settles when it finishes (never rejects). */
  submit(body: unknown): SubmitOutcome {
    if (this.closed) return { kind: 'closed' };
    const v = validateBacktestRequest(body, this.o.config);
    if (!v.ok) {
      this.observer.onRejected?.('invalid');
      return { kind: 'invalid', errors: v.errors };
    }
    if (this.active.size >= this.maxConcurrentRuns) {
      this.observer.onRejected?.('busy');
      return {
        kind: 'busy',
        retryAfterS: this.retryAfterSeconds(),
        message: `${this.active.size} backtests are running or queued, the maximum for a pool of ${this.poolSize} thread(s); retry later`,
      };
    }
    const req = v.request;
    req.symbol = req.symbol.trim().toUpperCase();
    const now = new Date();
    const id = this.newId(now);
    const record: BacktestRecord = {
      id,
      status: 'running',
      request: body,
      resolved: req,
      started_at: now.toISOString(),
      finished_at: null,
      duration_ms: null,
      progress: 0,
      error: null,
      result: null,
    };
    this.records.set(id, record);
    const active: Active = { record, abort: new AbortController(), t0: process.hrtime.bigint() };
    this.active.set(id, active);
    this.observer.onRunning?.(this.active.size);
    this.log.info({ id, symbol: req.symbol, start: req.startDate, end: req.endDate, sessions: req.dates.length, seed: req.seed }, 'backtest started');
    const done = this.execute(active);
    active.done = done;
    return { kind: 'accepted', id, done };
  }

  private async execute(a: Active): Promise<BacktestRecord> {
    const rec = a.record;
    await this.persist(rec);
    const interval = this.o.progressIntervalMs ?? 250;
    let lastEmit = 0;
    const run = this.o.runner ?? runBacktest;
    try {
      const pool = this.ensurePool();
      const { result } = await run(rec.resolved, this.o.config, {
        pool,
        signal: a.abort.signal,
        onProgress: (f) => {
          rec.progress = Math.min(1, Math.max(0, f));
          const now = Date.now();
          if (now - lastEmit >= interval || f >= 1) {
            lastEmit = now;
            this.emit({ type: 'progress', id: rec.id, symbol: rec.resolved.symbol, progress: rec.progress });
          }
        },
      });
      if (a.abort.signal.aborted) throw a.abort.signal.reason ?? new Error('cancelled');
      rec.result = { ...result, equity_curve: downsampleCurve(result.equity_curve, this.o.maxCurvePoints ?? 500) };
      rec.status = 'completed';
      rec.progress = 1;
    } catch (e) {
      if (a.abort.signal.aborted) {
        rec.status = 'cancelled';
        const why = a.abort.signal.reason;
        rec.error = { code: 'cancelled', message: why instanceof Error ? why.message : String(why ?? 'cancelled') };
      } else {
        rec.status = 'failed';
        rec.error = { code: 'backtest_failed', message: e instanceof Error ? e.message : String(e) };
        this.log.error({ id: rec.id, err: e }, 'backtest failed');
      }
    }
    const ns = Number(process.hrtime.bigint() - a.t0);
    rec.finished_at = new Date().toISOString();
    rec.duration_ms = Math.round(ns / 1e6);
    this.active.delete(rec.id);
    this.observer.onRunning?.(this.active.size);
    if (rec.status === 'completed') {
      this.recentSeconds.push(ns / 1e9);
      if (this.recentSeconds.length > 20) this.recentSeconds.shift();
    }
    this.observer.onFinished?.(rec.status as 'completed' | 'failed' | 'cancelled', ns / 1e9);
    await this.persist(rec);
    this.log.info({ id: rec.id, status: rec.status, duration_ms: rec.duration_ms, total_pnl: rec.result?.total_pnl }, 'backtest finished');
    this.emit({ type: 'complete', run: toApi(rec, false) });
    return rec;
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

  get(id: string): BacktestRecord | null {
    return this.records.get(id) ?? null;
  }

  /** Runs, newest first. */
  list(limit = Infinity): BacktestRecord[] {
    const out: BacktestRecord[] = [];
    const all = [...this.records.values()];
    for (let i = all.length - 1; i >= 0 && out.length < limit; i--) out.push(all[i]);
    return out;
  }

  get total(): number {
    return this.records.size;
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
    await Promise.all(this.writes.values());
  }

  private ensurePool(): Piscina {
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

  private retryAfterSeconds(): number {
    const r = this.recentSeconds;
    if (r.length === 0) return 5;
    const avg = r.reduce((a, b) => a + b, 0) / r.length;
    return Math.min(300, Math.max(1, Math.ceil(avg)));
  }

  private newId(d: Date): string {
    const stamp = d.toISOString().replace(/[-:.]/g, ''); // 20240102T093000123Z
    this.seq = (this.seq + 1) % 36 ** 4;
    return `bt_${stamp}_${this.seq.toString(36).padStart(4, '0')}_${randomBytes(3).toString('hex')}`;
  }

  /** Writes a record atomically; writes of one record are serialized in call order. */
  private persist(rec: BacktestRecord): Promise<void> {
    const file = join(this.journalDir, `${rec.id}.json`);
    const text = JSON.stringify(rec);
    const prev = this.writes.get(rec.id) ?? Promise.resolve();
    const next = prev
      .then(async () => {
        const tmp = `${file}.${process.pid}.tmp`;
        await writeFile(tmp, text);
        await rename(tmp, file);
      })
      .catch((e) => this.log.error({ id: rec.id, err: e }, 'could not write the backtest journal'));
    this.writes.set(rec.id, next);
    void next.then(() => {
      if (this.writes.get(rec.id) === next) this.writes.delete(rec.id);
    });
    return next;
  }
}
