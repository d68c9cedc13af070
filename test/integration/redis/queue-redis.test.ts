// Sessions on BullMQ workers with a real redis-server (Debian's, installed by .ci/run): two
// worker processes give a sweep byte-identical to the local run; a worker killed mid-job has its
// job retried by another and the result is unchanged; an unreachable Redis is a clear error
// within seconds.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { ENGINE, runCli, tempDir, writeConfig } from '../../helpers/cli.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { freePort } from '../../helpers/net.ts';
import { until, WAIT_MS } from '../../helpers/wait.ts';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { createBacktestPool } from '../../../src/backtest/run.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { createQueueExecutor } from '../../../src/jobs/executor.ts';
import { capturingLogger } from '../../helpers/log.ts';

const CONFIG = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "09:45"
[backtest]
pool_size = 1
`);
const SWEEP = ['--sweep', 'skew_factor=0,1', '--config', CONFIG, '--start', '2024-01-02', '--end', '2024-01-03'];
const children: ChildProcess[] = [];
let url = '';

function spawnLogged(args: string[], env: Record<string, string> = {}): { child: ChildProcess; log: () => string } {
  const child = spawn(process.execPath, [ENGINE, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let text = '';
  child.stderr!.on('data', (b: Buffer) => (text += b.toString()));
  return { child, log: () => text };
}
async function startWorker(): Promise<{ child: ChildProcess; log: () => string }> {
  const w = spawnLogged(['--worker', '--queue', url, '--config', CONFIG], { RUST_LOG: 'debug' });
  await until('the worker is ready', () => w.log().includes('queue worker ready'), { timeoutMs: WAIT_MS });
  return w;
}
const stop = (c: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') =>
  new Promise<void>((r) => {
    if (c.exitCode !== null || c.signalCode !== null) return r();
    c.once('exit', () => r());
    c.kill(signal);
  });

let local = '';
beforeAll(test, async () => {
  ensureBuilt();
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  children.push(redis);
  url = `redis://127.0.0.1:${port}`;
  const out = join(tempDir(), 'local.json');
  const r = runCli([...SWEEP, '--out', out]);
  assert.is(r.code, 0, r.stderr);
  local = readFileSync(out, 'utf8');
});
test.after(async () => {
  // Workers first (they hold Redis connections), then Redis.
  for (const c of children.slice().reverse()) await stop(c);
});

async function queuedSweep(): Promise<string> {
  const out = join(tempDir(), 'queue.json');
  const run = spawnLogged([...SWEEP, '--queue', url, '--out', out]);
  const code = await new Promise<number | null>((r) => run.child.once('exit', (c) => r(c)));
  assert.is(code, 0, run.log());
  return readFileSync(out, 'utf8');
}

test('two worker processes: the merged sweep is byte-identical to the local run', async () => {
  const a = await startWorker();
  const b = await startWorker();
  assert.is(await queuedSweep(), local);
  assert.ok(a.log().includes('session job started') && b.log().includes('session job started'), 'both workers took jobs');
  await stop(a.child);
  await stop(b.child);
});

test('a worker killed mid-job: another retries its job and the result is unchanged', async () => {
  const doomed = await startWorker();
  const pending = queuedSweep();
  await until('the first worker holds a job', () => doomed.log().includes('session job started'), { timeoutMs: WAIT_MS });
  await stop(doomed.child, 'SIGKILL');
  const rescuer = await startWorker();
  assert.is(await pending, local);
  const held = /"job":"([^"]+)"[^\n]*session job started/.exec(doomed.log())![1];
  assert.ok(rescuer.log().includes(`"job":"${held}"`), `the killed worker's job ${held} ran again on the other`);
  await stop(rescuer.child);
});

test('the engine with QUEUE_URL: a backtest run through the service on the queue equals the pool run', async () => {
  const w = await startWorker();
  const { config } = loadConfig({ path: CONFIG, env: {} });
  const { logger } = capturingLogger();
  const body = { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-03' };
  const executor = await createQueueExecutor(url, config);
  const pool = createBacktestPool(1);
  const dir = tempDir();
  const queued = await BacktestService.open({ config, logger, dataDir: join(dir, 'q'), executor });
  const pooled = await BacktestService.open({ config, logger, dataDir: join(dir, 'p'), pool });
  try {
    const a = queued.submit(body);
    const b = pooled.submit(body);
    assert.is(a.kind, 'accepted');
    assert.is(b.kind, 'accepted');
    const ra = await (a as { done: Promise<any> }).done;
    const rb = await (b as { done: Promise<any> }).done;
    assert.is(ra.status, 'completed', JSON.stringify(ra.error));
    assert.is(JSON.stringify(ra.result), JSON.stringify(rb.result));
    assert.ok(w.log().includes('session job started'), 'the worker ran the sessions');
  } finally {
    await queued.close();
    await pooled.close();
    await executor.close();
    await stop(w.child);
  }
});

test('Redis unreachable: a clear error within seconds, exit 1, nothing hangs', async () => {
  const port = await freePort();
  const t0 = Date.now();
  const r = runCli(['--sweep', 'skew_factor=0', '--config', CONFIG, '--queue', `redis://127.0.0.1:${port}`]);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`error: --queue: cannot reach the queue at redis://127\\.0\\.0\\.1:${port} \\(Redis\\): .*ECONNREFUSED`));
  assert.ok(Date.now() - t0 < 60_000, 'returns (the check gives up after 3 s)');
  const w = runCli(['--worker', '--queue', `redis://127.0.0.1:${port}`, '--config', CONFIG]);
  assert.is(w.code, 1);
  assert.match(w.stderr, /cannot reach the queue/);
});

test.run();
