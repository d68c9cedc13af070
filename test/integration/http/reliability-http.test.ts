// Who may do what and connection hygiene, over real servers on 127.0.0.1 (issue 16, §4 and §6):
// an answer given before the body was read lets the same keep-alive agent go on; the bearer token
// (401 + WWW-Authenticate), the rate limit (429 + Retry-After), the Host allow-list, the headers on
// every answer, the dashboard proxy passing the caller's Authorization through (and adding none),
// and the engine process binding 127.0.0.1 when HOST is unset.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, createServer as createHttpServer, type Server as HttpNodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { Agent, request } from 'undici';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { createDashboardApp } from '../../../src/dashboard/server/app.ts';
import { startHttpServer, type HttpServer } from '../../../src/http/server.ts';
import { ENGINE, writeConfig } from '../../helpers/cli.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { WAIT_MS } from '../../helpers/wait.ts';

const TOKEN = 'test-token-0123456789abcdef';
const dirs: string[] = [];
const servers: HttpServer[] = [];

/** A server with a fake runtime and this [http] table; `apiToken` as the engine would resolve it. */
async function serve(httpToml: string, apiToken: string | null = null): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'reliability-http-'));
  dirs.push(dir);
  const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n[backtest]\npool_size = 1\n[http]\n${httpToml}\n`, 'reliability-http.toml');
  const { logger } = capturingLogger('warn');
  const backtests = await BacktestService.open({ config, logger, poolSize: 1 });
  const server = await startHttpServer(
    { runtime: new FakeRuntime({ symbols: ['ESH24'] }), config, logger, backtests },
    { port: 0, host: '127.0.0.1', latencyDrainMs: 0, defaultMetrics: false, apiToken },
  );
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

const dashboards: HttpNodeServer[] = [];

test.after(async () => {
  for (const s of dashboards) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const s of servers) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };
type ErrorJson = { error: { code: string; message: string; fields: { field: string; message: string }[] } };
const errorOf = async (r: Response): Promise<ErrorJson> => (await r.json()) as ErrorJson;
const TWO_MB = Buffer.alloc(2 * 1024 * 1024, 0x20);

/** A 2 MB POST that the server answers before reading it, then a GET on the same agent. */
async function bigBodyThenGet(base: string, headers: Record<string, string>, expectStatus: number): Promise<void> {
  const agent = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 30_000 });
  try {
    const big = await request(`${base}/api/backtest`, { method: 'POST', headers: { ...json, ...headers }, body: TWO_MB, dispatcher: agent });
    const body = (await big.body.json()) as { error: { code: string } };
    assert.is(big.statusCode, expectStatus);
    assert.is(big.headers.connection, 'close', 'an answer sent before the body was read closes the connection');
    assert.type(body.error.code, 'string');
    for (let i = 0; i < 3; i++) {
      const next = await request(`${base}/health`, { dispatcher: agent });
      assert.is(next.statusCode, 200, `request ${i + 1} after the ${expectStatus} on the same agent`);
      assert.is(((await next.body.json()) as { status: string }).status, 'ok');
    }
  } finally {
    await agent.close();
  }
}

test('413: a 2 MB body is answered with Connection: close, and the same keep-alive agent then gets normal 200s', async () => {
  await bigBodyThenGet(await serve('rate_limit_requests = 0'), {}, 413);
});

test('401 before the body was read also closes the connection cleanly (same agent goes on)', async () => {
  await bigBodyThenGet(await serve('rate_limit_requests = 0', TOKEN), {}, 401);
});

test('every answer carries X-Content-Type-Options: nosniff; API JSON is Cache-Control: no-store', async () => {
  const base = await serve('');
  for (const [path, status] of [
    ['/health', 200],
    ['/api/state', 200],
    ['/api/backtests', 200],
    ['/openapi.json', 200],
    ['/metrics', 200],
    ['/nope', 404],
  ] as const) {
    const res = await fetch(base + path);
    await res.arrayBuffer();
    assert.is(res.status, status, path);
    assert.is(res.headers.get('x-content-type-options'), 'nosniff', `${path} nosniff`);
    assert.is(res.headers.get('cache-control'), 'no-store', `${path} no-store`);
  }
  const bad = await fetch(`${base}/api/backtest`, { method: 'POST', headers: json, body: '{' });
  assert.is(bad.status, 400);
  assert.is(bad.headers.get('x-content-type-options'), 'nosniff');
  assert.is(bad.headers.get('cache-control'), 'no-store');
});

test('with a token: POST and DELETE need it (401 JSON + WWW-Authenticate: Bearer), reads stay open', async () => {
  const base = await serve('', TOKEN);
  const none = await fetch(`${base}/api/backtest`, { method: 'POST', headers: json, body: '{}' });
  const noneBody = await errorOf(none);
  assert.is(none.status, 401);
  assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer realm="futures-mm-engine"$/);
  assert.is(noneBody.error.code, 'unauthorized');
  assert.match(noneBody.error.message, /Authorization: Bearer/);

  const wrong = await fetch(`${base}/api/backtests/x`, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}x` } });
  assert.is(wrong.status, 401);
  assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  await wrong.arrayBuffer();

  // The right token passes authentication: the handler answers (an invalid body here, 400).
  const ok = await fetch(`${base}/api/backtest`, { method: 'POST', headers: { ...json, authorization: `Bearer ${TOKEN}` }, body: '{"initialCapital": 1e308}' });
  const okBody = await errorOf(ok);
  assert.is(ok.status, 400);
  assert.equal(
    okBody.error.fields.map((f) => f.field),
    ['initialCapital'],
  );
  assert.match(okBody.error.fields[0].message, /got 1e\+308/);
  const lower = await fetch(`${base}/api/backtests/x`, { method: 'DELETE', headers: { authorization: `bearer ${TOKEN}` } });
  assert.is(lower.status, 404, 'the scheme name is case-insensitive');
  await lower.arrayBuffer();

  for (const path of ['/api/backtests', '/api/state', '/health']) {
    const r = await fetch(base + path);
    await r.arrayBuffer();
    assert.is(r.status, 200, `${path} is open without require_auth_for_reads`);
  }
});

