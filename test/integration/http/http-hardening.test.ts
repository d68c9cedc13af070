// The smaller points of issue 46 (§6), over a real server on 127.0.0.1: a value nested 5,000
// deep is a 400 naming its field (was 500: a stack overflow formatting "got ..."); a client that
// aborts mid-body is counted as client_closed, not a 500, and is no error in the log; requests
// without the valid token are rate-limited by address (auth ran before the limiter); sweep grids
// that lose keys or have none, unknown sweep fields, a contract the calendar cannot place, and a
// malformed Host header all get 4xx JSON naming the field.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer, type HttpServer } from '../../../src/http/server.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { assertDocumented } from '../../helpers/openapi-check.ts';
import { sleep, until } from '../../helpers/wait.ts';

const TOKEN = 'hardening-token-0123456789';
const dirs: string[] = [];
const servers: HttpServer[] = [];
type ErrorJson = { error: { code: string; message: string; fields?: { field: string; message: string }[] } };

async function serve(httpToml = '', apiToken: string | null = null) {
  const dir = mkdtempSync(join(tmpdir(), 'http-hardening-'));
  dirs.push(dir);
  const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n[backtest]\npool_size = 1\n[http]\n${httpToml}\n`, 'hardening.toml');
  const { logger, lines } = capturingLogger('debug');
  const backtests = await BacktestService.open({ config, logger, poolSize: 1 });
  const server = await startHttpServer(
    { runtime: new FakeRuntime({ symbols: ['ESH24'] }), config, logger, backtests },
    { port: 0, host: '127.0.0.1', latencyDrainMs: 0, defaultMetrics: false, apiToken },
  );
  servers.push(server);
  return { base: `http://127.0.0.1:${server.port}`, port: server.port, lines };
}

