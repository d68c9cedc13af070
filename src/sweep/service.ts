// Sweeps over HTTP: POST validates every point and admits the sweep by its cost (grid points x
// sessions) against [sweep] max_queued_sessions; the sweep runs on the backtest pool (shared
// with single runs) and reports progress to subscribers (the SSE stream). Each sweep is
// journaled in <data_dir>/sweeps (journal.ts: bounded like the backtest journal) when it starts
// and when it ends. An Idempotency-Key names one sweep as it names one backtest.

import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Piscina } from 'piscina';
import type pino from 'pino';
import type { FieldError } from '../wire/error.ts';
import { type SweepRequest, sweepRequestSchema, type SweepRun } from '../wire/sweep.ts';
import { Admission } from '../backtest-service/admission.ts';
import { replayable, requestHash } from '../backtest-service/journal/idempotency.ts';
import type { Page } from '../backtest-service/journal/run-index.ts';
import type { StorageHealth } from '../backtest-service/journal/journal.ts';
import type { SessionExecutor } from '../backtest/run.ts';
import type { EngineConfig } from '../config/schema.ts';
import { gridAxes } from './grid.ts';
import { type Idempotency, type SweepIndexEntry, SweepJournal, SWEEP_ID_RE } from './journal.ts';
import { executeSweep, prepareSweep, type PreparedSweep, sweepSessions } from './sweep.ts';

export type SweepEvent = { id: string; progress: number; status: SweepRun['status'] };

export type SweepSubmit =
  | { kind: 'invalid'; errors: FieldError[] }
  | { kind: 'busy'; retryAfterS: number; message: string }
  | { kind: 'closed' }
  /** The Idempotency-Key names a sweep of another request. */
  | { kind: 'key_mismatch'; id: string }
  /** The Idempotency-Key names a sweep of this request: that one, no new sweep. */
  | { kind: 'replayed'; run: SweepRun }
  | { kind: 'accepted'; run: SweepRun; done: Promise<SweepRun> }
  /** Its first journal write failed (a full disk, ...): nothing was started. */
  | { kind: 'storage_error'; message: string };

export interface SweepServiceOptions {
  config: EngineConfig;
  logger: pino.Logger;
  /** The pool sessions run on (the backtest service's). */
  pool: () => Piscina;
  poolThreads: number;
  /** Where sessions run instead of the pool (QUEUE_URL: BullMQ workers). */
  executor?: SessionExecutor;
  /** Journal root (default config.data_dir); files go to `<dataDir>/sweeps`. */
  dataDir?: string;
  /** Minimum interval between progress events of one sweep (ms, default 250). */
  progressIntervalMs?: number;
}

interface Active {
  run: SweepRun;
  abort: AbortController;
  done: Promise<SweepRun>;
  t0: bigint;
  idempotency: Idempotency;
}

export class SweepService {
  readonly dir: string;
  private readonly admission: Admission;
  private readonly active = new Map<string, Active>();
  private readonly listeners = new Set<(ev: SweepEvent) => void>();
  private readonly log: pino.Logger;
  private seq = 0;
  private closed = false;
  private readonly journal: SweepJournal;

  constructor(private readonly o: SweepServiceOptions) {
    this.log = o.logger.child({ component: 'sweeps' });
    this.dir = resolve(o.dataDir ?? o.config.data_dir, 'sweeps');
    const st = o.config.storage;
    this.journal = new SweepJournal({
      dir: this.dir,
      limits: { maxRuns: o.config.sweep.max_kept, maxBytes: st.max_bytes, maxAgeMs: st.max_age_days * 86_400_000 },
      maxRecordBytes: st.max_record_bytes,
      idempotencyTtlMs: st.idempotency_ttl_hours * 3_600_000,
      logger: this.log,
    });
    this.admission = new Admission({
      maxSessions: o.config.sweep.max_queued_sessions,
      poolThreads: o.poolThreads,
      defaultSessionSeconds: o.config.backtest.session_seconds_estimate,
    });
  }

  private get queuedSessions(): number {
    let n = 0;
    for (const a of this.active.values()) n += Math.ceil(a.run.sessions * (1 - a.run.progress));
    return n;
  }

