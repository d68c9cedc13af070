// Backtests over HTTP with a real BacktestService and a real Piscina pool (dist/workers/backtest.js,
// built first): the reference request, list/get, async mode and cancel, pool busy (503 +
// Retry-After), a failed run (500 JSON, logged), a long run while /health and the stream stay
// responsive, shutdown cancelling a running backtest.

import { ensureBuilt } from '../../helpers/build.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { assertDocumented, eventComponent } from '../../helpers/openapi-check.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { openSse } from '../../helpers/sse-client.ts';
import { sleep, until, WAIT_MS } from '../../helpers/wait.ts';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BacktestService, type Runner } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer } from '../../../src/http/server.ts';

/** Rebuilds dist/ when the pool's worker bundle is missing or older than a source file. */
const dir = mkdtempSync(join(tmpdir(), 'http-backtest-'));
const { logger, lines: logLines } = capturingLogger();
// Short sessions (15 simulated minutes, ~0.5 s each) for most tests.
const shortConfig = parseConfig(
  `data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n[backtest]\nmax_days = 10\npool_size = 2\n`,
  'short.toml',
);
// Full sessions (~3-4 s each) for the long run.
const longConfig = parseConfig(`data_dir = ${JSON.stringify(dir)}\n[backtest]\nmax_days = 10\npool_size = 2\n[http]\nstream_hz = 10\n`, 'long.toml');

const REFERENCE = { symbol: 'ES', initialCapital: 100000, useML: false };

