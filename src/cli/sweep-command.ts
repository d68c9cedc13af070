// `node dist/engine.js --sweep KEY=VALUES ...`: one backtest per grid point on the pool, printed
// as a ranked table on stdout (or the JSON document with --json), --out FILE.json|.csv in grid
// order. Identical inputs give byte-identical outputs; wall time goes to stderr.

import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type pino from 'pino';
import type { EngineConfig } from '../config/schema.ts';
import { createBacktestPool } from '../backtest/run.ts';
import { parseGrid, pointCount } from '../sweep/grid.ts';
import { sweepCsv, sweepJson, sweepTable } from '../sweep/output.ts';
import { executeSweep, prepareSweep, sweepSessions } from '../sweep/sweep.ts';
import type { CliOptions } from './args.ts';
import { withTimeWindow } from './time-window.ts';
import { queueFromFlag } from './queue-flag.ts';
import { flagOfField, requestFromFlags } from './request-flags.ts';

export async function sweepCommand(opts: CliOptions, fullConfig: EngineConfig, log: pino.Logger): Promise<number> {
  const windowed = withTimeWindow(opts, fullConfig);
  if ('error' in windowed) {
    process.stderr.write(`error: ${windowed.error}\n`);
    return 2;
  }
  const config = windowed.config;
  const grid = parseGrid(opts.sweep ?? []);
  if (!grid.ok) {
    process.stderr.write(`error: --sweep ${grid.error}\n`);
    return 2;
  }
  const prepared = prepareSweep(
    { base: requestFromFlags(opts, config), axes: grid.value, naming: 'key', holdoutDays: opts.holdoutDays, dataPath: opts.data ?? null },
    config,
  );
  if (!prepared.ok) {
    for (const e of prepared.errors) {
      const flag = e.field === 'holdoutDays' ? '--holdout-days' : (flagOfField(e.field) ?? `--sweep ${e.field}`);
      process.stderr.write(`error: ${flag}: ${e.message}\n`);
    }
    return 2;
  }
  const s = prepared.sweep;
  const sessions = sweepSessions(s);
  const queue = await queueFromFlag(opts.queue, config);
  if ('exit' in queue) return queue.exit;
  const executor = queue.executor;
  // On the queue, points in flight are bounded by memory, not by local threads.
  const threads = executor ? Math.min(64, s.points.length) : Math.min(config.backtest.pool_size || availableParallelism(), sessions);
  const pool = executor ? null : createBacktestPool(threads);
  const t0 = process.hrtime.bigint();
  let lastDraw = 0;
  try {
    log.info({ points: pointCount(grid.value), sessions, holdout_days: opts.holdoutDays ?? 0 }, 'sweep started');
    const doc = await executeSweep(s, {
      pool,
      executor,
      concurrency: threads,
      onProgress: (f) => {
        const now = Date.now();
        if (process.stderr.isTTY && now - lastDraw > 200) {
          lastDraw = now;
          process.stderr.write(`\rsweep ${(f * 100).toFixed(0).padStart(3)}%`);
        }
      },
    });
    if (process.stderr.isTTY) process.stderr.write('\r           \r');
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    if (opts.out) writeFileSync(opts.out, opts.out.toLowerCase().endsWith('.csv') ? sweepCsv(doc) : sweepJson(doc));
    process.stdout.write(opts.json ? sweepJson(doc) : sweepTable(doc));
    process.stderr.write(
      `wall time ${wall.toFixed(2)} s, ${(sessions / wall).toFixed(2)} sessions/s ${executor ? `on the queue ${opts.queue}` : `over ${threads} worker(s)`}\n`,
    );
    log.info({ points: doc.points.length, sessions, wall_ms: Math.round(wall * 1000) }, 'sweep finished');
    return 0;
  } finally {
    await pool?.destroy();
    await executor?.close();
  }
}