  /** The journal, loaded on first use; a directory that cannot be used fails each write instead (storage_error). */
  private get j(): SweepJournal {
    try {
      this.journal.open();
    } catch (e) {
      this.log.error({ err: e, dir: this.dir }, 'could not load the sweep journal');
    }
    return this.journal;
  }

  submit(body: unknown, idempotencyKey: string | null = null): SweepSubmit {
    if (this.closed) return { kind: 'closed' };
    const parsed = sweepRequestSchema.safeParse(body);
    if (!parsed.success) {
      // An unknown field is named (one error each), like the backtest request's.
      const errors = parsed.error.issues.flatMap((i) =>
        i.code === 'unrecognized_keys'
          ? i.keys.map((k) => ({ field: [...i.path, k].join('.'), message: `unknown field (known: ${Object.keys(sweepRequestSchema.shape).join(', ')})` }))
          : [{ field: i.path.join('.') || '(body)', message: `expected ${i.message}` }],
      );
      return { kind: 'invalid', errors };
    }
    const req = parsed.data;
    const hash = requestHash(req);
    if (idempotencyKey !== null) {
      const prior = this.j.findKey(idempotencyKey);
      if (prior && prior.idempotency?.request_hash !== hash) return { kind: 'key_mismatch', id: prior.id };
      const run = prior && replayable(prior) ? this.get(prior.id) : null;
      if (run) return { kind: 'replayed', run };
    }
    const sentGrid = (body as { grid: object }).grid; // an object: the schema checked it
    const axes = gridAxes(req.grid, Object.keys(sentGrid));
    if (!axes.ok) return { kind: 'invalid', errors: axes.errors };
    const points = axes.value.reduce((n, a) => n * a.values.length, 1);
    const max = this.o.config.sweep.max_points;
    if (points > max) return { kind: 'invalid', errors: [{ field: 'grid', message: `${points} grid points, more than [sweep] max_points = ${max}` }] };
    const { grid: _grid, holdoutDays, ...base } = req;
    const prepared = prepareSweep({ base, axes: axes.value, naming: 'name', holdoutDays }, this.o.config);
    if (!prepared.ok) return { kind: 'invalid', errors: prepared.errors.map((e) => (e.field in req.grid ? { ...e, field: `grid.${e.field}` } : e)) };
    const sessions = sweepSessions(prepared.sweep);
    const bound = this.o.config.sweep.max_queued_sessions;
    // Larger than the whole bound: it would never be admitted, so it is not a "retry later".
    if (sessions > bound)
      return {
        kind: 'invalid',
        errors: [
          { field: 'grid', message: `this sweep costs ${sessions} sessions (${points} points x sessions), more than [sweep] max_queued_sessions = ${bound}` },
        ],
      };
    const queued = this.queuedSessions;
    if (!this.admission.admits(queued, sessions)) {
      const retryAfterS = this.admission.retryAfterSeconds(queued);
      return {
        kind: 'busy',
        retryAfterS,
        message:
          `this sweep costs ${sessions} sessions (${points} points) and ${queued} are running or queued: together over [sweep] ` +
          `max_queued_sessions = ${this.o.config.sweep.max_queued_sessions}; retry in about ${retryAfterS} s`,
      };
    }
    const now = new Date();
    const run: SweepRun = {
      id: this.newId(now),
      status: 'running',
      request: req,
      points,
      sessions,
      progress: 0,
      started_at: now.toISOString(),
      finished_at: null,
      error: null,
      result: null,
    };
    const idempotency = idempotencyKey === null ? null : { key: idempotencyKey, request_hash: hash };
    const active = { run, abort: new AbortController(), t0: process.hrtime.bigint(), idempotency } as Active;
    // On disk before it is acknowledged (the write is synchronous and fsynced): a sweep the
    // journal cannot hold is refused, never a 202 whose Location 404s.
    try {
      this.save(active);
    } catch (e) {
      return {
        kind: 'storage_error',
        message: `sweep ${run.id} was not started: the sweep journal could not store it: ${e instanceof Error ? e.message : String(e)}`,
      };
    }
    this.active.set(run.id, active);
    active.done = this.execute(active, prepared.sweep);
    return { kind: 'accepted', run, done: active.done };
  }

