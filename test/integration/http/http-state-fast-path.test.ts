// GET /api/state's fast path (src/http/state-fast-path.ts), over real servers: it answers plain
// requests with exactly the bytes and headers Hono's route answers, counts them in the request
// metrics under the same route, and leaves every other request to Hono unchanged: a query, an
// Origin (CORS), a request body, a refused Host or token, a state that fails to build.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer, type HttpServer } from '../../../src/http/server.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { capturingLogger } from '../../helpers/log.ts';

const TOKEN = 'test-token-0123456789abcdef';
const dirs: string[] = [];
const servers: HttpServer[] = [];

/** A server with a fake runtime and this [http] table; the state is rebuilt at most once a minute, so two answers share one snapshot. */
async function serve(
  httpToml: string,
  apiToken: string | null = null,
  runtime = new FakeRuntime({ symbols: ['ESH24'] }),
): Promise<{ base: string; server: HttpServer }> {
  const dir = mkdtempSync(join(tmpdir(), 'state-fast-path-'));
  dirs.push(dir);
  const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n[backtest]\npool_size = 1\n[http]\n${httpToml}\n`, 'state-fast-path.toml');
  const { logger } = capturingLogger('error');
  const backtests = await BacktestService.open({ config, logger, poolSize: 1 });
  const server = await startHttpServer(
    { runtime, config, logger, backtests },
    { port: 0, host: '127.0.0.1', latencyDrainMs: 0, defaultMetrics: false, stateMaxAgeMs: 60_000, apiToken },
  );
  servers.push(server);
  return { base: `http://127.0.0.1:${server.port}`, server };
}

test.after(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Status, headers (all but Date) and body of a GET, over node:http (any Host, a body if asked). */
function get(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i].toLowerCase() !== 'date') h[res.rawHeaders[i]] = res.rawHeaders[i + 1];
        resolve({ status: res.statusCode ?? 0, headers: h, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A sample of /metrics (the line that starts with `series` and a space), 0 when absent. */
const metric = async (base: string, series: string): Promise<number> => {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
};
const requestsCounted = (base: string) => metric(base, 'engine_http_requests_total{method="GET",route="/api/state",status="200"}');

test('a plain GET is answered by the fast path with the bytes and headers of the Hono route, and counted the same', async () => {
  const { base, server } = await serve('');
  const fast = server.http.fastPath;
  const viaFast = await get(base, '/api/state');
  assert.is(fast.served, 1, 'the plain request took the fast path');
  const viaHono = await get(base, '/api/state?'); // a query string goes to the router
  assert.is(fast.served, 1, 'a query goes to Hono');
  assert.is(viaFast.status, 200);
  assert.equal(viaFast.headers, viaHono.headers, 'same headers, same spelling and order');
  assert.is(viaFast.headers['x-content-type-options'], 'nosniff');
  assert.is(viaFast.headers['cache-control'], 'no-store');
  assert.is(viaFast.headers['content-type'], 'application/json');
  assert.is(viaFast.body, viaHono.body, 'same body (one snapshot)');
  assert.is(Number(viaFast.headers['Content-Length']), Buffer.byteLength(viaFast.body));
  assert.equal(JSON.parse(viaFast.body).symbols, ['ESH24']);
  assert.is(await requestsCounted(base), 2, 'both answers in engine_http_requests_total under route /api/state');
  // The fast path's answers are added to the counter when it is read: each scrape counts the new ones once.
  for (let i = 0; i < 3; i++) await get(base, '/api/state');
  assert.is(await requestsCounted(base), 5);
  assert.is(await requestsCounted(base), 5, 'a second scrape adds nothing');
  assert.is(await metric(base, 'engine_http_request_duration_seconds_count{method="GET",route="/api/state"}'), 5, 'every answer timed');
});

test('an Origin, a body, a disallowed Host, a failing state: Hono answers (CORS headers, Connection: close, 400, 500) and the fast path stays out', async () => {
  const runtime = new FakeRuntime({ symbols: ['ESH24'] });
  const { base, server } = await serve('cors_origins = ["http://localhost:3000"]', null, runtime);
  const fast = server.http.fastPath;
  const cors = await get(base, '/api/state', { origin: 'http://localhost:3000' });
  assert.is(cors.status, 200);
  assert.is(cors.headers['access-control-allow-origin'], 'http://localhost:3000');
  assert.is(cors.headers.vary, 'Origin');
  const withBody = await get(base, '/api/state', { 'content-type': 'text/plain', 'content-length': '5' }, 'hello');
  assert.is(withBody.status, 200);
  assert.equal(JSON.parse(withBody.body).symbols, ['ESH24']);
  const evil = await get(base, '/api/state', { host: 'evil.example' });
  assert.is(evil.status, 400);
  assert.is(JSON.parse(evil.body).error.code, 'invalid_host');
  const real = runtime.state.bind(runtime);
  runtime.state = () => {
    throw new Error('seqlock retry limit');
  };
  try {
    // A fresh server (its cache is empty): the state has to be built, and fails.
    const failing = await serve('', null, runtime);
    const broken = await get(failing.base, '/api/state');
    assert.is(broken.status, 500);
    assert.is(JSON.parse(broken.body).error.code, 'internal_error');
    assert.is(failing.server.http.fastPath.served, 0);
  } finally {
    runtime.state = real;
  }
  assert.is(fast.served, 0, 'none of these took the fast path');
  const ok = await get(base, '/api/state', { host: 'localhost:9090' });
  assert.is(ok.status, 200);
  assert.is(fast.served, 1, 'an allowed Host with a port does');
});

test('require_auth_for_reads: 401 without the token (from Hono), the fast path with it; a token for writes only leaves reads open', async () => {
  const reads = await serve('require_auth_for_reads = true', TOKEN);
  const denied = await get(reads.base, '/api/state');
  assert.is(denied.status, 401);
  assert.match(denied.headers['www-authenticate'] ?? '', /^Bearer /);
  const wrong = await get(reads.base, '/api/state', { authorization: `Bearer ${TOKEN}x` });
  assert.is(wrong.status, 401);
  assert.is(reads.server.http.fastPath.served, 0);
  const allowed = await get(reads.base, '/api/state', { authorization: `Bearer ${TOKEN}` });
  assert.is(allowed.status, 200);
  assert.is(reads.server.http.fastPath.served, 1);

  const writes = await serve('', TOKEN);
  const open = await get(writes.base, '/api/state');
  assert.is(open.status, 200);
  assert.is(writes.server.http.fastPath.served, 1, 'reads need no token: answered without one');
});

test.run();
