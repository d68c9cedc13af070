// Recorded data on BullMQ workers (real redis-server): a job names its dataset, not a path of the
// engine's machine; a worker holding the dataset under its own <data_dir>/market/ gives the local
// result byte for byte; a worker without it fails the job at once with an error naming the data
// and the worker's directory, and the sweep reports it (exit 1, no retry loop, no hang).
// Cancelling a sweep (what DELETE /api/sweeps/{id} does) removes its jobs still waiting, so no
// worker picks them up later.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { ensureBuilt } from '../../helpers/build.ts';
import { tempDir } from '../../helpers/cli.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { QueueProcesses, stop } from '../../helpers/queue-processes.ts';
import { until, WAIT_MS } from '../../helpers/wait.ts';
import { createBacktestPool } from '../../../src/backtest/run.ts';
import { marketDataDir, sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { parseQueueUrl, SESSION_QUEUE } from '../../../src/jobs/connection.ts';
import { createQueueExecutor } from '../../../src/jobs/executor.ts';
import { toDatasetRef } from '../../../src/jobs/recorded-data.ts';
import { gridAxes } from '../../../src/sweep/grid.ts';
import { SweepService } from '../../../src/sweep/service.ts';
import { executeSweep, prepareSweep } from '../../../src/sweep/sweep.ts';
import { capturingLogger } from '../../helpers/log.ts';

const FIXTURE = join(import.meta.dirname, '../../fixtures', 'dbn', 'test_data.mbo.v3.dbn.zst');
const DATA = 'es.mbo.dbn.zst';
const root = tempDir('queue-dataset-');

/** A data_dir with a config; `withData`: the dataset copied under its market/. */
function node(name: string, withData: boolean): { config: string; dataDir: string } {
  const dataDir = join(root, name);
  mkdirSync(join(dataDir, 'market'), { recursive: true });
  if (withData) copyFileSync(FIXTURE, join(dataDir, 'market', DATA));
  const config = join(root, `${name}.toml`);
  writeFileSync(config, `data_dir = ${JSON.stringify(dataDir)}\n[backtest]\npool_size = 1\n`);
  return { config, dataDir };
}
const engine = node('engine', true);
const holder = node('holder', true);
const lacking = node('lacking', false);
const engineConfig = parseConfig(`data_dir = ${JSON.stringify(engine.dataDir)}\n[backtest]\npool_size = 1\n`, 'engine.toml');

/** A sweep over the dataset, by name, as POST /api/sweeps describes it. */
function prepared() {
  const axes = gridAxes({ skewFactor: [0, 1] });
  assert.ok(axes.ok);
  const p = prepareSweep({ base: { dataset: DATA }, axes: axes.value, naming: 'name' }, engineConfig);
  assert.ok(p.ok, JSON.stringify(!p.ok && p.errors));
  return p.sweep;
}

const procs = new QueueProcesses();
let url = '';
let local = '';

async function queuedSweep(): Promise<string> {
  const executor = await createQueueExecutor(url, engineConfig);
  try {
    return JSON.stringify(await executeSweep(prepared(), { executor, concurrency: 2 }));
  } finally {
    await executor.close();
  }
}

beforeAll(test, async () => {
  ensureBuilt();
  url = await procs.startRedis();
  const pool = createBacktestPool(1);
  try {
    local = JSON.stringify(await executeSweep(prepared(), { pool, concurrency: 2 }));
  } finally {
    await pool.destroy();
  }
});
test.after(() => procs.stopAll());

test('a worker with the dataset under its own data_dir: the sweep equals the local run byte for byte', async () => {
  const w = await procs.startWorker(holder.config);
  try {
    assert.is(await queuedSweep(), local);
    assert.ok(w.log().includes('session job started'), 'the worker ran the sessions');
    assert.not.ok(w.log().includes(engine.dataDir), "the engine's path never reached the worker");
  } finally {
    await stop(w.child);
  }
});

test('a worker without the dataset: the sweep fails at once with an error naming the data and the worker dir', async () => {
  const w = await procs.startWorker(lacking.config);
  try {
    const why = await queuedSweep().then(
      () => 'completed',
      (e: Error) => e.message,
    );
    assert.match(why, `recorded data '${DATA}' is not on this worker: no such dataset under ${join(lacking.dataDir, 'market')} of worker`);
    // Unrecoverable: one attempt per job, not BullMQ's retries.
    const started = w
      .log()
      .split('\n')
      .filter((l) => l.includes('session job started'));
    assert.ok(started.length > 0 && started.every((l) => l.includes('"attempt":1')), 'no job was attempted twice');
  } finally {
    await stop(w.child);
  }
});

test("recorded data outside the engine's <data_dir>/market/ cannot go into a job", () => {
  const v = validateBacktestRequest({}, engineConfig, FIXTURE);
  assert.ok(v.ok);
  const [spec] = sessionSpecs(v.request, engineConfig, false);
  assert.throws(
    () => toDatasetRef(spec, marketDataDir(engineConfig)),
    (e: Error) => e.message.startsWith(`recorded data ${FIXTURE} is not under ${join(engine.dataDir, 'market')}`),
  );
});

test('a cancelled sweep removes its jobs still waiting: no worker runs them later', async () => {
  const { logger } = capturingLogger();
  const executor = await createQueueExecutor(url, engineConfig);
  const parsed = parseQueueUrl(url);
  assert.ok(parsed.ok);
  const queue = new Queue(SESSION_QUEUE, { connection: parsed.connection });
  // No worker: every session job waits in the queue.
  const sweeps = new SweepService({
    config: engineConfig,
    logger,
    pool: () => assert.unreachable('no pool with a queue') as never,
    poolThreads: 2,
    executor,
    dataDir: join(root, 'sweeps'),
  });
  try {
    await queue.drain();
    const out = sweeps.submit({ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-05', grid: { skewFactor: [0, 1, 2] } });
    assert.is(out.kind, 'accepted');
    const { run, done } = out as Extract<typeof out, { kind: 'accepted' }>;
    // Two points in flight (poolThreads), four sessions each.
    await until('the sessions are queued', async () => (await queue.getJobCounts('waiting')).waiting === 8, { timeoutMs: WAIT_MS });
    assert.ok(sweeps.cancel(run.id));
    assert.is((await done).status, 'cancelled');
    await until('the waiting jobs are removed', async () => (await queue.getJobCounts('waiting')).waiting === 0, { timeoutMs: WAIT_MS });
  } finally {
    await sweeps.close();
    await queue.close();
    await executor.close();
  }
});

test.run();