  private async execute(a: Active, prepared: PreparedSweep): Promise<SweepRun> {
    const run = a.run;
    const interval = this.o.progressIntervalMs ?? 250;
    let last = 0;
    this.log.info({ id: run.id, points: run.points, sessions: run.sessions }, 'sweep started');
    try {
      run.result = await executeSweep(prepared, {
        pool: this.o.executor ? null : this.o.pool(),
        executor: this.o.executor,
        concurrency: this.o.poolThreads,
        signal: a.abort.signal,
        onProgress: (f) => {
          run.progress = Math.min(1, Math.max(0, f));
          const now = Date.now();
          if (now - last >= interval) {
            last = now;
            this.emit({ id: run.id, progress: run.progress, status: 'running' });
          }
        },
      });
      run.status = 'completed';
      run.progress = 1;
    } catch (e) {
      run.result = null;
      if (a.abort.signal.aborted) {
        run.status = 'cancelled';
        run.error = { code: 'cancelled', message: String((a.abort.signal.reason as Error)?.message ?? a.abort.signal.reason).slice(0, 500) };
      } else {
        run.status = 'failed';
        run.error = { code: 'sweep_failed', message: (e instanceof Error ? e.message : String(e)).slice(0, 500) };
        this.log.error({ id: run.id, err: e }, 'sweep failed');
      }
    }
    run.finished_at = new Date().toISOString();
    try {
      this.save(a);
    } catch (e) {
      run.status = 'failed';
      run.result = null;
      run.error = {
        code: 'storage_error',
        message: `the sweep journal could not store the sweep: ${e instanceof Error ? e.message : String(e)}`.slice(0, 500),
      };
      try {
        this.save(a);
      } catch {
        // The in-memory record still answers GET until the engine stops.
      }
    }
    const seconds = Number(process.hrtime.bigint() - a.t0) / 1e9;
    if (run.status === 'completed') this.admission.record(seconds, run.sessions);
    this.active.delete(run.id);
    this.log.info({ id: run.id, status: run.status, seconds }, 'sweep finished');
    this.emit({ id: run.id, progress: run.progress, status: run.status });
    return run;
  }

  /** The sweep: from memory while running, else its journal file; null when unknown. */
  get(id: string): SweepRun | null {
    const a = this.active.get(id);
    if (a) return a.run;
    if (!SWEEP_ID_RE.test(id)) return null;
    const rec = this.j.read(id);
    if (!rec) return null;
    const { idempotency: _key, ...run } = rec;
    return run;
  }

  /** A page of the journal's sweeps, newest first; throws RangeError on a cursor it did not issue. */
  list(limit: number, cursor: string | null): Page<SweepIndexEntry> {
    const page = this.j.page(limit, cursor);
    // A running sweep's entry was written when it started; its progress is here.
    return { ...page, entries: page.entries.map((e) => (this.active.has(e.id) ? { ...e, progress: this.active.get(e.id)!.run.progress } : e)) };
  }

  /** The sweep journal's health (write failures, size), for /health. */
  storageHealth(): StorageHealth {
    return this.j.health();
  }

  /** Sweeps in the journal. */
  get total(): number {
    return this.j.index.size;
  }

  cancel(id: string, reason = 'cancelled by request'): boolean {
    const a = this.active.get(id);
    if (!a) return false;
    a.abort.abort(new Error(reason));
    return true;
  }

  whenDone(id: string): Promise<SweepRun> | null {
    return this.active.get(id)?.done ?? null;
  }

  subscribe(listener: (ev: SweepEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Cancels every running sweep and waits for them (before the pool is destroyed). */
  async close(reason = 'server shutting down'): Promise<void> {
    this.closed = true;
    const pending = [...this.active.values()];
    for (const a of pending) a.abort.abort(new Error(reason));
    await Promise.allSettled(pending.map((a) => a.done));
  }

  private save(a: Active): void {
    this.j.save({ ...a.run, idempotency: a.idempotency });
  }

  private emit(ev: SweepEvent): void {
    for (const l of this.listeners) {
      try {
        l(ev);
      } catch (e) {
        this.log.error({ err: e }, 'sweep event listener failed');
      }
    }
  }

  private newId(d: Date): string {
    const stamp = d.toISOString().replace(/[-:.]/g, '');
    this.seq = (this.seq + 1) % 36 ** 4;
    return `sw_${stamp}_${this.seq.toString(36).padStart(4, '0')}_${randomBytes(3).toString('hex')}`;
  }
}

export type { SweepRequest };
