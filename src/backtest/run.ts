// Runs a backtest: one session per business day, each a task on the Piscina pool (in parallel,
// one per worker), chained into one account (account.ts) and merged into one result. With no
// pool (tests, a one-off), sessions run inline, one after another.

import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { EngineConfig } from '../config/schema.ts';
import { workerPath } from '../core/paths.ts';
import { feeScheduleView } from '../exchange/fees.ts';
import { type AccountSession, runAccount, type SessionRunner } from './account.ts';
import { mergeSessions, type BacktestResult } from './merge.ts';
import { requestModel, sessionSpecs, type ResolvedRequest } from './request.ts';
import type { Predictor } from '../ml/predictor.ts';
import { runSession, type SessionResult, type SessionSpec } from './session.ts';

export interface BacktestTask {
  spec: SessionSpec;
  port?: MessagePort;
}

export interface RunOptions {
  pool?: Piscina | null;
  collectFills?: boolean;
  /** Fraction of the whole run done, 0..1, with sessions finished and events processed so far. */
  onProgress?: (fraction: number, run?: RunProgress) => void;
  signal?: AbortSignal;
  /** Run the sessions strictly one after another on the pool (the reference for the parallel run). */
  sequential?: boolean;
  /** Inline runs only: this predictor instead of the request's model (signal comparisons). */
  predictor?: Predictor | null;
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

export function createBacktestPool(size: number): Piscina {
  const threads = Math.max(1, size);
  return new Piscina({ filename: workerPath('backtest'), minThreads: 1, maxThreads: threads, idleTimeout: 30_000 });
}

export async function runBacktest(req: ResolvedRequest, config: EngineConfig, opts: RunOptions = {}): Promise<BacktestRun> {
  // The model (useML) is loaded once per run, here in the calling thread, and travels to every
  // session inside its spec; each session builds its own predictor from it.
  const specs = sessionSpecs(req, config, opts.collectFills ?? false, requestModel(req, config));
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
  let runner: SessionRunner;
  const pool = opts.pool;
  if (pool) {
    runner = async (spec, stop) => {
      const i = index.get(spec.date)!;
      const ch = new MessageChannel();
      ch.port1.on('message', ([f, n]: [number, number]) => report(i, f, n));
      try {
        const task: BacktestTask = { spec, port: ch.port2 };
        const signal = stop && opts.signal ? AbortSignal.any([stop, opts.signal]) : (stop ?? opts.signal);
        const r = (await pool.run(task, { transferList: [ch.port2] as never, signal })) as SessionResult;
        report(i, 1, r.eventsProcessed);
        return r;
      } finally {
        ch.port1.close();
      }
    };
  } else {
    runner = async (spec) => {
      const i = index.get(spec.date)!;
      const r = runSession(spec, { onProgress: (f, n) => report(i, f, n), predictor: opts.predictor });
      report(i, 1, r.eventsProcessed);
      return r;
    };
  }
  const sessions = await runAccount(specs, runner, pool != null && !opts.sequential);
  for (const s of sessions) if (s.result === null) report(index.get(s.date)!, 1);
  return { result: mergeSessions(req, sessions, feeScheduleView(specs[0].execution.fees)), sessions };
}
