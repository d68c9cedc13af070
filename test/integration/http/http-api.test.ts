// HTTP API over a real server on 127.0.0.1 (ephemeral port) with a fake runtime: health, state,
// metrics (promtool), OpenAPI accuracy, errors (404/405/413/415/400/500), CORS.
// No backtest runs here (see http-backtest.test.ts); the service only validates.

import { capturingLogger } from '../../helpers/log.ts';
import { assertDocumented, schemaErrors } from '../../helpers/openapi-check.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { beforeAll } from '../../helpers/hooks.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { documentWithStrategies } from '../../../src/http/routes/openapi.ts';
import { startHttpServer, type HttpServer } from '../../../src/http/server.ts';
import { VERSION } from '../../../src/version.ts';

const dir = mkdtempSync(join(tmpdir(), 'http-api-'));
const config = parseConfig(
  `data_dir = ${JSON.stringify(dir)}
[simulation]
session_start = "09:30"
session_end = "09:45"
[backtest]
max_days = 5
pool_size = 1
[http]
cors_origins = ["http://localhost:3000"]
stream_hz = 10
`,
  'http-api.toml',
);
const { logger, lines: logLines } = capturingLogger();
const runtime = new FakeRuntime({ symbols: ['ESH24', 'NQH24'] });
let server: HttpServer;
let base = '';

async function getJson(path: string, init?: RequestInit) {
  const res = await fetch(base + path, init);
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    assert.unreachable(`${path}: response is not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
  return { res, body: body as Record<string, any> };
}

function assertError(body: Record<string, any>, code: string) {
  assert.type(body.error, 'object', 'error envelope');
  assert.is(body.error.code, code);
  assert.type(body.error.message, 'string');
  assert.ok(body.error.message.length > 0);
  assertDocumented('Error', body);
}

beforeAll(test, async () => {
  const backtests = await BacktestService.open({ config, logger, poolSize: 1 });
  server = await startHttpServer({ runtime, config, logger, backtests }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  base = `http://127.0.0.1:${server.port}`;
});

test.after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('GET /health: 200 ok with workers, 503 degraded with the same shape', async () => {
  const before = (Date.now() - runtime.startedAtMs) / 1000;
  const ok = await getJson('/health');
  const after = (Date.now() - runtime.startedAtMs) / 1000;
  assert.is(ok.res.status, 200);
  assert.match(ok.res.headers.get('content-type') ?? '', /application\/json/);
  assert.is(ok.body.status, 'ok');
  assert.is(ok.body.version, VERSION);
  // Since the runtime started (the suite may have run for many minutes before this file's tests).
  assert.ok(ok.body.uptime_s >= Math.floor(before) && ok.body.uptime_s <= after + 0.001, `uptime_s ${ok.body.uptime_s} not in [${before}, ${after}]`);
  assert.equal(
    ok.body.workers.map((w: { name: string }) => w.name),
    ['market-data', 'order-book', 'inference'],
  );
  assert.is(ok.body.workers[0].state, 'running');
  assert.is(ok.body.backtests.pool_size, 1);
  assertDocumented('Health', ok.body);

  runtime.healthy = false;
  try {
    const bad = await getJson('/health');
    assert.is(bad.res.status, 503);
    assert.is(bad.body.status, 'degraded');
    assert.is(bad.body.workers.find((w: { name: string }) => w.name === 'order-book').state, 'stalled');
    assert.equal(Object.keys(bad.body).sort(), Object.keys(ok.body).sort());
    assertDocumented('Health', bad.body);
  } finally {
    runtime.healthy = true;
  }
});

test('GET /api/state: every symbol, documented fields, values change over time', async () => {
  runtime.emitFill('ESH24', 'buy');
  runtime.emitFill('NQH24', 'sell');
  const a = await getJson('/api/state');
  assert.is(a.res.status, 200);
  assert.equal(a.body.symbols, ['ESH24', 'NQH24']);
  assert.equal(Object.keys(a.body.states), ['ESH24', 'NQH24']);
  assert.is(a.body.version, VERSION);
  assert.is(a.body.states.ESH24.book.bids.length, 15);
  assert.is(a.body.states.ESH24.recent_trades.length, 1, 'fills reach the state (and their fields are checked)');
  assertDocumented('StateResponse', a.body);
  await new Promise((r) => setTimeout(r, 60));
  const b = await getJson('/api/state');
  assert.ok(b.body.uptime_s > a.body.uptime_s, 'uptime advances');
  assert.is.not(b.body.states.ESH24.sim_time, a.body.states.ESH24.sim_time, 'state is live, not cached');
});

