// Runs a backtest: one session per business day, each a task on the Piscina pool (in parallel,
// one per worker), merged into one result. With no pool (tests, a one-off), sessions run inline.

import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { EngineConfig } from '../config/schema.ts';
import { workerPath } from '../core/paths.ts';
import { mergeSessions, type BacktestResult } from './merge.ts';
import { requestModel, sessionSpecs, type ResolvedRequest } from './request.ts';
import { runSession, type SessionResult, type SessionSpec } from './session.ts';

export interface BacktestTask {
  spec: SessionSpec;
  port?: MessagePort;
}

export interface RunOptions {
  pool?: Piscina | null;
  collectFills?: boolean;
  /** Fraction of the whole run done, 0..1. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export interface BacktestRun {
  result: BacktestResult;
  sessions: SessionResult[];
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
  const report = (i: number, f: number) => {
    progress[i] = f;
    opts.onProgress?.(progress.reduce((a, b) => a + b, 0) / specs.length);
  };
  let sessions: SessionResult[];
  if (opts.pool) {
    const pool = opts.pool;
    sessions = await Promise.all(
      specs.map(async (spec, i) => {
        const ch = new MessageChannel();
        ch.port1.on('message', (f: number) => report(i, f));
        try {
          const task: BacktestTask = { spec, port: ch.port2 };
          const r = (await pool.run(task, { transferList: [ch.port2] as never, signal: opts.signal })) as SessionResult;
          report(i, 1);
          return r;
        } finally {
          ch.port1.close();
        }
      }),
    );
  } else {
    sessions = specs.map((spec, i) => {
      const r = runSession(spec, { onProgress: (f) => report(i, f) });
      report(i, 1);
      return r;
    });
  }
  return { result: mergeSessions(req, sessions), sessions };
}
