// An acknowledgement is durable (issue 46, §4): POST /api/backtest (respond-async) and POST
// /api/sweeps answer 202 only once the record is on disk; a journal that cannot store the record
// (a full disk: ENOSPC, injected into the write) gets a 500 storage_error naming it and starts
// nothing; /health counts the failures of both journals. Writes are held or failed by wrapping
// node:fs in this process (module.syncBuiltinESMExports makes the journals' imports see it).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs, { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BacktestResult } from '../../../src/wire/backtest-run.ts';
import { BacktestService, type Runner } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer, type HttpServer } from '../../../src/http/server.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { assertDocumented } from '../../helpers/openapi-check.ts';
import { sleep, until } from '../../helpers/wait.ts';

const dir = mkdtempSync(join(tmpdir(), 'durable-ack-'));
const { logger } = capturingLogger('fatal');
const config = parseConfig(
  `data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n[backtest]\npool_size = 1\n`,
  'durable.toml',
);
const RUN = { symbol: 'ES', initialCapital: 100000, useML: false, startDate: '2024-01-02', endDate: '2024-01-02' };
const SWEEP = { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-02', grid: { spreadMultiplier: [1] } };

/** A runner that holds until aborted: runs stay `running` while the test looks. */
const holding: Runner = (_req, _cfg, opts) =>
  new Promise((_resolve, reject) => {
    if (opts.signal?.aborted) reject(opts.signal.reason);
    opts.signal?.addEventListener('abort', () => reject(opts.signal!.reason), { once: true });
  }) as Promise<{ result: BacktestResult }>;

// ---- fs faults, for files under `dir` only
const real = { writeFile: fs.promises.writeFile, writeFileSync: fs.writeFileSync };
type Fault = { kind: 'hold'; gate: Promise<void>; held: string[] } | { kind: 'enospc' } | null;
let fault: Fault = null;
const enospc = (path: string) =>
  Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC', errno: -28, syscall: 'write', path });
const ours = (p: unknown) => typeof p === 'string' && p.startsWith(dir);
(fs.promises as { writeFile: unknown }).writeFile = async (p: unknown, ...rest: unknown[]) => {
  const f = fault;
  if (ours(p) && f?.kind === 'enospc') throw enospc(p as string);
  if (ours(p) && f?.kind === 'hold') {
    f.held.push(p as string);
    await f.gate;
  }
  return (real.writeFile as (...a: unknown[]) => Promise<void>)(p, ...rest);
};
(fs as { writeFileSync: unknown }).writeFileSync = (p: unknown, ...rest: unknown[]) => {
  if (ours(p) && fault?.kind === 'enospc') throw enospc(p as string);
  return (real.writeFileSync as (...a: unknown[]) => void)(p, ...rest);
};
syncBuiltinESMExports();

let server: HttpServer;
let base: string;
let svc: BacktestService;

test.before(async () => {
  svc = await BacktestService.open({ config, logger, runner: holding, poolSize: 1 });
  server = await startHttpServer(
    { runtime: new FakeRuntime(), config, logger, backtests: svc },
    { port: 0, host: '127.0.0.1', latencyDrainMs: 0, defaultMetrics: false },
  );
  base = `http://127.0.0.1:${server.port}`;
});

test.after(async () => {
  fault = null;
  await server.close();
  (fs.promises as { writeFile: unknown }).writeFile = real.writeFile;
  (fs as { writeFileSync: unknown }).writeFileSync = real.writeFileSync;
  syncBuiltinESMExports();
  rmSync(dir, { recursive: true, force: true });
});

const postRun = () =>
  fetch(`${base}/api/backtest`, { method: 'POST', headers: { 'content-type': 'application/json', prefer: 'respond-async' }, body: JSON.stringify(RUN) });
const postSweep = () => fetch(`${base}/api/sweeps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(SWEEP) });
type Health = {
  status: string;
  storage: { status: string; write_failures: number; last_error: string | null };
  sweep_storage: { status: string; write_failures: number; last_error: string | null };
};
const health = async () => {
  const r = await fetch(`${base}/health`);
  const h = (await r.json()) as Health;
  assertDocumented('Health', h);
  return { status: r.status, h };
};

test('the 202 of an async backtest waits for its record to be on disk', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const f = { kind: 'hold' as const, gate, held: [] as string[] };
  fault = f;
  let answered = false;
  const pending = postRun().then((r) => {
    answered = true;
    return r;
  });
  try {
    await until('the first journal write to start (and be held)', () => f.held.length === 1);
    // A window in which no 202 may come: the record is not on disk yet. (A crash here, before the
    // fix, lost an acknowledged run.)
    await sleep(500);
    assert.not.ok(answered, "answered while the run's record was not on disk");
  } finally {
    fault = null;
    release();
  }
  const res = await pending;
  assert.is(res.status, 202);
  const run = (await res.json()) as { id: string; status: string };
  assert.is(run.status, 'running');
  const file = join(dir, 'backtests', `${run.id}.jsonl`);
  assert.ok(existsSync(file), 'on disk when acknowledged');
  assert.match(readFileSync(file, 'utf8'), /"status":"running"/);
  assert.is((await fetch(`${base}/api/backtests/${run.id}`, { method: 'DELETE' })).status, 200);
});

test('a full disk (ENOSPC): backtest and sweep get 500 storage_error naming it, start nothing; /health counts both journals', async () => {
  const before = await health();
  assert.is(before.status, 200);
  assert.is(before.h.sweep_storage.status, 'ok');
  const runsBefore = svc.running;
  fault = { kind: 'enospc' };
  try {
    const r = await postRun();
    assert.is(r.status, 500);
    const body = (await r.json()) as { error: { code: string; message: string } };
    assertDocumented('Error', body);
    assert.is(body.error.code, 'storage_error');
    assert.match(body.error.message, /^backtest bt_\S+ was not started: the backtest journal could not store the run: ENOSPC: no space left on device/);
    await until('the failed run to leave admission', () => svc.running === runsBefore);

    const s = await postSweep();
    assert.is(s.status, 500);
    const sb = (await s.json()) as { error: { code: string; message: string } };
    assert.is(sb.error.code, 'storage_error');
    assert.match(sb.error.message, /^sweep sw_\S+ was not started: the sweep journal could not store it: ENOSPC: no space left on device/);
    assert.is(s.headers.get('location'), null);
    const list = (await (await fetch(`${base}/api/sweeps`)).json()) as { total: number };
    assert.is(list.total, 0, 'no sweep was started');
    assert.equal(
      readdirSync(join(dir, 'sweeps')).filter((n) => n.endsWith('.tmp')),
      [],
      'no temp file left behind',
    );

    const after = await health();
    assert.is(after.status, 503);
    assert.is(after.h.status, 'degraded');
    assert.is(after.h.storage.status, 'degraded');
    assert.is(after.h.storage.write_failures, before.h.storage.write_failures + 1);
    assert.match(after.h.storage.last_error ?? '', /ENOSPC/);
    assert.is(after.h.sweep_storage.status, 'degraded');
    assert.is(after.h.sweep_storage.write_failures, 1);
    assert.match(after.h.sweep_storage.last_error ?? '', /ENOSPC/);
  } finally {
    fault = null;
  }
  // Space again: the next run is acknowledged and storage is ok again.
  const again = await postRun();
  assert.is(again.status, 202);
  const id = ((await again.json()) as { id: string }).id;
  assert.is((await fetch(`${base}/api/backtests/${id}`, { method: 'DELETE' })).status, 200);
  assert.is((await health()).h.storage.status, 'ok');
});

test.run();