test('GET /api/state?symbol=: filters (case-insensitive), 404 JSON for an unknown symbol', async () => {
  const one = await getJson('/api/state?symbol=nqh24');
  assert.is(one.res.status, 200);
  assert.equal(one.body.symbols, ['NQH24']);
  assert.equal(Object.keys(one.body.states), ['NQH24']);
  assert.is(one.body.states.NQH24.root, 'NQ');
  const none = await getJson('/api/state?symbol=CLZ24');
  assert.is(none.res.status, 404);
  assertError(none.body, 'unknown_symbol');
  assert.match(none.body.error.message, /CLZ24/);
});

test('GET /metrics: engine metrics with symbol labels, counters grow, latency histograms, Node metrics', async () => {
  const r1 = await fetch(base + '/metrics');
  assert.is(r1.status, 200);
  assert.match(r1.headers.get('content-type') ?? '', /text\/plain; version=0\.0\.4/);
  const t1 = await r1.text();
  for (const name of [
    'engine_events_total',
    'engine_orders_total',
    'engine_fills_total',
    'engine_cancels_total',
    'engine_rejects_total',
    'engine_position_contracts',
    'engine_realized_pnl_usd',
    'engine_unrealized_pnl_usd',
    'engine_fees_paid_usd',
    'engine_equity_usd',
    'engine_drawdown_ratio',
    'engine_kill_switch',
    'engine_ring_drops_total',
    'engine_predictions_total',
    'engine_sse_clients',
    'engine_backtests_total',
    'engine_backtest_duration_seconds',
    'engine_tick_to_trade_seconds',
    'engine_book_update_seconds',
    'engine_inference_seconds',
  ]) {
    assert.ok(t1.includes(`# TYPE ${name} `), `missing ${name}`);
  }
  assert.match(t1, /# TYPE engine_events_total counter/);
  assert.match(t1, /# TYPE engine_position_contracts gauge/);
  assert.match(t1, /engine_fills_total\{symbol="ESH24",side="buy",liquidity="maker"\} \d+/);
  assert.match(t1, /engine_equity_usd\{symbol="NQH24"\} [\d.e+]+/);
  assert.match(t1, /process_cpu_user_seconds_total \d/, 'Node default metrics are included');
  const value = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(series + ' '));
    assert.ok(line, `series ${series} missing`);
    return Number(line!.slice(series.length + 1));
  };
  const ev1 = value(t1, 'engine_events_total{symbol="ESH24"}');
  const lat1 = value(t1, 'engine_tick_to_trade_seconds_count{symbol="ESH24"}');
  // The fake runtime hands over 3 samples per stage and symbol per drain (one drain per scrape).
  assert.is(lat1, 3 * runtime.calls.drainLatency);
  await new Promise((r) => setTimeout(r, 120));
  const t2 = await (await fetch(base + '/metrics')).text();
  const ev2 = value(t2, 'engine_events_total{symbol="ESH24"}');
  assert.ok(ev2 > ev1, `events_total grows: ${ev1} -> ${ev2}`);
  assert.is(value(t2, 'engine_tick_to_trade_seconds_count{symbol="ESH24"}'), lat1 + 3);
  // 12 us samples land in the 25 us bucket, not in the 10 us one.
  assert.ok(
    value(t2, 'engine_tick_to_trade_seconds_bucket{le="0.000025",symbol="ESH24"}') >
      value(t2, 'engine_tick_to_trade_seconds_bucket{le="0.00001",symbol="ESH24"}'),
  );
  assert.match(t2, /engine_http_requests_total\{method="GET",route="\/metrics",status="200"\} [1-9]/);
});

test('engine registry passes promtool check metrics', async () => {
  const text = await server.http.metrics.engineText();
  const which = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (which.error) {
    console.warn('  [skip] promtool not installed: skipping `promtool check metrics` (CI installs the Debian prometheus package)');
    return;
  }
  const file = join(dir, 'engine.prom');
  writeFileSync(file, text);
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.is(r.status, 0, `promtool check metrics failed:\n${r.stdout}${r.stderr}`);
  assert.is((r.stdout + r.stderr).trim(), '', 'no lint warning');
  // The merged /metrics output contains Node gauges named *_total that promtool rejects; that is
  // why the engine keeps its own registry. Make sure the check above actually lints something.
  const merged = spawnSync('promtool', ['check', 'metrics'], { input: await server.http.metrics.text(), encoding: 'utf8' });
  assert.is.not(merged.status, 0, 'promtool flags the Node default gauges (so it really ran)');
});

