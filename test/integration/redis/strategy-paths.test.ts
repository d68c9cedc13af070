// A strategy written outside src/ (examples/strategies) gives the same results on every path a
// run can take: the CLI (the Piscina pool), inline in this process, over HTTP (a real
// BacktestService and pool), as a sweep point and through a BullMQ queue worker (real
// redis-server). Runs name the strategy; a request carrying a path is refused naming the field;
// a worker without the strategy, or with another version of it, fails the job saying so.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer } from '../../../src/http/server.ts';
import { loadStrategies } from '../../../src/strategy/load.ts';
import { ensureBuilt } from '../../helpers/build.ts';
import { ROOT, runCli, tempDir } from '../../helpers/cli.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { QueueProcesses, stop } from '../../helpers/queue-processes.ts';
import { until, WAIT_MS } from '../../helpers/wait.ts';

const QUOTER = join(ROOT, 'examples', 'strategies', 'imbalance-quoter.ts');
const TAKER = join(ROOT, 'examples', 'strategies', 'breakout-taker.ts');
const THROWS = join(ROOT, 'test', 'fixtures', 'strategies', 'throws-in-quote.ts');
const dir = tempDir('strategy-paths-');
const TOML = `data_dir = ${JSON.stringify(join(dir, 'data'))}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n[backtest]\npool_size = 2\n`;
const CONFIG = join(dir, 'config.toml');
writeFileSync(CONFIG, TOML);
const config = parseConfig(TOML, CONFIG);
const DATES = ['--start', '2024-01-02', '--end', '2024-01-03'];
const REQUEST = { symbol: 'ESH24', startDate: '2024-01-02', endDate: '2024-01-03', strategy: 'imbalance_quoter', params: { threshold: 0.7 } };

const procs = new QueueProcesses();
beforeAll(test, async () => {
  ensureBuilt();
  await loadStrategies([QUOTER, TAKER, THROWS]);
  await procs.startRedis();
});
test.after(() => procs.stopAll());

