// Queue jobs that vanish (issue 46, §2), with a real redis-server (no persistence, like a Redis
// restarted without its AOF): a run waiting on a job that Redis forgot has it enqueued again and
// completes with the pool's result; a Redis that stays away fails the run with a clear error
// within the stated bound and frees admission; /health shows the queue's state throughout.
// The watchdog's period is shortened here (checkMs); the engine's is 5 s (docs/hardening.md).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { createBacktestPool } from '../../../src/backtest/run.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { startHttpServer } from '../../../src/http/server.ts';
import { createQueueExecutor } from '../../../src/jobs/executor.ts';
import { ensureBuilt } from '../../helpers/build.ts';
import { ENGINE, tempDir, writeConfig } from '../../helpers/cli.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { assertDocumented } from '../../helpers/openapi-check.ts';
import { freePort } from '../../helpers/net.ts';
import { until, WAIT_MS } from '../../helpers/wait.ts';

const CONFIG = writeConfig('[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n[backtest]\npool_size = 1\n');
const { config } = loadConfig({ path: CONFIG, env: {} });
const BODY = { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-02' };
const children: ChildProcess[] = [];

const stop = (c: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') =>
  new Promise<void>((r) => {
    if (c.exitCode !== null || c.signalCode !== null) return r();
    c.once('exit', () => r());
    c.kill(signal);
  });

/** redis-server on `port`, empty, persisting nothing; resolves once it answers. */
async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(redis);
  let out = '';
  redis.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  await until('redis-server to accept connections', () => /Ready to accept connections/.test(out), { child: redis, context: () => out });
  return redis;
}

function startWorker(url: string): Promise<{ child: ChildProcess; log: () => string }> {
  const child = spawn(process.execPath, [ENGINE, '--worker', '--queue', url, '--config', CONFIG], {
    env: { ...process.env, RUST_LOG: 'debug' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let text = '';
  child.stderr!.on('data', (b: Buffer) => (text += b.toString()));
  return until('the worker is ready', () => text.includes('queue worker ready') && { child, log: () => text }, { timeoutMs: WAIT_MS, child });
}

type QueueHealth = {
  status: string;
  in_flight: number;
  requeued_jobs: number;
  failed_sessions: number;
  data_lost: number;
  unreachable_s: number | null;
  last_error: string | null;
};
async function health(base: string): Promise<{ status: number; queue: QueueHealth }> {
  const r = await fetch(`${base}/health`);
  const body = (await r.json()) as { queue: QueueHealth };
  assertDocumented('Health', body);
  return { status: r.status, queue: body.queue };
}

beforeAll(test, () => ensureBuilt());
test.after(async () => {
  for (const c of children.slice().reverse()) await stop(c);
});

async function engine(url: string, unreachableMs: number) {
  const events: string[] = [];
  const executor = await createQueueExecutor(url, config, { checkMs: 300, unreachableMs, onEvent: (msg) => events.push(msg) });
  const { logger } = capturingLogger('fatal');
  const svc = await BacktestService.open({ config, logger, dataDir: join(tempDir(), 'data'), executor });
  const server = await startHttpServer(
    { runtime: new FakeRuntime(), config, logger, backtests: svc },
    { port: 0, host: '127.0.0.1', latencyDrainMs: 0, defaultMetrics: false },
  );
  const base = `http://127.0.0.1:${server.port}`;
  const submit = async () => {
    const r = await fetch(`${base}/api/backtest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify(BODY),
    });
    assert.is(r.status, 202);
    return ((await r.json()) as { id: string }).id;
  };
  const run = async (id: string) =>
    (await (await fetch(`${base}/api/backtests/${id}`)).json()) as {
      status: string;
      error: { code: string; message: string } | null;
      total_pnl?: number;
      equity_curve?: unknown;
    };
  const close = async () => {
    await server.close();
    await executor.close();
  };
  return { base, svc, events, submit, run, close };
}

test('Redis restarted without its data: the waiting job is enqueued again and the run completes as on the pool', async () => {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let redis = await startRedis(port);
  const e = await engine(url, 60_000);
  try {
    const id = await e.submit();
    await until('the session waits on its job', async () => (await health(e.base)).queue.in_flight === 1);
    // No worker yet: the job waits in Redis. Redis dies and comes back empty.
    await stop(redis, 'SIGKILL');
    redis = await startRedis(port);
    const h = await until('the vanished job to be enqueued again', async () => {
      const x = await health(e.base);
      return x.queue.requeued_jobs >= 1 && x;
    });
    assert.is(h.status, 200);
    assert.is(h.queue.status, 'ok');
    assert.ok(h.queue.data_lost >= 1, 'the lost data was noticed');
    assert.is((await e.run(id)).status, 'running', 'still running, waiting on the new job');
    assert.ok(e.events.some((m) => /enqueued again/.test(m)));
    const w = await startWorker(url);
    const done = await until('the run completes', async () => {
      const r = await e.run(id);
      return r.status !== 'running' && r;
    });
    assert.is(done.status, 'completed', JSON.stringify(done.error));
    assert.ok(w.log().includes('session job started'));
    // The same result as the local pool gives.
    const pool = createBacktestPool(1);
    const { logger } = capturingLogger('fatal');
    const local = await BacktestService.open({ config, logger, dataDir: join(tempDir(), 'pool'), pool });
    try {
      const out = local.submit(BODY);
      assert.is(out.kind, 'accepted');
      const rec = await (out as { done: Promise<{ result: unknown }> }).done;
      const { id: _a, started_at: _b, finished_at: _c, duration_ms: _d, ...queued } = done as Record<string, unknown>;
      assert.is(JSON.stringify(queued.total_pnl), JSON.stringify((rec.result as { total_pnl: number }).total_pnl));
      assert.is(JSON.stringify(queued.equity_curve), JSON.stringify((rec.result as { equity_curve: unknown }).equity_curve));
    } finally {
      await local.close();
    }
    await stop(w.child);
  } finally {
    await e.close();
    await stop(redis);
  }
});

test('Redis gone for good: the run fails naming the queue within the bound, admission is freed, /health says unreachable', async () => {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let redis = await startRedis(port);
  const e = await engine(url, 2_000);
  try {
    const id = await e.submit();
    await until('the session waits on its job', async () => (await health(e.base)).queue.in_flight === 1);
    assert.is(e.svc.running, 1);
    await stop(redis, 'SIGKILL');
    const failed = await until('the run to fail', async () => {
      const r = await e.run(id);
      return r.status !== 'running' && r;
    });
    assert.is(failed.status, 'failed');
    assert.is(failed.error?.code, 'backtest_failed');
    assert.match(failed.error?.message ?? '', new RegExp(`the queue at redis://127\\.0\\.0\\.1:${port} has not answered for \\d+ s`));
    assert.is(e.svc.running, 0, 'admission freed');
    assert.is(e.svc.queuedSessions, 0);
    const h = await health(e.base);
    assert.is(h.status, 503);
    assert.is(h.queue.status, 'unreachable');
    assert.ok((h.queue.unreachable_s ?? 0) >= 2);
    assert.is(h.queue.failed_sessions, 1);
    assert.type(h.queue.last_error, 'string');
    // Back: /health is ok again.
    redis = await startRedis(port);
    await until('the queue to be reachable again', async () => (await health(e.base)).status === 200);
  } finally {
    await e.close();
    await stop(redis);
  }
});

test.run();