test('unknown route 404 JSON; wrong method 405 JSON with Allow', async () => {
  const nf = await getJson('/api/nope');
  assert.is(nf.res.status, 404);
  assertError(nf.body, 'not_found');
  const m1 = await getJson('/health', { method: 'POST' });
  assert.is(m1.res.status, 405);
  assertError(m1.body, 'method_not_allowed');
  assert.match(m1.res.headers.get('allow') ?? '', /GET/);
  const m2 = await getJson('/api/backtest', { method: 'GET' });
  assert.is(m2.res.status, 405);
  assert.is(m2.res.headers.get('allow'), 'POST');
  const m3 = await getJson('/api/backtests/bt_x', { method: 'PUT' });
  assert.is(m3.res.status, 405);
  assert.match(m3.res.headers.get('allow') ?? '', /DELETE/);
});

const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  getJson('/api/backtest', { method: 'POST', body, headers });

test('POST /api/backtest: 415 wrong or missing content type, 413 over 64 KiB, 400 malformed JSON', async () => {
  const ct = await post('{"symbol":"ES"}', { 'content-type': 'text/plain' });
  assert.is(ct.res.status, 415);
  assertError(ct.body, 'unsupported_media_type');
  const none = await getJson('/api/backtest', { method: 'POST', body: new Uint8Array(Buffer.from('{"symbol":"ES"}')) });
  assert.is(none.res.status, 415);
  const big = await post(JSON.stringify({ symbol: 'ES', pad: 'x'.repeat(70 * 1024) }));
  assert.is(big.res.status, 413);
  assertError(big.body, 'payload_too_large');
  // Chunked upload without Content-Length is limited too.
  const chunks = new ReadableStream<Uint8Array>({
    start(ctl) {
      for (let i = 0; i < 20; i++) ctl.enqueue(new Uint8Array(8 * 1024).fill(0x20));
      ctl.close();
    },
  });
  const chunked = await getJson('/api/backtest', {
    method: 'POST',
    body: chunks,
    headers: { 'content-type': 'application/json' },
    duplex: 'half',
  } as RequestInit);
  assert.is(chunked.res.status, 413);
  for (const bad of ['{"symbol":', '', 'nul', '{"symbol":"ES"} trailing']) {
    const r = await post(bad);
    assert.is(r.res.status, 400, `body ${JSON.stringify(bad)}`);
    assertError(r.body, 'invalid_json');
  }
});