/** The CLI's --json result (sessions on the pool). */
function cliResult(args: string[]): Record<string, unknown> {
  const r = runCli(['--backtest', '--json', '--config', CONFIG, ...DATES, ...args]);
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function inlineResult(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const v = validateBacktestRequest(body, config);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const { result } = await runBacktest(v.request, config, { pool: null });
  return JSON.parse(JSON.stringify(result));
}

const QUOTER_ARGS = ['--strategy-file', QUOTER, '--strategy', 'imbalance_quoter', '--param', 'threshold=0.7'];

test('a strategy from a file: the same result from the CLI (pool) and inline, with its identity in the result', async () => {
  const cli = cliResult(QUOTER_ARGS);
  const inline = await inlineResult(REQUEST);
  assert.equal(inline, cli);
  const s = cli.strategy as { name: string; version: string; hash: string; params: Record<string, unknown> };
  assert.is(s.name, 'imbalance_quoter');
  assert.is(s.version, '1.0.0');
  assert.match(s.hash, /^[0-9a-f]{64}$/);
  assert.equal(s.params, { size: 1, threshold: 0.7, max_position: 10, refresh_ms: 1000 });
  assert.ok((cli.total_fills as number) > 0, 'the example strategy trades on the shipped session');
  // The imperative example too.
  const taker = cliResult(['--strategy-file', TAKER, '--strategy', 'breakout_taker']);
  assert.ok((taker.total_fills as number) > 0, 'the breakout example trades');
  assert.equal(await inlineResult({ symbol: 'ESH24', startDate: '2024-01-02', endDate: '2024-01-03', strategy: 'breakout_taker' }), taker);
});

test('a sweep point of the strategy equals the single run with the same parameters', () => {
  const out = join(dir, 'sweep.json');
  const r = runCli([
    '--config',
    CONFIG,
    ...DATES,
    '--strategy-file',
    QUOTER,
    '--strategy',
    'imbalance_quoter',
    '--sweep',
    'params.threshold=0.5,0.7',
    '--out',
    out,
  ]);
  assert.is(r.code, 0, r.stderr);
  const doc = JSON.parse(readFileSync(out, 'utf8')) as { points: { params: Record<string, unknown>; result: Record<string, unknown> }[] };
  const point = doc.points.find((p) => p.params['params.threshold'] === 0.7)!;
  const single = cliResult(QUOTER_ARGS);
  for (const k of ['total_pnl', 'sharpe_ratio', 'max_drawdown_pct', 'total_fills', 'fees', 'markouts', 'sessions']) assert.equal(point.result[k], single[k], k);
  assert.not.equal(doc.points[0].result.total_pnl, point.result.total_pnl, 'the axis moves the result');
});

test('over HTTP: named strategy and params give the same result; a path, an unknown name or a bad value is a 400 naming the field', async () => {
  // The CLI's run first: spawnSync blocks this process, and with it the server below, whose
  // keep-alive timer would then close the client's pooled connection as the next request goes out.
  const cli = cliResult(QUOTER_ARGS);
  const { logger } = capturingLogger();
  const backtests = await BacktestService.open({ config, logger, dataDir: join(dir, 'journal'), poolSize: 2 });
  const server = await startHttpServer({ runtime: new FakeRuntime(), config, logger, backtests }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  const base = `http://127.0.0.1:${server.port}`;
  const post = async (body: unknown) => {
    const res = await fetch(`${base}/api/backtest`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  try {
    const listed = (await (await fetch(`${base}/api/strategies`)).json()) as {
      default: string;
      strategies: { name: string; hash: string; wakes: string; params: { properties: Record<string, unknown> } }[];
    };
    assert.is(listed.default, 'market_maker');
    const q = listed.strategies.find((s) => s.name === 'imbalance_quoter')!;
    assert.is(q.wakes, 'touch');
    assert.equal(Object.keys(q.params.properties), ['size', 'threshold', 'max_position', 'refresh_ms']);

    const ok = await post(REQUEST);
    assert.is(ok.status, 200, JSON.stringify(ok.body));
    // The run record carries the result's fields (the equity curve resampled for the API).
    const shared = Object.keys(cli).filter((k) => k in ok.body && k !== 'equity_curve');
    assert.ok(shared.length > 30 && shared.includes('strategy') && shared.includes('total_pnl'), shared.join(', '));
    for (const k of shared) assert.equal(ok.body[k], cli[k], k);
    assert.is(ok.body.strategy.hash, q.hash);

    for (const [body, field] of [
      [{ ...REQUEST, strategy: '../x.mjs' }, 'strategy'],
      [{ ...REQUEST, strategy: 'no_such_strategy' }, 'strategy'],
      [{ ...REQUEST, params: { threshold: 2 } }, 'params.threshold'],
      [{ ...REQUEST, params: { nope: 1 } }, 'params.nope'],
      [{ ...REQUEST, spreadMultiplier: 2 }, 'spreadMultiplier'],
    ] as const) {
      const bad = await post(body);
      assert.is(bad.status, 400, JSON.stringify(bad.body));
      assert.ok(
        bad.body.error.fields.some((f: { field: string }) => f.field === field),
        `${JSON.stringify(body)}: ${JSON.stringify(bad.body.error)}`,
      );
    }
    // A strategy that throws: the run fails naming it (callback, date, exchange time); the next run is served as usual.
    const failed = await post({ ...REQUEST, strategy: 'throws_in_quote', params: {} });
    assert.is(failed.status, 500, JSON.stringify(failed.body));
    const run = (await (await fetch(`${base}/api/backtests?limit=1`)).json()) as { runs: { id: string; status: string; error: { message: string } | null }[] };
    assert.is(run.runs[0].status, 'failed');
    assert.match(
      run.runs[0].error!.message,
      /strategy throws_in_quote threw in quote\(\) at exchange time 2024-01-0[23]T\d\d:\d\d:\d\d\.\d{9}Z .*deliberate failure/,
    );
    const after = await post(REQUEST);
    assert.is(after.status, 200, JSON.stringify(after.body));
    assert.is(after.body.total_pnl, ok.body.total_pnl);

    const range = await post({ ...REQUEST, params: { threshold: 2 } });
    assert.match(range.body.error.fields[0].message, /<= 1/);
    assert.match(range.body.error.fields[0].message, /got 2/);
  } finally {
    await server.close();
    await backtests.close();
  }
});

test('through a BullMQ worker: the same result; a worker without the strategy, or another version, fails the job naming it', async () => {
  const good = procs.spawn(['--worker', '--queue', procs.url, '--config', CONFIG, '--strategy-file', QUOTER]);
  await until('the worker is ready', () => good.log().includes('queue worker ready'), { timeoutMs: WAIT_MS, child: good.child, context: good.log });
  try {
    const run = procs.spawn(['--backtest', '--json', '--config', CONFIG, ...DATES, ...QUOTER_ARGS, '--queue', procs.url]);
    let stdout = '';
    run.child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
    const code = await new Promise<number | null>((r) => run.child.once('exit', (c) => r(c)));
    assert.is(code, 0, run.log());
    assert.equal(JSON.parse(stdout), cliResult(QUOTER_ARGS));
    assert.ok(good.log().includes('session job started'), 'the worker ran the sessions');
  } finally {
    await stop(good.child);
  }

  // A worker that loaded another version of the file (same name, another content hash).
  const other = join(dir, 'imbalance-quoter-v2.ts');
  copyFileSync(QUOTER, other);
  const port = JSON.stringify(join(ROOT, 'src', 'strategy', 'port.ts'));
  writeFileSync(other, readFileSync(other, 'utf8').replace("version: '1.0.0'", "version: '1.0.1'").replace("'../../src/strategy/port.ts'", port));
  const stale = procs.spawn(['--worker', '--queue', procs.url, '--config', CONFIG, '--strategy-file', other]);
  await until('the other worker is ready', () => stale.log().includes('queue worker ready'), { timeoutMs: WAIT_MS, child: stale.child, context: stale.log });
  try {
    const run = procs.spawn(['--backtest', '--json', '--config', CONFIG, ...DATES, ...QUOTER_ARGS, '--queue', procs.url]);
    const code = await new Promise<number | null>((r) => run.child.once('exit', (c) => r(c)));
    assert.is(code, 1, run.log());
    assert.match(run.log(), /strategy 'imbalance_quoter' on worker .* is not the submitter's/);
  } finally {
    await stop(stale.child);
  }

  // A worker that never loaded it.
  const bare = await procs.startWorker(CONFIG);
  try {
    const run = procs.spawn(['--backtest', '--json', '--config', CONFIG, ...DATES, ...QUOTER_ARGS, '--queue', procs.url]);
    const code = await new Promise<number | null>((r) => run.child.once('exit', (c) => r(c)));
    assert.is(code, 1, run.log());
    assert.match(run.log(), /strategy 'imbalance_quoter' is not loaded on worker/);
  } finally {
    await stop(bare.child);
  }
});

test.run();
