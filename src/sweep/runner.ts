// Runs a planned sweep: every point is one backtest (runBacktest, the same path as a single run),
// and the points share one pool. Several points are in flight at once so a short date range
// still fills the pool; results are stored by grid index, so their order and values do not
// depend on which finished first.

import type { Piscina } from 'piscina';
import { runBacktest, type SessionExecutor } from '../backtest/run.ts';
import type { SweepValue } from './grid.ts';
import type { PlannedPoint } from './plan.ts';
import { pointResult, type PointResult } from '../wire/sweep-summary.ts';

export interface SweepPointResult {
  params: Record<string, SweepValue>;
  result: PointResult;
}

export interface SweepRunOptions {
  pool?: Piscina | null;
  /** Where sessions run instead of the pool (e.g. the BullMQ queue, src/jobs). */
  executor?: SessionExecutor;
  /** Points run at once (default 1; with a pool, its thread count is a good value). */
  concurrency?: number;
  /** Fraction of the whole sweep done, 0..1. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export async function runSweep(points: readonly PlannedPoint[], opts: SweepRunOptions = {}): Promise<SweepPointResult[]> {
  const out: SweepPointResult[] = new Array(points.length);
  const done = points.map(() => 0);
  const total = points.reduce((n, p) => n + p.request.dates.length, 0) || 1;
  const report = () => opts.onProgress?.(points.reduce((n, p, i) => n + done[i] * p.request.dates.length, 0) / total);
  let next = 0;
  const lane = async () => {
    while (next < points.length) {
      opts.signal?.throwIfAborted();
      const i = next++;
      const p = points[i];
      const run = await runBacktest(p.request, p.config, {
        pool: opts.pool,
        executor: opts.executor,
        signal: opts.signal,
        untradedMarkets: false,
        onProgress: (f) => {
          done[i] = f;
          report();
        },
      });
      out[i] = { params: p.params, result: pointResult(run.result) };
    }
  };
  const lanes = Math.max(1, Math.min(opts.concurrency ?? 1, points.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return out;
}