test('POST /api/backtest: 400 naming each bad field', async () => {
  const cases: [unknown, string[]][] = [
    [{ symbol: 'ES', initialCapital: '100000' }, ['initialCapital']],
    [{ symbol: 'ZZ' }, ['symbol']],
    [{ symbol: 'ES', startDate: '2024-1-2' }, ['startDate']],
    [{ symbol: 'ES', startDate: '2024-02-30', endDate: '2024-03-01' }, ['startDate']],
    [{ symbol: 'ES', startDate: '2024-01-10', endDate: '2024-01-05' }, ['endDate']],
    [{ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-03-29' }, ['endDate']],
    [{ symbol: 'ES', maxDrawdown: 6 }, ['maxDrawdown']],
    [{ symbol: 'ES', spreadMultiplier: -1, positionLimit: 2.5, useML: 'yes' }, ['spreadMultiplier', 'positionLimit', 'useML']],
    [{ symbol: null, initialCapital: 1 }, ['symbol']],
    [{ symbol: 'ES', bogus: 1 }, ['bogus']],
    [[1, 2], ['(body)']],
    ['ES', ['(body)']],
  ];
  for (const [body, fields] of cases) {
    const r = await post(JSON.stringify(body));
    assert.is(r.res.status, 400, `${JSON.stringify(body)} -> ${r.res.status}`);
    assertError(r.body, 'invalid_request');
    const got = (r.body.error.fields as { field: string; message: string }[]).map((f) => f.field);
    for (const f of fields) assert.ok(got.includes(f), `${JSON.stringify(body)}: field ${f} not named in ${JSON.stringify(got)}`);
    for (const f of r.body.error.fields) assert.ok(f.message.length > 0);
  }
  const range = await post(JSON.stringify({ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-12' }));
  assert.match(range.body.error.fields[0].message, /maximum of 5|maximum is 5/);
});

test('an unexpected error is a logged 500 JSON, and the server keeps serving', async () => {
  const real = runtime.state;
  runtime.state = () => {
    throw new Error('snapshot torn: boom');
  };
  try {
    const r = await getJson('/api/state');
    assert.is(r.res.status, 500);
    assertError(r.body, 'internal_error');
    assert.not.match(r.body.error.message, /boom/, 'internal details are logged, not sent');
  } finally {
    runtime.state = real;
  }
  assert.ok(
    logLines.some((l) => l.includes('snapshot torn: boom') && l.includes('"level":"error"')),
    'the error is logged',
  );
  const h = await fetch(base + '/health');
  assert.is(h.status, 200);
});

test('CORS: configured origins only; preflight', async () => {
  const ok = await fetch(base + '/api/state', { headers: { origin: 'http://localhost:3000' } });
  assert.is(ok.headers.get('access-control-allow-origin'), 'http://localhost:3000');
  await ok.arrayBuffer();
  const other = await fetch(base + '/api/state', { headers: { origin: 'http://evil.example' } });
  assert.is(other.headers.get('access-control-allow-origin'), null);
  await other.arrayBuffer();
  const pre = await fetch(base + '/api/backtest', {
    method: 'OPTIONS',
    headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  assert.is(pre.status, 204);
  assert.is(pre.headers.get('access-control-allow-origin'), 'http://localhost:3000');
  assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
  assert.match((pre.headers.get('access-control-allow-headers') ?? '').toLowerCase(), /content-type/);
});

test('GET /openapi.json: OpenAPI 3.1 documenting every route and method of the app', async () => {
  const { res, body } = await getJson('/openapi.json');
  assert.is(res.status, 200);
  assert.is(body.openapi, '3.1.0');
  assert.equal(body, JSON.parse(JSON.stringify(documentWithStrategies())), "serves the generated document (with the loaded strategies' parameters)");
  assert.is(body.info.version, VERSION);
  const documented = new Set<string>();
  for (const [p, ops] of Object.entries(body.paths as Record<string, Record<string, unknown>>))
    for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${p}`);
  const routes = server.http.app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
  assert.ok(routes.length >= 8);
  for (const r of routes) assert.ok(documented.has(r), `route ${r} is not documented`);
  for (const d of documented) assert.ok(routes.includes(d), `documented ${d} does not exist`);
  // Every $ref resolves.
  const refs = JSON.stringify(body).match(/#\/components\/schemas\/[A-Za-z_]+/g) ?? [];
  for (const r of new Set(refs)) assert.ok(body.components.schemas[r.split('/').pop()!], `${r} unresolved`);
  for (const ev of ['state', 'fill', 'alert', 'backtest_progress', 'backtest_complete']) assert.ok(body['x-sse-events'][ev], `stream event ${ev} documented`);
});

test('src/wire (the shapes) imports only zod and itself, so the browser bundle can import it', () => {
  const dir = join(import.meta.dirname, '../../..', 'src', 'wire');
  for (const f of readdirSync(dir)) {
    // The module specifier of each import or re-export statement (`from '...'`, or `import '...'`).
    const specifiers = [...readFileSync(join(dir, f), 'utf8').matchAll(/^(?:import|export)\s[^;=()]*?\bfrom\s*'([^']+)'|^import\s*'([^']+)'/gm)].map(
      (m) => m[1] ?? m[2],
    );
    for (const spec of specifiers) assert.ok(spec === 'zod' || /^\.\/[\w-]+\.ts$/.test(spec), `src/wire/${f} imports '${spec}'`);
  }
});

test('schema check catches an undocumented field and a wrong type (the accuracy checks can fail)', () => {
  assert.equal(schemaErrors('Fill', { ...runtime.emitFill('ESH24'), extra: 1 }), ['$ must NOT have additional properties: extra']);
  assert.equal(schemaErrors('LatencySummary', { count: 1.5, p50_us: null, p90_us: 'x', p99_us: null, max_us: null }), [
    '/count must be integer',
    '/p90_us must be number,null',
  ]);
  assert.ok(schemaErrors('Fill', { ...runtime.emitFill('ESH24'), time: '2024-01-02 09:30' }).includes('/time must match format "date-time"'));
});

test.run();
