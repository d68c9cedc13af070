// `--backtest --queue URL` (real redis-server): the backtest's sessions run on a queue worker and
// the JSON result equals the local run's byte for byte, over the synthetic market and over
// recorded data named under <data_dir>/market/; an unreachable queue is exit 1 with a clear error.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { runCli, tempDir } from '../../helpers/cli.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { freePort } from '../../helpers/net.ts';
import { QueueProcesses, stop } from '../../helpers/queue-processes.ts';

const root = tempDir('cli-backtest-queue-');
const dataDir = join(root, 'data');
const DATA = join(dataDir, 'market', 'es.mbo.dbn.zst');
mkdirSync(join(dataDir, 'market'), { recursive: true });
copyFileSync(join(import.meta.dirname, '../../fixtures', 'dbn', 'test_data.mbo.v3.dbn.zst'), DATA);
const CONFIG = join(root, 'config.toml');
writeFileSync(CONFIG, `data_dir = ${JSON.stringify(dataDir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n[backtest]\npool_size = 1\n`);
const SYNTHETIC = ['--backtest', '--json', '--config', CONFIG, '--start', '2024-01-02', '--end', '2024-01-03'];
const RECORDED = ['--backtest', '--json', '--config', CONFIG, '--data', DATA];

const procs = new QueueProcesses();
beforeAll(test, async () => {
  ensureBuilt();
  await procs.startRedis();
});
test.after(() => procs.stopAll());

async function queued(args: string[]): Promise<{ code: number | null; stdout: string; log: string }> {
  const run = procs.spawn([...args, '--queue', procs.url]);
  let stdout = '';
  run.child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  const code = await new Promise<number | null>((r) => run.child.once('exit', (c) => r(c)));
  return { code, stdout, log: run.log() };
}

test('--backtest --queue: the JSON result equals the local run, synthetic and recorded data', async () => {
  const w = await procs.startWorker(CONFIG);
  try {
    for (const args of [SYNTHETIC, RECORDED]) {
      const local = runCli(args);
      assert.is(local.code, 0, local.stderr);
      const q = await queued(args);
      assert.is(q.code, 0, q.log);
      assert.is(q.stdout, local.stdout);
      assert.match(q.log, `on the queue ${procs.url}`);
    }
    assert.ok(w.log().includes('session job started'), 'the worker ran the sessions');
  } finally {
    await stop(w.child);
  }
});

test('--backtest --queue with Redis unreachable: exit 1 naming the queue, nothing hangs', async () => {
  const port = await freePort();
  const r = runCli([...SYNTHETIC, '--queue', `redis://127.0.0.1:${port}`]);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, `error: --queue: cannot reach the queue at redis://127.0.0.1:${port} (Redis)`);
});

test.run();