test('require_auth_for_reads: GETs need the token too, except /health, /metrics and /openapi.json', async () => {
  const base = await serve('require_auth_for_reads = true', TOKEN);
  for (const path of ['/api/backtests', '/api/state', '/api/stream']) {
    const r = await fetch(base + path);
    await r.arrayBuffer();
    assert.is(r.status, 401, path);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer /);
  }
  const authed = await fetch(`${base}/api/backtests`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.is(authed.status, 200);
  await authed.arrayBuffer();
  for (const path of ['/health', '/metrics', '/openapi.json']) {
    const r = await fetch(base + path);
    await r.arrayBuffer();
    assert.is(r.status, 200, `${path} stays open (health checks, Prometheus)`);
  }
});

test('rate limit: POST/DELETE beyond rate_limit_requests per window answer 429 JSON with Retry-After; reads are not limited', async () => {
  const base = await serve('rate_limit_requests = 2\nrate_limit_window_s = 600');
  const post = () => fetch(`${base}/api/backtest`, { method: 'POST', headers: json, body: '{' });
  for (let i = 0; i < 2; i++) {
    const r = await post();
    assert.is(r.status, 400, `request ${i + 1} is within the limit`);
    await r.arrayBuffer();
  }
  const limited = await post();
  const body = await errorOf(limited);
  assert.is(limited.status, 429);
  assert.is(body.error.code, 'rate_limited');
  const retry = Number(limited.headers.get('retry-after'));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 600, `Retry-After ${limited.headers.get('retry-after')}`);
  const del = await fetch(`${base}/api/backtests/x`, { method: 'DELETE' });
  assert.is(del.status, 429, 'DELETE shares the budget');
  await del.arrayBuffer();
  const read = await fetch(`${base}/api/backtests`);
  assert.is(read.status, 200);
  await read.arrayBuffer();
});

