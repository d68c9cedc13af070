// `--queue URL` of --backtest and --sweep: the queue executor the sessions run on, or the exit
// code 1 after a clear error (Redis unreachable, a bad URL) before anything is enqueued.

import type { EngineConfig } from '../config/schema.ts';
import { createQueueExecutor, type QueueExecutor } from '../queue/executor.ts';

export async function queueFromFlag(url: string | undefined, config: EngineConfig): Promise<{ executor: QueueExecutor | undefined } | { exit: number }> {
  if (!url) return { executor: undefined };
  try {
    return { executor: await createQueueExecutor(url, config) };
  } catch (e) {
    process.stderr.write(`error: --queue: ${(e as Error).message}\n`);
    return { exit: 1 };
  }
}
