// `--queue URL` of --backtest and --sweep: the queue executor the sessions run on, or the exit
// code 1 after a clear error (Redis unreachable, a bad URL) before anything is enqueued.

import type { EngineConfig } from '../config/schema.ts';
import { createQueueExecutor, type QueueExecutor } from '../jobs/executor.ts';

export async function queueFromFlag(url: string | undefined, config: EngineConfig): Promise<{ executor: QueueExecutor | undefined } | { exit: number }> {
  if (!url) return { executor: undefined };
  try {
    // The watchdog's news (a job enqueued again, Redis gone) as warning lines on stderr.
    const onEvent = (msg: string, fields: Record<string, unknown>) => process.stderr.write(`warning: ${msg} ${JSON.stringify(fields)}\n`);
    return { executor: await createQueueExecutor(url, config, { onEvent }) };
  } catch (e) {
    process.stderr.write(`error: --queue: ${(e as Error).message}\n`);
    return { exit: 1 };
  }
}
