// Closing the session queue's executor settles every run still waiting on a job: with no worker
// to take it, a backtest on the queue fails with an error that says the queue was closed, instead
// of waiting for ever and staying counted among the sessions this process runs (runBacktest
// decides from that count whether a session gets the generator thread).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Queue } from 'bullmq';
import { tempDir } from '../../helpers/cli.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { QueueProcesses } from '../../helpers/queue-processes.ts';
import { until, WAIT_MS } from '../../helpers/wait.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { parseQueueUrl, SESSION_QUEUE } from '../../../src/jobs/connection.ts';
import { createQueueExecutor } from '../../../src/jobs/executor.ts';

const config = parseConfig(`data_dir = ${JSON.stringify(tempDir('queue-close-'))}\n`, 'engine.toml');
const procs = new QueueProcesses();
let url = '';

beforeAll(test, async () => {
  url = await procs.startRedis();
});
test.after(() => procs.stopAll());

test('a backtest waiting on the queue with no worker fails when the executor closes, naming the queue', async () => {
  // redis-server starts listening a moment after it is spawned.
  const executor = await until('the queue answers', () => createQueueExecutor(url, config).catch(() => null), { timeoutMs: WAIT_MS });
  const parsed = parseQueueUrl(url);
  assert.ok(parsed.ok);
  const queue = new Queue(SESSION_QUEUE, { connection: parsed.connection });
  try {
    await queue.drain();
    const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-03' }, config);
    assert.ok(v.ok);
    const run = runBacktest(v.request, config, { executor }).then(
      () => 'completed',
      (e: Error) => e.message,
    );
    await until('the sessions are queued', async () => (await queue.getJobCounts('waiting')).waiting === 2, { timeoutMs: WAIT_MS });
    await executor.close();
    let settled: string | null = null;
    void run.then((m) => (settled = m));
    await until('the run settles', () => settled !== null, { timeoutMs: WAIT_MS });
    assert.match(settled!, 'was closed while this session waited on it');
  } finally {
    await queue.obliterate({ force: true });
    await queue.close();
  }
});

test.run();