async function start(config = shortConfig, opts: { runner?: Runner; maxQueuedSessions?: number; poolSize?: number; dataDir?: string } = {}) {
  const runtime = new FakeRuntime();
  const backtests = await BacktestService.open({
    config,
    logger,
    dataDir: opts.dataDir ?? join(dir, 'journal'),
    poolSize: opts.poolSize,
    maxQueuedSessions: opts.maxQueuedSessions,
    runner: opts.runner,
  });
  const server = await startHttpServer({ runtime, config, logger, backtests }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  return { server, backtests, runtime, base: `http://127.0.0.1:${server.port}` };
}

async function call(base: string, path: string, init: RequestInit = {}) {
  const res = await fetch(base + path, init);
  const body = (await res.json()) as Record<string, any>;
  return { res, body };
}
const postJson = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  call(base, '/api/backtest', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

let main: Awaited<ReturnType<typeof start>>;

beforeAll(test, async () => {
  ensureBuilt();
  main = await start();
});

test.after(async () => {
  await main.server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('reference request {"symbol":"ES","initialCapital":100000,"useML":false} returns the result', async () => {
  const t0 = performance.now();
  const { res, body } = await postJson(main.base, REFERENCE);
  const ms = performance.now() - t0;
  assert.is(res.status, 200, JSON.stringify(body).slice(0, 300));
  console.log(
    `  reference backtest (1 session of 15 min): ${ms.toFixed(0)} ms over HTTP, duration_ms ${body.duration_ms}, total_pnl ${body.total_pnl}, trades ${body.total_trades}`,
  );
  for (const k of ['total_pnl', 'sharpe_ratio', 'max_drawdown_pct', 'win_rate', 'total_trades']) assert.type(body[k], 'number', k);
  assert.ok(body.total_trades > 0, 'the strategy trades');
  assert.ok(body.win_rate >= 0 && body.win_rate <= 1);
  assert.ok(body.max_drawdown_pct >= 0);
  assert.is(body.status, 'completed');
  assert.match(body.id, /^bt_\d{8}T\d{9}Z_/);
  assert.ok(Date.parse(body.finished_at) >= Date.parse(body.started_at));
  assert.ok(body.duration_ms > 0 && body.duration_ms < ms + 50);
  // measured in ns and not rounded (a whole number of ms has a chance of 1 in 10^6)
  assert.ok(!Number.isInteger(body.duration_ms), `duration_ms ${body.duration_ms} looks rounded`);
  assert.is(body.initial_capital, 100000);
  assert.is(body.symbol, 'ES');
  assert.is(body.use_ml, false);
  assert.ok(Math.abs(body.final_equity - body.initial_capital - body.total_pnl) < 0.011, 'total_pnl = final equity - initial capital');
  assert.ok(body.equity_curve.length >= 2 && body.equity_curve.length <= 500);
  assert.ok(Math.abs(body.equity_curve[body.equity_curve.length - 1].equity - body.final_equity) < 0.011, 'curve ends at the final equity');
  assertDocumented('BacktestRun', body);
  // Deterministic: the same request gives the same figures.
  const again = await postJson(main.base, REFERENCE);
  assert.is(again.body.total_pnl, body.total_pnl);
  assert.is(again.body.total_trades, body.total_trades);
  assert.is.not(again.body.id, body.id);
});

test('GET /api/backtests lists newest first without curves; GET /api/backtests/:id; 404 for an unknown id', async () => {
  const { res, body } = await call(main.base, '/api/backtests');
  assert.is(res.status, 200);
  assert.ok(body.total >= 2);
  const ids = body.runs.map((r: { id: string }) => r.id);
  assert.equal(ids, [...ids].sort().reverse(), 'newest first');
  for (const r of body.runs) {
    assert.is(r.equity_curve, undefined, 'no equity curve in the list');
    assertDocumented('BacktestListItem', r);
  }
  const limited = await call(main.base, '/api/backtests?limit=1');
  assert.is(limited.body.runs.length, 1);
  assert.is(limited.body.runs[0].id, ids[0]);
  const bad = await call(main.base, '/api/backtests?limit=0');
  assert.is(bad.res.status, 400);
  const one = await call(main.base, `/api/backtests/${ids[0]}`);
  assert.is(one.res.status, 200);
  assert.is(one.body.id, ids[0]);
  assert.ok(one.body.equity_curve.length >= 2);
  assertDocumented('BacktestRun', one.body);
  const missing = await call(main.base, '/api/backtests/bt_20240101T000000000Z_0001_abcdef');
  assert.is(missing.res.status, 404);
  assert.is(missing.body.error.code, 'not_found');
  const journal = JSON.parse(readFileSync(join(dir, 'journal', 'backtests', `${ids[0]}.jsonl`), 'utf8').split('\n')[1]);
  assert.is(journal.status, 'completed');
  assert.is(journal.resolved.initialCapital, REFERENCE.initialCapital, 'the validated request is journaled');
  assert.is(journal.result.total_pnl, one.body.total_pnl);
});

test('a list item says whether the kill switch stopped the run, also for runs journaled before it did', async () => {
  const stopped = await postJson(main.base, { ...REFERENCE, initialCapital: 2000, maxDrawdown: 0.01 });
  assert.is(stopped.res.status, 200, JSON.stringify(stopped.body).slice(0, 300));
  assert.is(stopped.body.kill_switch.tripped, true, 'this request trips the kill switch');
  const { body } = await call(main.base, '/api/backtests?limit=50');
  const item = body.runs.find((r: { id: string }) => r.id === stopped.body.id);
  assert.is(item.status, 'completed');
  assert.is(item.kill_switch_tripped, true);
  assertDocumented('BacktestListItem', item);
  const plain = body.runs.find((r: { id: string; status: string }) => r.id !== stopped.body.id && r.status === 'completed');
  assert.is(plain.kill_switch_tripped, false);
  // A journal written before the field: the index line lacks it; opening the journal reads the record.
  const old = join(dir, 'old-journal');
  mkdirSync(join(old, 'backtests'), { recursive: true });
  const text = readFileSync(join(dir, 'journal', 'backtests', `${stopped.body.id}.jsonl`), 'utf8');
  const [head, record] = text.split('\n');
  const entry = JSON.parse(head);
  delete entry.kill_switch_tripped;
  for (let bytes = 0; ; ) {
    entry.bytes = bytes;
    const total = Buffer.byteLength(JSON.stringify(entry)) + Buffer.byteLength(record) + 2;
    if (total === bytes) break;
    bytes = total;
  }
  writeFileSync(join(old, 'backtests', `${stopped.body.id}.jsonl`), `${JSON.stringify(entry)}\n${record}\n`);
  const reopened = await start(shortConfig, { dataDir: old });
  try {
    const listed = await call(reopened.base, '/api/backtests');
    assert.equal(
      listed.body.runs.map((r: { id: string; kill_switch_tripped: boolean }) => [r.id, r.kill_switch_tripped]),
      [[stopped.body.id, true]],
    );
  } finally {
    await reopened.server.close();
    await reopened.backtests.close();
  }
});

test("{} runs the config's defaults: symbol is the root of the first configured symbol", async () => {
  const { res, body } = await postJson(main.base, {});
  assert.is(res.status, 200, JSON.stringify(body).slice(0, 300));
  assertDocumented('BacktestRun', body);
  const c = shortConfig;
  assert.is(c.trading.symbols[0], 'ESH24');
  assert.equal(
    {
      symbol: body.resolved.symbol,
      root: body.resolved.root,
      startDate: body.resolved.startDate,
      endDate: body.resolved.endDate,
      initialCapital: body.resolved.initialCapital,
      seed: body.resolved.seed,
      useML: body.resolved.useML,
    },
    {
      symbol: 'ES',
      root: 'ES',
      startDate: c.simulation.start_date,
      endDate: c.simulation.end_date,
      initialCapital: c.trading.initial_capital,
      seed: c.simulation.seed,
      useML: c.strategy.use_ml,
    },
  );
  assert.is(body.status, 'completed');
  assert.is(body.symbol, 'ES');
});

test('Prefer: respond-async gives 202 + Location; DELETE cancels (409 once finished); pool busy is 503 with Retry-After', async () => {
  const app = await start(shortConfig, { poolSize: 1, maxQueuedSessions: 9, dataDir: join(dir, 'busy') });
  try {
    const first = await postJson(app.base, { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-12' }, { prefer: 'respond-async' });
    assert.is(first.res.status, 202);
    assert.is(first.body.status, 'running');
    assertDocumented('BacktestRun', first.body);
    assert.is(first.res.headers.get('location'), `/api/backtests/${first.body.id}`);
    const busy = await postJson(app.base, REFERENCE);
    assert.is(busy.res.status, 503);
    assert.is(busy.body.error.code, 'busy');
    assertDocumented('Error', busy.body);
    const retry = Number(busy.res.headers.get('retry-after'));
    assert.ok(Number.isInteger(retry) && retry >= 1, `Retry-After ${retry}`);
    const del = await call(app.base, `/api/backtests/${first.body.id}`, { method: 'DELETE' });
    assert.is(del.res.status, 200);
    assert.is(del.body.status, 'cancelled');
    assertDocumented('BacktestRun', del.body);
    assert.ok(del.body.duration_ms < WAIT_MS, 'cancelled, not run to the end');
    const again = await call(app.base, `/api/backtests/${first.body.id}`, { method: 'DELETE' });
    assert.is(again.res.status, 409);
    assert.is(again.body.error.code, 'conflict');
    assertDocumented('Error', again.body);
    // Capacity is back: an async run completes and can be polled.
    const next = await postJson(app.base, REFERENCE, { prefer: 'respond-async' });
    assert.is(next.res.status, 202);
    const polled = await until(
      'the async run to finish',
      async () => {
        const run = (await call(app.base, `/api/backtests/${next.body.id}`)).body;
        return run.status !== 'running' && run;
      },
      { timeoutMs: 2 * WAIT_MS, everyMs: 50 },
    );
    assert.is(polled.status, 'completed');
    assertDocumented('BacktestRun', polled);
    assert.type(polled.total_pnl, 'number');
    const journal = JSON.parse(readFileSync(join(dir, 'busy', 'backtests', `${first.body.id}.jsonl`), 'utf8').split('\n')[1]);
    assert.is(journal.status, 'cancelled');
    const m = await (await fetch(app.base + '/metrics')).text();
    assert.match(m, /engine_backtests_total\{outcome="rejected_busy"\} 1/);
    assert.match(m, /engine_backtests_total\{outcome="cancelled"\} 1/);
    assert.match(m, /engine_backtest_duration_seconds_count\{outcome="completed"\} 1/);
  } finally {
    await app.server.close();
  }
});

test('a failed run is a 500 JSON naming the run, journaled and logged; the server keeps serving', async () => {
  const runner: Runner = async () => {
    throw new Error('model file models/es.json is corrupt');
  };
  const app = await start(shortConfig, { runner, dataDir: join(dir, 'failed') });
  try {
    const { res, body } = await postJson(app.base, REFERENCE);
    assert.is(res.status, 500);
    assert.is(body.error.code, 'backtest_failed');
    assert.match(body.error.message, /corrupt/);
    assertDocumented('Error', body);
    const list = await call(app.base, '/api/backtests');
    assert.is(list.body.runs[0].status, 'failed');
    assert.match(list.body.runs[0].error.message, /corrupt/);
    assertDocumented('BacktestList', list.body);
    assert.ok(logLines.some((l) => l.includes('"level":"error"') && l.includes('corrupt')));
    assert.is((await fetch(app.base + '/health')).status, 200);
  } finally {
    await app.server.close();
  }
});

test('a long backtest runs on the pool: /health and the stream stay responsive; progress and completion events', async () => {
  const app = await start(longConfig, { dataDir: join(dir, 'long') });
  let stream: Awaited<ReturnType<typeof openSse>> | null = null;
  try {
    stream = await openSse(app.base + '/api/stream');
    const events = stream.events;
    // Two business days of full sessions, one per pool thread.
    const t0 = performance.now();
    const tStart = Date.now();
    // (the model's strategy: the account's kill switch does not stop it after the first day)
    const pending = postJson(app.base, { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-03', initialCapital: 1_000_000, useML: true });
    let finished = false;
    void pending.then(() => (finished = true));
    const lat: number[] = [];
    while (!finished && performance.now() - t0 < 25_000) {
      const h0 = performance.now();
      const h = await fetch(app.base + '/health');
      const hb = (await h.json()) as { status: string; backtests: { running: number } };
      lat.push(performance.now() - h0);
      assert.is(h.status, 200);
      assert.is(hb.status, 'ok');
      await sleep(25);
    }
    const { res, body } = await pending;
    const wall = performance.now() - t0;
    assert.is(res.status, 200, JSON.stringify(body).slice(0, 300));
    assert.is(body.sessions, 2);
    assert.ok(body.equity_curve.length <= 500, `curve downsampled to ${body.equity_curve.length}`);
    assert.ok(body.equity_curve.length >= 400, 'two sessions of minute samples (781) are downsampled, not truncated');
    await until('the completion event', () => stream!.of('backtest_complete').length > 0);
    await stream.close();
    const sorted = [...lat].sort((a, b) => a - b);
    const states = events.filter((e) => e.event === 'state' && e.at >= tStart);
    const progress = events.filter((e) => e.event === 'backtest_progress').map((e) => JSON.parse(e.data));
    const complete = events.filter((e) => e.event === 'backtest_complete').map((e) => JSON.parse(e.data));
    console.log(
      `  long backtest: 2 full sessions in ${(wall / 1000).toFixed(2)} s (duration_ms ${body.duration_ms}, ${body.events_processed} events); ` +
        `/health during it: ${lat.length} calls, p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, p99 ${sorted[Math.floor(sorted.length * 0.99)].toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms; ` +
        `stream: ${states.length} state events (${(states.length / (wall / 1000)).toFixed(1)}/s at stream_hz 10), ${progress.length} progress events`,
    );
    assert.ok(lat.length >= 20, `/health answered ${lat.length} times during the run`);
    // Had the run blocked the main thread, one /health call or one gap between state events would
    // have lasted most of the run.
    assert.ok(sorted[sorted.length - 1] < wall / 2, `/health max ${sorted[sorted.length - 1].toFixed(0)} ms during a ${wall.toFixed(0)} ms backtest`);
    const gaps = states.slice(1).map((e, i) => e.at - states[i].at);
    assert.ok(
      states.length >= 10 && Math.max(...gaps) < wall / 2,
      `state events kept flowing during the run (${states.length}, largest gap ${Math.max(...gaps)} ms)`,
    );
    assert.ok(progress.length >= 2, 'progress events');
    assert.ok(progress.every((p) => p.id === body.id && p.progress >= 0 && p.progress <= 1));
    assert.ok(progress[progress.length - 1].progress >= progress[0].progress);
    assert.is(complete.length, 1);
    assert.is(complete[0].id, body.id);
    assert.is(complete[0].status, 'completed');
    assert.is(complete[0].total_pnl, body.total_pnl);
    assert.is(complete[0].equity_curve, undefined);
    for (const p of progress) assertDocumented(eventComponent('backtest_progress'), p);
    assertDocumented(eventComponent('backtest_complete'), complete[0]);
  } finally {
    await stream?.close();
    await app.server.close();
  }
});

test('shutdown cancels a running backtest (its POST answers 503, journaled cancelled) and returns promptly', async () => {
  const app = await start(longConfig, { dataDir: join(dir, 'shutdown') });
  const pending = postJson(app.base, { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-03' });
  await until('the run to start', () => app.backtests.running > 0);
  await sleep(300);
  assert.is(app.backtests.running, 1);
  const t0 = performance.now();
  await app.server.close();
  const ms = performance.now() - t0;
  const { res, body } = await pending;
  console.log(`  close() with a running backtest took ${ms.toFixed(0)} ms`);
  assert.ok(ms < WAIT_MS, `close took ${ms.toFixed(0)} ms`); // the 503 below shows it did not wait for the run
  assert.is(res.status, 503);
  assert.is(body.error.code, 'cancelled');
  const files = readdirSync(join(dir, 'shutdown', 'backtests'));
  assert.is(files.length, 1);
  const rec = JSON.parse(readFileSync(join(dir, 'shutdown', 'backtests', files[0]), 'utf8').split('\n')[1]);
  assert.is(rec.status, 'cancelled');
  assert.match(rec.error.message, /shutting down/);
  assert.type(rec.finished_at, 'string');
});

test.run();
