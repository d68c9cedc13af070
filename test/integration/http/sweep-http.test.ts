// Sweeps over HTTP with a real BacktestService pool: POST /api/sweeps (202), progress on the
// stream, GET in grid order equal to the local (CLI) run, errors naming grid parameters and
// values, admission by cost (503 + Retry-After), cancel, and the journal file.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import type { EngineConfig } from '../../../src/config/schema.ts';
import { startHttpServer } from '../../../src/http/server.ts';
import { parseGrid } from '../../../src/sweep/grid.ts';
import { sweepCsv } from '../../../src/sweep/output.ts';
import { executeSweep, prepareSweep } from '../../../src/sweep/sweep.ts';
import { ensureBuilt } from '../../helpers/build.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { assertDocumented } from '../../helpers/openapi-check.ts';
import { openSse } from '../../helpers/sse-client.ts';
import { until, WAIT_MS } from '../../helpers/wait.ts';

const dir = mkdtempSync(join(tmpdir(), 'sweep-http-'));
const { logger } = capturingLogger();
const config = (extra = '') =>
  parseConfig(
    `data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n[backtest]\npool_size = 2\n[sweep]\nmax_points = 4\nmax_queued_sessions = 9\n${extra}`,
    'sweep.toml',
  );

async function start(cfg: EngineConfig) {
  const backtests = await BacktestService.open({ config: cfg, logger, dataDir: join(dir, 'journal') });
  const server = await startHttpServer({ runtime: new FakeRuntime(), config: cfg, logger, backtests }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  return { server, base: `http://127.0.0.1:${server.port}` };
}
async function call(base: string, path: string, init: RequestInit = {}) {
  const res = await fetch(base + path, init);
  return { res, body: (await res.json()) as Record<string, any> };
}
const post = (base: string, body: unknown) =>
  call(base, '/api/sweeps', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const DAY = { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-02' };

let app: Awaited<ReturnType<typeof start>>;
beforeAll(test, async () => {
  ensureBuilt();
  app = await start(config());
});
test.after(async () => {
  await app.server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('POST 202, progress on the stream, GET gives the points in grid order, equal to the local run', async () => {
  const stream = await openSse(`${app.base}/api/stream`);
  try {
    const { res, body } = await post(app.base, { ...DAY, grid: { spreadMultiplier: [1, 1.5], skewFactor: [0.5] } });
    assert.is(res.status, 202, JSON.stringify(body));
    assertDocumented('SweepRun', body);
    assert.is(res.headers.get('location'), `/api/sweeps/${body.id}`);
    assert.is(body.points, 2);
    assert.is(body.sessions, 2);
    const done = await until(
      'the sweep completes',
      async () => {
        const g = await call(app.base, `/api/sweeps/${body.id}`);
        return g.body.status !== 'running' && g.body;
      },
      { timeoutMs: WAIT_MS * 2 },
    );
    assert.is(done.status, 'completed', JSON.stringify(done.error));
    assertDocumented('SweepRun', done);
    const local = parseGrid(['spreadMultiplier=1,1.5', 'skewFactor=0.5']);
    assert.ok(local.ok);
    const prepared = prepareSweep({ base: DAY, axes: (local as any).value, naming: 'name' }, config());
    assert.ok(prepared.ok);
    const doc = await executeSweep((prepared as any).sweep);
    assert.equal(done.result, JSON.parse(JSON.stringify(doc)), 'HTTP and local runs give the same document');
    await until('sweep_progress with status completed', () => stream.of('sweep_progress').some((e) => JSON.parse(e.data).status === 'completed'));
    // The journal file: the index line, then the sweep.
    const journaled = JSON.parse(readFileSync(join(dir, 'sweeps', `${body.id}.jsonl`), 'utf8').split('\n')[1]);
    assert.equal(journaled, done);
    // GET /api/sweeps/{id}/csv: the file --out FILE.csv writes, byte for byte.
    const csv = await fetch(`${app.base}/api/sweeps/${body.id}/csv`);
    assert.is(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.is(await csv.text(), sweepCsv(doc));
  } finally {
    await stream.close();
  }
});

test('400s name the grid parameter and the value; more than [sweep] max_points is refused', async () => {
  const unknown = await post(app.base, { ...DAY, grid: { spread: [1] } });
  assert.is(unknown.res.status, 400);
  assert.is(unknown.body.error.fields[0].field, 'grid.spread');
  assert.match(unknown.body.error.fields[0].message, /unknown sweep parameter \(known: spreadMultiplier/);
  const bad = await post(app.base, { ...DAY, grid: { spreadMultiplier: [1, 0] } });
  assert.is(bad.res.status, 400);
  assert.is(bad.body.error.fields[0].field, 'grid.spreadMultiplier');
  assert.match(bad.body.error.fields[0].message, /expected a number > 0, got 0/);
  const type = await post(app.base, { ...DAY, grid: { useML: [1] } });
  assert.match(type.body.error.fields[0].message, /expected true or false, got 1/);
  const many = await post(app.base, { ...DAY, grid: { spreadMultiplier: [1, 2, 3], skewFactor: [0, 1] } });
  assert.is(many.res.status, 400);
  assert.equal(many.body.error.fields, [{ field: 'grid', message: '6 grid points, more than [sweep] max_points = 4' }]);
  const huge = await post(app.base, { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-08', grid: { skewFactor: [0, 1] } });
  assert.is(huge.res.status, 400);
  assert.match(huge.body.error.fields[0].message, /costs 10 sessions .*more than \[sweep\] max_queued_sessions = 9/);
  const missing = await call(app.base, '/api/sweeps/sw_nope');
  assert.is(missing.res.status, 404);
});

test('admission by cost: points x sessions over [sweep] max_queued_sessions is a 503 with Retry-After; DELETE cancels', async () => {
  const first = await post(app.base, { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-05', grid: { skewFactor: [0, 1] } });
  assert.is(first.res.status, 202, JSON.stringify(first.body));
  assert.is(first.body.sessions, 8, '2 points x 4 sessions');
  const second = await post(app.base, { ...DAY, grid: { skewFactor: [0, 0.5] } });
  assert.is(second.res.status, 503);
  assert.ok(Number(second.res.headers.get('retry-after')) >= 1);
  assert.match(second.body.error.message, /costs 2 sessions \(2 points\) and \d+ are running or queued: together over \[sweep\] max_queued_sessions = 9/);
  const del = await call(app.base, `/api/sweeps/${first.body.id}`, { method: 'DELETE' });
  assert.is(del.res.status, 200);
  assert.is(del.body.status, 'cancelled');
  assert.is(del.body.result, null);
  const again = await call(app.base, `/api/sweeps/${first.body.id}`, { method: 'DELETE' });
  assert.is(again.res.status, 409);
  const noCsv = await call(app.base, `/api/sweeps/${first.body.id}/csv`);
  assert.is(noCsv.res.status, 409, 'a cancelled sweep has no points to write');
  assert.is((await call(app.base, '/api/sweeps/sw_nope/csv')).res.status, 404);
  assert.ok(existsSync(join(dir, 'sweeps', `${first.body.id}.jsonl`)));
});

test.run();
