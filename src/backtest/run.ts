// Runs a backtest: one session per business day, each a task on the Piscina pool (in parallel,
// one per worker), chained into one account (account.ts) and merged into one result. With no
// pool (tests, a one-off), sessions run inline, one after another. Where they run is a port
// (SessionExecutor): the pool, inline, or a BullMQ queue of worker processes (src/jobs).

import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { EngineConfig } from '../config/schema.ts';
import { workerPath } from '../core/paths.ts';
import { feeScheduleView } from '../exchange/fees.ts';
import { type AccountSession, runAccount, type SessionRunner } from './account.ts';
import { mergeSessions, type BacktestResult } from './merge.ts';
import { requestModel, sessionSpecs, type ResolvedRequest } from './request.ts';
import type { Predictor } from '../ml/inference/predictor.ts';
import { runSession } from './session.ts';
import type { SessionResult, SessionSpec } from './session-spec.ts';

export interface BacktestTask {
  spec: SessionSpec;
  port?: MessagePort;
}

/**
 * Where sessions run, a port: the Piscina pool of this process (poolExecutor), inline (no pool),
 * or a queue of other processes (src/jobs). Every executor runs the same SessionSpec (plain data,
 * seed and model included) through runSession, so the account and the merge see the same results.
 */
export interface SessionExecutor {
  run(spec: SessionSpec, signal: AbortSignal | undefined, onProgress: (fraction: number, events: number) => void): Promise<SessionResult>;
  /** Start every session at once (speculative carry, account.ts) rather than one after another. */
  readonly parallel: boolean;
  /** Sessions it runs at once in this process; undefined: they run elsewhere (a queue's workers). */
  readonly threads?: number;
  /** The state of where sessions run, for /health (a queue's; the local pool has none). */
  health?(): ExecutorHealth;
}

/** /health's `queue` (src/jobs/executor.ts). */
export interface ExecutorHealth {
  status: 'ok' | 'unreachable';
  url: string;
  in_flight: number;
  requeued_jobs: number;
  failed_sessions: number;
  data_lost: number;
  unreachable_s: number | null;
  last_error: string | null;
}

export function poolExecutor(pool: Piscina): SessionExecutor {
  return {
    parallel: true,
    threads: pool.maxThreads,
    async run(spec, signal, onProgress) {
      const ch = new MessageChannel();
      ch.port1.on('message', ([f, n]: [number, number]) => onProgress(f, n));
      try {
        const task: BacktestTask = { spec, port: ch.port2 };
        return (await pool.run(task, { transferList: [ch.port2] as never, signal })) as SessionResult;
      } finally {
        ch.port1.close();
      }
    },
  };
}

function inlineExecutor(predictor: Predictor | null | undefined): SessionExecutor {
  return { parallel: false, threads: 1, run: async (spec, _signal, onProgress) => runSession(spec, { onProgress, predictor }) };
}

export interface RunOptions {
  pool?: Piscina | null;
  /** Where the sessions run; default: the pool, else inline. */
  executor?: SessionExecutor;
  collectFills?: boolean;
  /** Also record the order log (--orders) and our position at each quote sample (--quotes; implies collectFills). */
  record?: { orders?: boolean; quotes?: boolean };
  /** Fraction of the whole run done, 0..1, with sessions finished and events processed so far. */
  onProgress?: (fraction: number, run?: RunProgress) => void;
  signal?: AbortSignal;
  /** Each session once its result is final, in date order (see runAccount). */
  onSession?: (s: AccountSession) => void;
  /** Run the sessions strictly one after another on the pool (the reference for the parallel run). */
  sequential?: boolean;
  /** Inline runs only: this predictor instead of the request's model (signal comparisons). */
  predictor?: Predictor | null;
  /** false: the generator always on the session's thread (the bench's pool scaling); default: when a core is free. */
  generatorThread?: boolean;
  /** false: a session the kill switch kept from trading does not run its market (no open_mid/close_mid; a sweep's points need none). */
  untradedMarkets?: boolean;
}

export interface RunProgress {
  sessionsDone: number;
  sessionsTotal: number;
  events: number;
}

export interface BacktestRun {
  result: BacktestResult;
  sessions: AccountSession[];
}

/** Sessions of every run of this process now running or waiting for a pool thread. */
let sessionsRunning = 0;
const cores = availableParallelism();

/**
 * The synthetic generator costs more per event than the rest of the session (docs/performance-archive.md,
 * "Round twenty"), so a session whose run leaves a core free gets it in a thread of its own: a
 * run of one session at a time (`atOnce`), with no more sessions in this process than half the
 * cores. With more at once the cores are busy anyway, and the copy between the threads would
 * cost more than it gives. The events, and so the results, are the same.
 */
function withGeneratorThread(spec: SessionSpec, atOnce: number): SessionSpec {
  if (spec.replay || atOnce * 2 > cores || sessionsRunning * 2 > cores) return spec;
  return { ...spec, generatorThread: true };
}

export function createBacktestPool(size: number): Piscina {
  const threads = Math.max(1, size);
  return new Piscina({ filename: workerPath('backtest'), minThreads: 1, maxThreads: threads, idleTimeout: 30_000 });
}

export async function runBacktest(req: ResolvedRequest, config: EngineConfig, opts: RunOptions = {}): Promise<BacktestRun> {
  // The model (useML) is loaded once per run, here in the calling thread, and travels to every
  // session inside its spec; each session builds its own predictor from it.
  const rec = opts.record;
  const recording = rec?.orders || rec?.quotes ? { record: { orders: rec.orders === true, quotePositions: rec.quotes === true } } : null;
  const planned = sessionSpecs(req, config, (opts.collectFills ?? false) || rec?.quotes === true, requestModel(req, config));
  const specs = recording ? planned.map((s) => ({ ...s, ...recording })) : planned;
  const progress = specs.map(() => 0);
  const events = specs.map(() => 0);
  const report = (i: number, f: number, n = events[i]) => {
    progress[i] = f;
    events[i] = n;
    if (!opts.onProgress) return;
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const run = { sessionsDone: progress.filter((x) => x === 1).length, sessionsTotal: specs.length, events: sum(events) };
    opts.onProgress(sum(progress) / specs.length, run);
  };
  const index = new Map(specs.map((s, i) => [s.date, i]));
  const executor = opts.executor ?? (opts.pool ? poolExecutor(opts.pool) : inlineExecutor(opts.predictor));
  const atOnce =
    executor.threads === undefined || opts.generatorThread === false
      ? Infinity
      : executor.parallel && !opts.sequential
        ? Math.min(specs.length, executor.threads)
        : 1;
  const runner: SessionRunner = async (spec, stop) => {
    const i = index.get(spec.date)!;
    const signal = stop && opts.signal ? AbortSignal.any([stop, opts.signal]) : (stop ?? opts.signal);
    sessionsRunning++;
    try {
      const r = await executor.run(withGeneratorThread(spec, atOnce), signal, (f, n) => report(i, f, n));
      report(i, 1, r.eventsProcessed);
      return r;
    } finally {
      sessionsRunning--;
    }
  };
  const sessions = await runAccount(specs, runner, executor.parallel && !opts.sequential, opts.onSession, opts.untradedMarkets ?? true);
  for (const s of sessions) if (s.result === null) report(index.get(s.date)!, 1);
  return { result: mergeSessions(req, sessions, feeScheduleView(specs[0].execution.fees)), sessions };
}
