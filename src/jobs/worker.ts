// `node dist/engine.js --worker --queue redis://HOST:PORT`: takes session jobs off the queue and
// runs each on this process's Piscina pool (the event loop stays free to renew job locks), one
// job per pool thread. Recorded data is resolved under this worker's own <data_dir>/market/.
// Stops on SIGTERM/SIGINT after the jobs in hand.

import { Worker } from 'bullmq';
import { availableParallelism } from 'node:os';
import type pino from 'pino';
import { marketDataDir } from '../backtest/request.ts';
import { createBacktestPool, poolExecutor } from '../backtest/run.ts';
import type { SessionSpec } from '../backtest/session-spec.ts';
import type { EngineConfig } from '../config/schema.ts';
import { decode, encode } from './codec.ts';
import { fromStrategyRef } from './strategy-ref.ts';
import { checkReachable, parseQueueUrl, SESSION_QUEUE } from './connection.ts';
import { fromDatasetRef } from './recorded-data.ts';

/** A job's lock lasts this long unless renewed: a dead worker's job is retried after about it. */
const LOCK_MS = 10_000;

export async function workerCommand(url: string, config: EngineConfig, log: pino.Logger): Promise<number> {
  const parsed = parseQueueUrl(url);
  if (!parsed.ok) {
    log.error(`--queue ${parsed.error}`);
    return 2;
  }
  try {
    await checkReachable(url, parsed.connection);
  } catch (e) {
    log.error((e as Error).message);
    return 1;
  }
  const threads = config.backtest.pool_size || availableParallelism();
  const pool = createBacktestPool(threads);
  const executor = poolExecutor(pool);
  const marketDir = marketDataDir(config);
  const worker = new Worker(
    SESSION_QUEUE,
    async (job) => {
      const spec = decode<SessionSpec>(job.data.spec);
      log.debug({ job: job.id, date: spec.date, attempt: job.attemptsMade + 1 }, 'session job started');
      const r = await executor.run(fromStrategyRef(fromDatasetRef(spec, marketDir)), undefined, () => undefined);
      return encode(r);
    },
    { connection: parsed.connection, concurrency: threads, lockDuration: LOCK_MS, stalledInterval: LOCK_MS / 2, maxStalledCount: 2 },
  );
  worker.on('error', (e) => log.warn({ err: e }, 'queue worker error'));
  worker.on('failed', (job, e) => log.warn({ job: job?.id, err: e }, 'session job failed'));
  await worker.waitUntilReady();
  log.info({ queue: url, threads }, 'queue worker ready');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  log.info('queue worker stopping');
  await worker.close();
  await pool.destroy();
  return 0;
}
