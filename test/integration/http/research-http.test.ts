// GET /api/backtests/{id}/{fills.csv,fills.parquet,equity.csv,orders.*,quotes.*,report}: recomputed from the
// stored request, equal to the same run computed here, refused (409) when the run cannot be
// recomputed as it ran (the model is gone, the config changed).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { fillsCsv } from '../../../src/research/fills-csv.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer } from '../../../src/http/server.ts';
import { equityTable, toCsv } from '../../../src/research/fill-table.ts';
import { orderTable, quoteTable } from '../../../src/research/order-table.ts';

const dir = mkdtempSync(join(tmpdir(), 'research-http-'));
const { logger } = capturingLogger();
const toml = (extra = '') =>
  `data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n[backtest]\npool_size = 2\n${extra}`;
const config = parseConfig(toml(), 'short.toml');
const BODY = { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-03', seed: 7 };

async function start(cfg = config) {
  const backtests = await BacktestService.open({ config: cfg, logger, dataDir: join(dir, 'journal') });
  const server = await startHttpServer({ runtime: new FakeRuntime(), config: cfg, logger, backtests }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  return { server, base: `http://127.0.0.1:${server.port}` };
}

async function post(base: string, body: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${base}/api/backtest`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  assert.is(res.status, 200);
  return (await res.json()) as Record<string, any>;
}

let srv: Awaited<ReturnType<typeof start>>;
let run: Record<string, any>;
let mlRun: Record<string, any>;

beforeAll(test, async () => {
  ensureBuilt();
  srv = await start();
  run = await post(srv.base, BODY);
  mlRun = await post(srv.base, { ...BODY, endDate: '2024-01-02', useML: true });
});

test.after(async () => {
  await srv.server.close();
  rmSync(dir, { recursive: true, force: true });
});

test("orders.csv/.parquet and quotes.csv/.parquet: the same run's order log and quote series as computed here", async () => {
  const v = validateBacktestRequest(BODY, config);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const local = await runBacktest(v.request, config, { collectFills: true, record: { orders: true, quotes: true } });
  for (const [name, want] of [
    ['orders.csv', toCsv(orderTable(v.request, local.sessions))],
    ['quotes.csv', toCsv(quoteTable(v.request, local.sessions))],
  ] as const) {
    const res = await fetch(`${srv.base}/api/backtests/${run.id}/${name}`);
    assert.is(res.status, 200, name);
    assert.match(res.headers.get('content-type') ?? '', 'text/csv');
    const body = await res.text();
    assert.ok(body.split('\n').length > 100, `${name} has rows`);
    assert.is(body, want, name);
  }
  const counts = (await (await fetch(`${srv.base}/api/backtests/${run.id}/orders.csv`)).text()).split('\n').filter((l) => l.includes(',send,')).length;
  assert.is(counts, local.result.orders_sent, 'a send row per order sent');
  for (const name of ['orders.parquet', 'quotes.parquet']) {
    const res = await fetch(`${srv.base}/api/backtests/${run.id}/${name}`);
    assert.is(res.status, 200, name);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.is(new TextDecoder().decode(bytes.subarray(0, 4)), 'PAR1', name);
  }
});

test('fills.csv and equity.csv equal the same run computed here, every row and every sample', async () => {
  const v = validateBacktestRequest(BODY, config);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const local = await runBacktest(v.request, config, { collectFills: true });
  const fills = await fetch(`${srv.base}/api/backtests/${run.id}/fills.csv`);
  assert.is(fills.status, 200);
  assert.is(fills.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.is(fills.headers.get('content-disposition'), `attachment; filename="${run.id}-fills.csv"`);
  const csv = await fills.text();
  assert.is(csv, fillsCsv(v.request, local.sessions));
  assert.is(csv.trimEnd().split('\n').length, run.total_fills + 1);
  const equity = await (await fetch(`${srv.base}/api/backtests/${run.id}/equity.csv`)).text();
  assert.is(equity, toCsv(equityTable(local.result.equity_curve)));
  assert.is(equity.trimEnd().split('\n').length, local.result.equity_curve.length + 1);
});

test("fills.parquet is a Parquet file; report is HTML with the run's figures", async () => {
  const pq = await fetch(`${srv.base}/api/backtests/${run.id}/fills.parquet`);
  assert.is(pq.headers.get('content-type'), 'application/vnd.apache.parquet');
  const bytes = new Uint8Array(await pq.arrayBuffer());
  const magic = (b: Uint8Array) => new TextDecoder().decode(b);
  assert.is(magic(bytes.subarray(0, 4)), 'PAR1');
  assert.is(magic(bytes.subarray(bytes.length - 4)), 'PAR1');
  const rep = await fetch(`${srv.base}/api/backtests/${run.id}/report`);
  assert.is(rep.headers.get('content-type'), 'text/html; charset=utf-8');
  const html = await rep.text();
  assert.ok(html.includes(`data-figure="total_pnl" data-value="${JSON.stringify(run.total_pnl)}"`), 'total_pnl in full precision');
  assert.ok(!/<script|https?:\/\//.test(html), 'no script, no network reference');
});

test('unknown id: 404 JSON naming it', async () => {
  const res = await fetch(`${srv.base}/api/backtests/bt_nope/report`);
  assert.is(res.status, 404);
  assert.match(((await res.json()) as any).error.message, "'bt_nope'");
});

test('a run that cannot be recomputed as it ran: 409 JSON saying why', async () => {
  await srv.server.close();
  // Same journal, the model turned off: the ML run's model is not available.
  srv = await start(parseConfig(toml('[model]\nenabled = false\n'), 'no-model.toml'));
  let res = await fetch(`${srv.base}/api/backtests/${mlRun.id}/fills.csv`);
  assert.is(res.status, 409);
  let body = (await res.json()) as any;
  assert.is(body.error.code, 'conflict');
  assert.match(body.error.message, mlRun.model_version);
  await srv.server.close();
  // Same journal, shorter sessions: the recomputation would not be the stored run.
  srv = await start(parseConfig(toml().replace('09:45', '09:40'), 'changed.toml'));
  res = await fetch(`${srv.base}/api/backtests/${run.id}/report`);
  assert.is(res.status, 409);
  body = (await res.json()) as any;
  assert.match(body.error.message, 'does not recompute to its stored result');
});

test.run();