test.after(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const post = (base: string, path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
async function refused(r: Response, status: number): Promise<ErrorJson> {
  assert.is(r.status, status);
  const body = (await r.json()) as ErrorJson;
  assertDocumented('Error', body);
  return body;
}
const fieldsOf = (e: ErrorJson) => (e.error.fields ?? []).map((f) => f.field);

/** `depth` levels of `[` or `{"a":` around 1: about 10 KB at 5,000. */
const nested = (depth: number, kind: 'array' | 'object') =>
  kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

test('a value nested 5,000 deep is a 400 naming its field (backtest and sweep), at any depth', async () => {
  const { base } = await serve();
  for (const kind of ['array', 'object'] as const) {
    for (const depth of [10, 5000]) {
      const value = nested(depth, kind);
      const bt = await refused(await post(base, '/api/backtest', `{"symbol":"ES","seed":${value}}`), 400);
      assert.equal(fieldsOf(bt), ['seed'], `${kind} ${depth}`);
      assert.is(bt.error.code, 'invalid_request');
      assert.ok(bt.error.message.length < 2000, 'the "got" part is cut short');
      const sw = await refused(await post(base, '/api/sweeps', `{"symbol":"ES","grid":{"spreadMultiplier":${value}}}`), 400);
      assert.ok(fieldsOf(sw).length === 1 && fieldsOf(sw)[0].startsWith('grid.spreadMultiplier'), `${kind} ${depth}: ${fieldsOf(sw)}`);
      const plan = await refused(await post(base, '/api/sweeps', `{"symbol":${value},"grid":{"spreadMultiplier":[1]}}`), 400);
      assert.equal(fieldsOf(plan), ['symbol'], `${kind} ${depth}`);
    }
  }
});

test('a client that aborts mid-body is counted as client_closed, not a 500, and logged at debug only', async () => {
  const { base, port, lines } = await serve();
  const socket = connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  socket.write('POST /api/backtest HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"seed":');
  await sleep(100); // let the headers and the first bytes go out before the client vanishes
  socket.destroy();
  const metrics = await until('the aborted request to be counted', async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    return /engine_http_requests_total\{method="POST",route="\/api\/backtest",status="client_closed"\} 1/.test(text) ? text : null;
  });
  assert.not.match(metrics, /status="500"/);
  const logged = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
  assert.ok(
    logged.some((l) => l.level === 'debug' && /client closed the connection/.test(l.msg)),
    `a debug line:\n${lines.join('\n')}`,
  );
  assert.not.ok(
    logged.some((l) => ['warn', 'error', 'fatal'].includes(l.level)),
    `no warning or error:\n${lines.join('\n')}`,
  );
});

test('requests without the valid token are rate-limited by address; the token holder is not', async () => {
  const { base } = await serve('rate_limit_requests = 5\nrate_limit_window_s = 60\nrequire_auth_for_reads = true', TOKEN);
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) {
    const r = await post(base, '/api/backtest', '{}', { authorization: 'Bearer wrong-token-wrong-token' });
    statuses.push(r.status);
    await r.arrayBuffer();
  }
  assert.equal(statuses, [401, 401, 401, 401, 401, 429, 429], 'bad-token POSTs: 401 until the limit, then 429');
  const read = await fetch(`${base}/api/backtests`, { headers: { authorization: 'Bearer wrong-token-wrong-token' } });
  const body = await refused(read, 429);
  assert.is(body.error.code, 'rate_limited');
  assert.ok(read.headers.get('retry-after'));
  // The token is its own client: its budget is untouched by the address's bad requests.
  const good = await fetch(`${base}/api/backtests`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.is(good.status, 200);
  const open = await fetch(`${base}/health`);
  assert.is(open.status, 200, '/health needs no token and is not limited');
});

test('validation: lost or no grid keys, unknown sweep fields, an unplaceable contract, a malformed Host', async () => {
  const { base, port } = await serve();
  const proto = await refused(await post(base, '/api/sweeps', '{"symbol":"ES","grid":{"__proto__":[1,2],"spreadMultiplier":[1]}}'), 400);
  assert.equal(fieldsOf(proto), ['grid.__proto__']);
  assert.match(proto.error.fields![0].message, /unknown sweep parameter/);
  const empty = await refused(await post(base, '/api/sweeps', '{"symbol":"ES","grid":{}}'), 400);
  assert.equal(fieldsOf(empty), ['grid']);
  assert.match(empty.error.fields![0].message, /at least one parameter/);
  const unknown = await refused(await post(base, '/api/sweeps', '{"symbol":"ES","grid":{"spreadMultiplier":[1]},"colour":"red","size":1}'), 400);
  assert.equal(fieldsOf(unknown), ['colour', 'size']);
  assert.match(unknown.error.fields![0].message, /^unknown field \(known: .*symbol/);
  for (const body of ['{"symbol":"ESZ99"}', '{"symbol":"ESZ99","startDate":"2024-01-02"}']) {
    const e = await refused(await post(base, '/api/backtest', body), 400);
    assert.equal(fieldsOf(e), ['symbol'], body);
    assert.match(e.error.fields![0].message, /cannot place ESZ99 on the calendar/);
  }
  // Host headers no URL can be built from: the same JSON shape as every other error.
  for (const host of ['a b', 'localhost:99999', '[::1']) {
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (raw += d));
    socket.write(`GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    await new Promise((r) => socket.once('close', r));
    assert.match(raw, /^HTTP\/1\.1 400 /, host);
    assert.match(raw, /content-type: application\/json/i, host);
    const e = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, '')) as ErrorJson;
    assert.is(e.error.code, 'invalid_host', host);
    assert.equal(fieldsOf(e), ['Host']);
  }
  // What Node's own parser refuses (a control character in a header): JSON too, then closed.
  const socket = connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let raw = '';
  socket.setEncoding('utf8');
  socket.on('data', (d) => (raw += d));
  socket.write('GET /health HTTP/1.1\r\nHost: localhost\x01\r\n\r\n');
  await new Promise((r) => socket.once('close', r));
  assert.match(raw, /^HTTP\/1\.1 400 /);
  assert.match(raw, /connection: close/i);
  assert.is((JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as ErrorJson).error.code, 'invalid_request');
});

test.run();
