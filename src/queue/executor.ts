// The queue side of the SessionExecutor port (src/backtest/run.ts): each session is a BullMQ job
// on Redis whose data is the whole SessionSpec (request values, seed, carry, model weights and
// version), so any worker computes the same result and a retried job gives the same result.
// A job whose worker dies is retried by another (BullMQ's stalled-job check); the result comes
// back to runBacktest, which chains and merges it exactly as a pool result. Recorded data travels
// as its dataset name (recorded-data.ts). A cancelled run removes its jobs still waiting, so no
// worker runs abandoned work; a job already running finishes on its worker, unread.

import { Queue, QueueEvents } from 'bullmq';
import type { SessionExecutor } from '../backtest/run.ts';
import { marketDataDir } from '../backtest/request.ts';
import type { SessionResult } from '../backtest/session.ts';
import type { EngineConfig } from '../config/schema.ts';
import { decode, encode } from './codec.ts';
import { toStrategyRef } from './strategy-ref.ts';
import { checkReachable, parseQueueUrl, SESSION_QUEUE } from './connection.ts';
import { toDatasetRef } from './recorded-data.ts';

export interface QueueExecutor extends SessionExecutor {
  close(): Promise<void>;
}

/** Attempts per job: a worker killed mid-job costs one (the stalled check moves it back). */
const ATTEMPTS = 3;

/**
 * Connects to the queue at `url`; rejects within seconds when Redis is unreachable. `config` is
 * the engine's: recorded data must be under its <data_dir>/market/ to be named in a job.
 */
export async function createQueueExecutor(url: string, config: EngineConfig): Promise<QueueExecutor> {
  const marketDir = marketDataDir(config);
  const parsed = parseQueueUrl(url);
  if (!parsed.ok) throw new Error(`queue URL ${parsed.error}`);
  const connection = parsed.connection;
  await checkReachable(url, connection);
  const queue = new Queue(SESSION_QUEUE, { connection });
  const events = new QueueEvents(SESSION_QUEUE, { connection });
  // Every job in flight listens on these; a sweep has many in flight by design.
  queue.setMaxListeners(0);
  events.setMaxListeners(0);
  queue.on('error', () => undefined);
  events.on('error', () => undefined);
  await events.waitUntilReady();
  return {
    parallel: true,
    async run(spec, signal) {
      signal?.throwIfAborted();
      const job = await queue.add('session', { spec: encode(toStrategyRef(toDatasetRef(spec, marketDir))) }, { attempts: ATTEMPTS, removeOnComplete: true, removeOnFail: 100 });
      const finished = job.waitUntilFinished(events) as Promise<string>;
      if (!signal) return decode<SessionResult>(await finished);
      const aborted = new Promise<never>((_, reject) => {
        const abandon = () => {
          reject(signal.reason);
          // Refused (and ignored) once a worker holds the job's lock: that one runs to its end.
          job.remove().catch(() => undefined);
        };
        if (signal.aborted) abandon();
        else signal.addEventListener('abort', abandon, { once: true });
      });
      finished.catch(() => undefined);
      return decode<SessionResult>(await Promise.race([finished, aborted]));
    },
    async close() {
      await events.close();
      await queue.close();
    },
  };
}