/** A request with an explicit Host header (fetch would not let us set one). */
function getWithHost(
  base: string,
  path: string,
  host: string,
  method = 'GET',
  body?: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = httpRequest({ host: u.hostname, port: u.port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('Host allow-list: loopback names (any port) and configured names pass; others get a 400 JSON naming the Host header', async () => {
  const base = await serve('allowed_hosts = ["engine"]');
  for (const host of ['localhost:9090', '127.0.0.1', '[::1]:1234', 'LOCALHOST', 'engine:9090', 'engine']) {
    const r = await getWithHost(base, '/health', host);
    assert.is(r.status, 200, `Host: ${host}`);
  }
  for (const host of ['evil.example', 'evil.example:9090', 'engine.evil.example', '127.0.0.1.nip.io']) {
    const r = await getWithHost(base, '/api/state', host);
    assert.is(r.status, 400, `Host: ${host}`);
    const body = JSON.parse(r.body);
    assert.is(body.error.code, 'invalid_host');
    assert.ok(body.error.message.includes(`Host header ${JSON.stringify(host)}`), body.error.message);
    assert.is(r.headers['x-content-type-options'], 'nosniff');
  }
  const any = await serve('allowed_hosts = ["*"]');
  assert.is((await getWithHost(any, '/health', 'whatever.example')).status, 200, '"*" allows any Host');
});

test("dashboard proxy: adds no credentials, passes the caller's Authorization through to the engine", async () => {
  const engine = await serve('', TOKEN);
  const { logger } = capturingLogger('warn');
  const { app } = createDashboardApp({ engineUrl: engine, staticDir: tmpdir(), logger });
  const post = (headers: Record<string, string>) =>
    app.request('http://127.0.0.1:3000/api/backtest', { method: 'POST', headers: { ...json, ...headers }, body: '{"seed": -1}' });
  const anonymous = await post({});
  assert.is(anonymous.status, 401, "the proxy does not authenticate on the browser's behalf");
  assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer /);
  assert.is((await errorOf(anonymous)).error.code, 'unauthorized');
  const withToken = await post({ authorization: `Bearer ${TOKEN}` });
  assert.is(withToken.status, 400, 'the token reached the engine, which validated the body');
  assert.equal(
    (await errorOf(withToken)).error.fields.map((f) => f.field),
    ['seed'],
  );
});

test('dashboard Host allow-list (DNS rebinding): a foreign Host is refused before any page or proxied request', async () => {
  const engine = await serve('');
  const { logger } = capturingLogger('warn');
  const staticDir = mkdtempSync(join(tmpdir(), 'reliability-dash-'));
  dirs.push(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>dash</title>');
  const listen = async (allowedHosts?: string[]) => {
    const { app } = createDashboardApp({ engineUrl: engine, staticDir, logger, allowedHosts });
    const server = createAdaptorServer({ fetch: app.fetch }) as HttpNodeServer;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    dashboards.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const dash = await listen();
  const start = '{"seed": 7, "symbols": ["ESH24"], "days": 1}';
  for (const host of ['attacker.example:3000', 'attacker.example', 'engine:3000', '127.0.0.1.nip.io:3000']) {
    for (const [method, path, body] of [
      ['POST', '/api/backtest', start],
      ['GET', '/api/state'],
      ['GET', '/api/backtests'],
      ['GET', '/health'],
      ['GET', '/openapi.json'],
      ['GET', '/'],
      ['GET', '/dashboard/health'],
    ] as const) {
      const r = await getWithHost(dash, path, host, method, body);
      assert.is(r.status, 400, `${method} ${path} Host: ${host}`);
      const e = JSON.parse(r.body) as ErrorJson;
      assert.is(e.error.code, 'invalid_host');
      assert.match(e.error.message, /DASHBOARD_ALLOWED_HOSTS/);
      assert.equal(
        e.error.fields.map((f) => f.field),
        ['Host'],
      );
    }
  }
  const runs = (await (await fetch(`${engine}/api/backtests`)).json()) as { total: number };
  assert.is(runs.total, 0, 'no run was started through a foreign Host');
  for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'LOCALHOST']) {
    assert.is((await getWithHost(dash, '/api/state', host)).status, 200, `Host: ${host}`);
    assert.is((await getWithHost(dash, '/', host)).status, 200, `Host: ${host}`);
  }
  const named = await listen(['dash.example.com']);
  assert.is((await getWithHost(named, '/api/state', 'dash.example.com:3000')).status, 200, 'a listed name passes');
  assert.is((await getWithHost(named, '/api/state', 'attacker.example')).status, 400);
  const any = await listen(['*']);
  assert.is((await getWithHost(any, '/api/state', 'whatever.example')).status, 200, '"*" allows any Host');
});

/** The engine process's first log lines up to "listening", or its exit. */
function startEngineProcess(
  env: Record<string, string | undefined>,
  configToml = '',
): Promise<{ code: number | null; lines: string[]; stop: () => Promise<void> }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k];
  const child = spawn(process.execPath, [ENGINE, '--config', writeConfig(`[backtest]\npool_size = 1\n${configToml}`)], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the engine neither listened nor exited within ${WAIT_MS} ms:\n${lines.join('\n')}`));
    }, WAIT_MS);
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (/listening on http:/.test(lines[lines.length - 1])) {
          clearTimeout(timer);
          resolve({ code: null, lines, stop });
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      if (buf) lines.push(buf);
      resolve({ code, lines, stop });
    });
  });
}

test('the engine process started without HOST listens on 127.0.0.1 only', async () => {
  const e = await startEngineProcess({ HOST: undefined, ENGINE_API_TOKEN: undefined });
  try {
    const line = e.lines.find((l) => /listening on http:/.test(l)) ?? '';
    const m = /listening on http:\/\/([^:]+):(\d+)/.exec(line);
    assert.ok(m, `no listening line in:\n${e.lines.join('\n')}`);
    assert.is(m![1], '127.0.0.1');
    const port = Number(m![2]);
    // It answers on loopback (503 while its workers are still starting counts: it listens).
    const r = await fetch(`http://127.0.0.1:${port}/health`);
    assert.ok(r.status === 200 || r.status === 503, `status ${r.status}`);
    await r.arrayBuffer();
    // Another address of this machine, where a 0.0.0.0 bind would answer.
    const other = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    if (other) {
      const err = await fetch(`http://${other.address}:${port}/health`).then(
        () => null,
        (x: Error & { cause?: { code?: string } }) => x.cause?.code ?? x.message,
      );
      assert.is(err, 'ECONNREFUSED', `${other.address}:${port} must not answer`);
    }
  } finally {
    await e.stop();
  }
});

test('start-up failure: the HTTP port already in use exits non-zero with one line naming the cause', async () => {
  const blocker = createHttpServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  const port = (blocker.address() as { port: number }).port;
  try {
    const e = await startEngineProcess({ HOST: '127.0.0.1', PORT: String(port) });
    assert.ok(e.code !== null && e.code !== 0, `exit code ${e.code}; output:\n${e.lines.join('\n')}`);
    const errors = e.lines.filter((l) => /"level":"error"|"level":50|^fatal/.test(l));
    assert.is(errors.length, 1, `one error line:\n${e.lines.join('\n')}`);
    assert.match(errors[0], new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`));
  } finally {
    blocker.close();
  }
});

test('an unusable API token is a start-up error naming its source, never echoing the token', async () => {
  const e = await startEngineProcess({ ENGINE_API_TOKEN: 'short-secret' });
  assert.ok(e.code !== null && e.code !== 0, `exit code ${e.code}`);
  const text = e.lines.join('\n');
  assert.match(text, /ENGINE_API_TOKEN: expected a token of 16\.\.4096 characters without spaces \(got 12 characters\)/);
  assert.not.match(text, /short-secret/);
});

test.run();
