// Costly reads are admitted like runs (issue 46, §5): a research artifact GET that must recompute
// a run counts its sessions against [backtest] max_queued_sessions (503 busy + Retry-After when
// the runs admitted leave no room), a cached one needs no admission ([backtest]
// artifact_cache_bytes bounds the cache; 0 turns it off), and the artifact GETs count against the
// rate limit.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BacktestResult } from '../../../src/wire/backtest-run.ts';
import { BacktestService, type Runner } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { ArtifactCache } from '../../../src/http/artifact-cache.ts';
import { startHttpServer, type HttpServer } from '../../../src/http/server.ts';
import { ensureBuilt } from '../../helpers/build.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { assertDocumented } from '../../helpers/openapi-check.ts';

const dir = mkdtempSync(join(tmpdir(), 'artifact-admission-'));
const journal = join(dir, 'journal');
const { logger } = capturingLogger('fatal');
const toml = (extra = '') =>
  `data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n[backtest]\npool_size = 1\nmax_days = 2\nmax_queued_sessions = 2\n${extra}`;
const TWO_DAYS = { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-03', seed: 7 };
const ONE_DAY = { symbol: 'ES', startDate: '2024-01-04', endDate: '2024-01-04', seed: 7 };

/** Runs submitted to the server under test hold until cancelled: they occupy admission. */
const holding: Runner = (_req, _cfg, opts) =>
  new Promise((_resolve, reject) => {
    if (opts.signal?.aborted) reject(opts.signal.reason);
    opts.signal?.addEventListener('abort', () => reject(opts.signal!.reason), { once: true });
  }) as Promise<{ result: BacktestResult }>;

const servers: HttpServer[] = [];
async function start(extraToml = '', runner?: Runner) {
  const config = parseConfig(toml(extraToml), 'artifacts.toml');
  const backtests = await BacktestService.open({ config, logger, dataDir: journal, runner });
  const server = await startHttpServer(
    { runtime: new FakeRuntime(), config, logger, backtests },
    { port: 0, host: '127.0.0.1', latencyDrainMs: 0, defaultMetrics: false },
  );
  servers.push(server);
  return { base: `http://127.0.0.1:${server.port}`, backtests, server };
}

const postRun = async (base: string, body: unknown, async = false) => {
  const r = await fetch(`${base}/api/backtest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(async ? { prefer: 'respond-async' } : {}) },
    body: JSON.stringify(body),
  });
  assert.is(r.status, async ? 202 : 200);
  return ((await r.json()) as { id: string }).id;
};
const get = (base: string, id: string, name: string) => fetch(`${base}/api/backtests/${id}/${name}`);

let two = '';
let one = '';
beforeAll(test, async () => {
  ensureBuilt();
  // Two completed runs, computed for real.
  const s = await start();
  two = await postRun(s.base, TWO_DAYS);
  one = await postRun(s.base, ONE_DAY);
  await s.server.close();
});

test.after(async () => {
  for (const s of servers) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

test('an artifact that must be recomputed waits for admission (503 busy, Retry-After); a cached one does not', async () => {
  const s = await start('', holding);
  const first = await get(s.base, two, 'report');
  assert.is(first.status, 200);
  await first.arrayBuffer();
  assert.is(s.backtests.queuedSessions, 0, 'the recomputation released its sessions');
  // A run of two sessions fills admission (max_queued_sessions = 2).
  const held = await postRun(s.base, TWO_DAYS, true);
  assert.is(s.backtests.queuedSessions, 2);
  for (const name of ['fills.csv', 'fills.parquet', 'equity.csv', 'report']) {
    const cached = await get(s.base, two, name);
    assert.is(cached.status, 200, `${name} of a run already recomputed`);
    await cached.arrayBuffer();
  }
  const refused = await get(s.base, one, 'report');
  assert.is(refused.status, 503);
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  const body = (await refused.json()) as { error: { code: string; message: string } };
  assertDocumented('Error', body);
  assert.is(body.error.code, 'busy');
  assert.match(body.error.message, /costs 1 session\(s\), over \[backtest\] max_queued_sessions = 2/);
  // And a run is refused while a recomputation holds the sessions: one count for both.
  const release = s.backtests.reserve(1);
  assert.is(release, null, 'no room left for 1 more session');
  assert.is((await fetch(`${s.base}/api/backtests/${held}`, { method: 'DELETE' })).status, 200);
  const after = await get(s.base, one, 'report');
  assert.is(after.status, 200);
  assert.match(await after.text(), /<html/i);
});

test('[backtest] artifact_cache_bytes = 0: every read recomputes, so each needs admission', async () => {
  const s = await start('artifact_cache_bytes = 0\n', holding);
  assert.is((await get(s.base, one, 'equity.csv')).status, 200);
  const held = await postRun(s.base, TWO_DAYS, true);
  const again = await get(s.base, one, 'equity.csv');
  assert.is(again.status, 503, 'nothing was kept');
  await again.arrayBuffer();
  assert.is((await fetch(`${s.base}/api/backtests/${held}`, { method: 'DELETE' })).status, 200);
});

test('artifact GETs count against the rate limit; other reads do not', async () => {
  const s = await start('[http]\nrate_limit_requests = 3\nrate_limit_window_s = 60\n');
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await get(s.base, one, i % 2 ? 'report' : 'fills.csv');
    statuses.push(r.status);
    await r.arrayBuffer();
  }
  assert.equal(statuses, [200, 200, 200, 429]);
  for (let i = 0; i < 5; i++) {
    const list = await fetch(`${s.base}/api/backtests`);
    assert.is(list.status, 200);
    await list.arrayBuffer();
  }
  assert.is((await fetch(`${s.base}/api/backtests/${one}`)).status, 200);
});

test('the cache: least recently used out first, bounded in bytes, an entry over the bound not kept', () => {
  const c = new ArtifactCache(100);
  const entry = (n: number) => new Map([['report', 'x'.repeat(n)]]);
  c.put('a', entry(40));
  c.put('b', entry(40));
  assert.ok(c.get('a'), 'a used: b is now the oldest');
  c.put('c', entry(40));
  assert.is(c.get('b'), undefined);
  assert.ok(c.get('a') && c.get('c'));
  assert.is(c.bytes, 80);
  c.put('huge', entry(101));
  assert.is(c.get('huge'), undefined);
  assert.is(c.bytes, 80);
  c.put('bin', new Map([['fills.parquet', new Uint8Array(60)]]));
  assert.is(c.bytes, 100, 'bytes of a binary body are its length');
});

test.run();
