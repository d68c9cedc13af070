// The dashboard server: static files, the /api proxy (JSON both ways, the event stream passed
// through unbuffered, client disconnects reaching the engine), 502 JSON when the engine is down
// or dies mid-stream, and the entry process (env, logs, SIGTERM with a stream open).
// Runs against a small fake engine (node:http) on 127.0.0.1 with ephemeral ports.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { beforeAll } from '../../helpers/hooks.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { freePort } from '../../helpers/net.ts';
import { readSse } from '../../helpers/sse-client.ts';
import { until, WAIT_MS, within } from '../../helpers/wait.ts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { createDashboardApp } from '../../../src/dashboard/server/app.ts';
import { StreamRecorder } from '../../../src/dashboard/server/recorder.ts';
import type { FillView, StatePayload, SymbolState } from '../../../src/dashboard/shared/api.ts';
import { FillStore } from '../../../src/dashboard/shared/fill-store.ts';
import { BinnedSeries } from '../../../src/dashboard/shared/series-buffer.ts';
import { CAPS, Store, type HistorySnapshot } from '../../../src/dashboard/shared/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'dashboard-server-'));
writeFileSync(join(dir, 'index.html'), '<!doctype html><title>dash</title><script type="module" src="app.js"></script>');
writeFileSync(join(dir, 'app.js'), 'console.log("app");');
writeFileSync(join(dir, 'app.css'), 'body{}');
const { logger, lines: logLines } = capturingLogger();

// ------------------------------------------------------------------------------------------------
// Fake engine

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const seen: Seen[] = [];
const streams = new Set<ServerResponse>();
let streamClosed = 0;
/** What the fake engine has written on its streams, in order. */
const sseSent: { n: number }[] = [];
/** Streams opened with ?hold=1 wait here for their second event until the test releases them. */
const held: (() => void)[] = [];
const releaseHeld = () => held.splice(0).forEach((write) => write());

function fakeEngine(): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/api/state') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-engine': 'fake' });
        res.end(JSON.stringify({ version: 'fake', symbols: ['ESH24'], query: url.search }));
      } else if (url.pathname === '/api/backtest' && req.method === 'POST') {
        const parsed = JSON.parse(body) as { spreadMultiplier?: number };
        if (parsed.spreadMultiplier !== undefined && parsed.spreadMultiplier <= 0) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              error: { code: 'invalid_request', message: 'invalid', fields: [{ field: 'spreadMultiplier', message: 'expected a number > 0' }] },
            }),
          );
        } else {
          res.writeHead(202, { 'content-type': 'application/json', location: '/api/backtests/bt_1' });
          res.end(JSON.stringify({ id: 'bt_1', status: 'running', echo: parsed }));
        }
      } else if (url.pathname === '/health' || url.pathname === '/openapi.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ path: url.pathname }));
      } else if (url.pathname === '/api/stream') {
        // One event at once, a second one 400 ms later (or when released, with ?hold=1), then held
        // open (like the engine).
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        streams.add(res);
        res.on('close', () => {
          streams.delete(res);
          streamClosed++;
        });
        res.write('retry: 2000\nevent: state\ndata: {"n":1}\n\n');
        sseSent.push({ n: 1 });
        const second = () => {
          if (res.writableEnded || res.destroyed) return;
          res.write('event: fill\ndata: {"n":2}\n\n');
          sseSent.push({ n: 2 });
          if (url.searchParams.get('die') === '1') setTimeout(() => res.socket?.destroy(), 50);
        };
        if (url.searchParams.get('hold') === '1') {
          held.push(second);
        } else {
          const t = setTimeout(second, 400);
          res.on('close', () => clearTimeout(t));
        }
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'not_found', message: `no route ${req.method} ${url.pathname}` } }));
      }
    });
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}

// ------------------------------------------------------------------------------------------------
// In-process dashboard against the fake engine

const engine = fakeEngine();
let enginePort = 0;
let dash: Server | undefined;
let base = '';
let deadDash: Server | undefined;
let deadBase = '';
let proxyInFlight: () => number = () => 0;

// The fake engine and two dashboards (one whose engine is down).
beforeAll(test, async () => {
  enginePort = await listen(engine);
  const a = createDashboardApp({ engineUrl: `http://127.0.0.1:${enginePort}`, staticDir: dir, logger });
  proxyInFlight = () => a.proxy.inFlight;
  dash = createAdaptorServer({ fetch: a.app.fetch }) as Server;
  base = `http://127.0.0.1:${await listen(dash)}`;
  const b = createDashboardApp({ engineUrl: `http://127.0.0.1:${await freePort()}`, staticDir: dir, logger });
  deadDash = createAdaptorServer({ fetch: b.app.fetch }) as Server;
  deadBase = `http://127.0.0.1:${await listen(deadDash)}`;
});

test.after(async () => {
  if (dash) await close(dash);
  if (deadDash) await close(deadDash);
  for (const s of streams) s.destroy();
  await close(engine);
  rmSync(dir, { recursive: true, force: true });
});

test('static files: index.html with a CSP, the bundle, ETag revalidation, 404s', async () => {
  const index = await fetch(`${base}/`);
  assert.is(index.status, 200);
  assert.match(index.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(index.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.match(await index.text(), /<title>dash<\/title>/);
  const js = await fetch(`${base}/app.js`);
  assert.is(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.is(await js.text(), 'console.log("app");');
  const etag = js.headers.get('etag');
  assert.ok(etag);
  const again = await fetch(`${base}/app.js`, { headers: { 'if-none-match': etag! } });
  assert.is(again.status, 304);
  const css = await fetch(`${base}/app.css`, { method: 'HEAD' });
  assert.is(css.status, 200);
  assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
  for (const path of ['/nope.js', '/..%2Fpackage.json', '/%2e%2e/%2e%2e/etc/passwd']) {
    const r = await fetch(`${base}${path}`);
    assert.is(r.status, 404, path);
    assert.is(((await r.json()) as { error: { code: string } }).error.code, 'not_found');
  }
  const post = await fetch(`${base}/index.html`, { method: 'POST' });
  assert.is(post.status, 405);
});

test('proxy: JSON GET with query, status and headers passed through', async () => {
  const before = seen.length;
  const r = await fetch(`${base}/api/state?symbol=ESH24`);
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-engine'), 'fake');
  assert.is(r.headers.get('cache-control'), 'no-store');
  assert.equal(await r.json(), { version: 'fake', symbols: ['ESH24'], query: '?symbol=ESH24' });
  const s = seen[before];
  assert.is(s.url, '/api/state?symbol=ESH24');
  assert.is(s.headers['x-forwarded-host'], base.slice('http://'.length));
  for (const path of ['/health', '/openapi.json']) {
    const x = await fetch(`${base}${path}`);
    assert.equal(await x.json(), { path });
  }
  const missing = await fetch(`${base}/api/nothing`);
  assert.is(missing.status, 404);
  assert.is(((await missing.json()) as { error: { code: string } }).error.code, 'not_found');
});

test("proxy: POST bodies and the engine's 400 field errors pass through", async () => {
  const ok = await fetch(`${base}/api/backtest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ symbol: 'ES', spreadMultiplier: 1.5 }),
  });
  assert.is(ok.status, 202);
  assert.is(ok.headers.get('location'), '/api/backtests/bt_1');
  assert.equal(((await ok.json()) as { echo: unknown }).echo, { symbol: 'ES', spreadMultiplier: 1.5 });
  const s = seen[seen.length - 1];
  assert.is(s.method, 'POST');
  assert.is(s.headers['content-type'], 'application/json');
  assert.is(s.headers.prefer, 'respond-async');
  const bad = await fetch(`${base}/api/backtest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ symbol: 'ES', spreadMultiplier: -1 }),
  });
  assert.is(bad.status, 400);
  const body = (await bad.json()) as { error: { fields: { field: string; message: string }[] } };
  assert.equal(body.error.fields, [{ field: 'spreadMultiplier', message: 'expected a number > 0' }]);
});

test('proxy: the event stream is passed through unbuffered; a client disconnect reaches the engine', async () => {
  const sentBefore = sseSent.length;
  const closedBefore = streamClosed;
  const ac = new AbortController();
  const r = await fetch(`${base}/api/stream?hold=1`, { signal: ac.signal, headers: { accept: 'text/event-stream' } });
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
  assert.is(r.headers.get('x-accel-buffering'), 'no');
  const s = readSse(r);
  await until('the first event', () => s.events.length >= 1);
  // The first event reached us while the engine held back the second one: nothing buffered it.
  assert.is(sseSent.length, sentBefore + 1, 'first event arrived only after the second was sent: buffered');
  assert.equal(JSON.parse(s.events[0].data), { n: 1 });
  releaseHeld();
  await until('the second event', () => s.events.length >= 2);
  assert.is(sseSent[sseSent.length - 1].n, 2);
  assert.is(s.events[1].event, 'fill');
  ac.abort();
  await s.done;
  await until('the engine to see the client go', () => streamClosed > closedBefore);
  await until('the proxy to forget the stream', () => proxyInFlight() === 0);
});

test('proxy: engine dying mid-stream ends the browser stream cleanly; the server keeps serving', async () => {
  const r = await fetch(`${base}/api/stream?die=1`);
  assert.is(r.status, 200);
  const s = readSse(r);
  assert.is(await within('the stream to end', s.done), 'ended');
  assert.is(s.events.length, 2);
  const again = await fetch(`${base}/api/state`);
  assert.is(again.status, 200);
  await again.arrayBuffer();
});

test('engine down: every proxied route answers 502 JSON; static files still served', async () => {
  for (const [method, path] of [
    ['GET', '/api/state'],
    ['GET', '/api/stream'],
    ['POST', '/api/backtest'],
    ['GET', '/health'],
    ['GET', '/openapi.json'],
  ]) {
    const r = await fetch(
      `${deadBase}${path}`,
      method === 'POST' ? { method, headers: { 'content-type': 'application/json' }, body: '{"symbol":"ES"}' } : { method },
    );
    assert.is(r.status, 502, `${method} ${path}`);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await r.json()) as { error: { code: string; message: string } };
    assert.is(body.error.code, 'engine_unavailable');
    assert.match(body.error.message, /unreachable/);
  }
  const index = await fetch(`${deadBase}/`);
  assert.is(index.status, 200);
  await index.text();
  assert.ok(logLines.some((l) => /engine unreachable/.test(l)));
});

// ------------------------------------------------------------------------------------------------
// Bounded client state and the server's history recorder

const lat = (us: number) => ({ count: 10, p50_us: us, p90_us: us * 2, p99_us: us * 3, max_us: us * 4 });

function fill(k: number, simMs: number): FillView {
  return {
    symbol: 'ESH24',
    time: new Date(simMs).toISOString(),
    side: k % 2 ? 'sell' : 'buy',
    price: 5000 + (k % 7) * 0.25,
    qty: 1,
    liquidity: 'maker',
    fee: 1.43,
    pnl: 0,
    position: k % 3,
    order_id: k,
    order_to_fill_us: 200,
  };
}

/** A complete SymbolState (type-checked against the engine's), at market time simMs. */
function state(simMs: number, mid: number, fills: FillView[] = []): SymbolState {
  return {
    symbol: 'ESH24',
    root: 'ES',
    tick_size: 0.25,
    point_value: 50,
    session_date: '2024-01-02',
    sim_time: new Date(simMs).toISOString(),
    book: {
      bids: [{ price: mid - 0.125, size: 10 }],
      asks: [{ price: mid + 0.125, size: 12 }],
      best_bid: mid - 0.125,
      best_ask: mid + 0.125,
      spread: 0.25,
      mid,
      microprice: mid,
      our_orders: [],
    },
    position: {
      contracts: 1,
      avg_price: mid,
      realized_pnl_gross: 5,
      fees: 1.43,
      realized_pnl_net: 3.57,
      unrealized_pnl: 1,
      equity: 1_000_004.57,
      total_pnl: 4.57,
      drawdown_pct: 0,
      daily_pnl: 4.57,
    },
    fee_schedule: { root: 'ES', source: 'fees', maker_fee: 0.25, taker_fee: 0.85, exchange_fee: 1.18, maker_per_contract: 1.43, taker_per_contract: 2.03 },
    stats: { fills: fills.length, volume: fills.length, total_trades: 0, win_rate: 0, profit_factor: null, sharpe_ratio: 0, max_drawdown_pct: 0 },
    recent_trades: fills,
    latency: { tick_to_trade: lat(50), book_update: lat(0.5), inference: lat(3) },
    prediction: { value_ticks: 0.5, horizon_ms: 1000, age_ms: 2, model_version: 'm1' },
    model: { loaded: true, version: 'm1', error: null, used_in_quotes: false },
    risk: {
      limits: { position_limit: 50, max_order_size: 10, max_drawdown_pct: 6, max_daily_loss: 100_000, kill_switch_enabled: true },
      utilisation: { position: 0.02, drawdown: 0, daily_loss: 0 },
      kill_switch: { active: false, reason: null, time: null },
      alerts: [],
    },
    counters: {
      events: 1,
      events_per_sec: 1,
      orders: 0,
      cancels: 0,
      rejects: 0,
      risk_rejects: 0,
      blocked_requotes: 0,
      self_match_prevented: 0,
      ring_drops: 0,
      uptime_s: 1,
    },
  };
}

const payload = (uptime: number, st: SymbolState): StatePayload => ({
  version: 'v0',
  uptime_s: uptime,
  data_source: 'synthetic',
  strategy: null,
  symbols: ['ESH24'],
  states: { ESH24: st },
});
const SESSION = Date.UTC(2024, 0, 2, 14, 30);

test('bounded state: series, fills and the whole store stay within their caps', () => {
  const s = new BinnedSeries(100);
  for (let t = 0; t < 10_000; t++) s.push(t, t);
  assert.ok(s.length <= 125 && s.length >= 100, `series length ${s.length}`);
  assert.is(s.lastTime, 9999);
  const epoch = s.epoch;
  s.push(9999, 1); // same bin: replaced, nothing appended
  assert.is(s.lastValue, 1);
  assert.is(s.epoch, epoch);
  s.push(5, 5); // time went back (new engine run): reset
  assert.is(s.length, 1);
  assert.ok(s.epoch > epoch);

  const f = new FillStore(50);
  for (let k = 0; k < 1000; k++) f.add(fill(k, SESSION + k * 10));
  assert.is(f.list.length, 50);
  assert.is(f.list[0].order_id, 999, 'newest first');
  assert.not.ok(f.add(fill(999, SESSION + 9990)), 'duplicates are ignored');

  // A day of frames at 10 Hz for one symbol (simulated time 1 s per frame to stay quick).
  const store = new Store();
  for (let i = 0; i < 3 * CAPS.seriesPoints; i++) {
    const t = SESSION + i * 1000;
    store.ingest(payload(i, state(t, 5000 + (i % 40) * 0.25, [fill(i, t)])), i);
  }
  const h = store.history('ESH24');
  for (const series of [h.mid, h.forecast, h.signal, h.totalPnl, h.position, h.latency.tick_to_trade.p99]) {
    assert.ok(series.length <= CAPS.seriesPoints * 1.25, `series of ${series.length} points`);
  }
  assert.ok(h.fills.list.length <= CAPS.fills);
  // The engine restarts: uptime goes back, everything derived from the old run is dropped.
  store.ingest(payload(0.5, state(SESSION, 5000)), 0);
  assert.is(store.engineRuns, 1);
  assert.is(store.history('ESH24').mid.length, 1);
  assert.is(store.history('ESH24').fills.list.length, 0);
});

test('history recorder: records the engine stream, serves /dashboard/history, resets on a restart', async () => {
  // A fake engine streaming state frames: run 1 (two seconds of market time), then run 2.
  let run = 1;
  const conns = new Set<ServerResponse>();
  const feed = createServer((req, res) => {
    if (req.url !== '/api/stream') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    conns.add(res);
    res.on('close', () => conns.delete(res));
    const r = run;
    res.write('retry: 2000\n\n');
    for (let i = 0; i < 20; i++) {
      const t = SESSION + i * 100;
      res.write(`event: state\ndata: ${JSON.stringify(payload(r === 1 ? 100 + i / 10 : i / 10, state(t, 5000 + i * 0.25, r === 1 ? [fill(i, t)] : [])))}\n\n`);
    }
    if (r === 1) res.write(`event: fill\ndata: ${JSON.stringify(fill(99, SESSION + 1950))}\n\n`);
  });
  const port = await listen(feed);
  const recorder = new StreamRecorder({ engineUrl: `http://127.0.0.1:${port}`, logger });
  const a = createDashboardApp({ engineUrl: `http://127.0.0.1:${port}`, staticDir: dir, logger, recorder });
  const server = createAdaptorServer({ fetch: a.app.fetch }) as Server;
  const url = `http://127.0.0.1:${await listen(server)}`;
  try {
    const empty = await fetch(`${url}/dashboard/history`);
    assert.is(empty.status, 204, 'nothing recorded yet');
    recorder.start();
    await until('the recorder to read run 1', () => recorder.frames >= 20);
    const res = await fetch(`${url}/dashboard/history`, { headers: { 'accept-encoding': 'gzip' } });
    assert.is(res.status, 200);
    const snap = (await res.json()) as HistorySnapshot;
    assert.is(snap.version, 'v0');
    const h = snap.symbols.ESH24;
    // 20 frames 100 ms apart = 2 one-second bins; the last value of each bin wins.
    assert.equal(h.series.mid.t, [SESSION / 1000, SESSION / 1000 + 1]);
    assert.equal(h.series.mid.v, [5000 + 9 * 0.25, 5000 + 19 * 0.25]);
    assert.is(h.series.forecast.t[0], SESSION / 1000 + 1, 'the forecast sits at t + horizon');
    assert.is(h.series.forecast.v[0], 5000 + 9 * 0.25 + 0.5 * 0.25);
    assert.is(h.fills.length, 21, 'fills from recent_trades and the fill event');
    assert.is(h.fills[0].order_id, 99);
    const health = (await (await fetch(`${url}/dashboard/health`)).json()) as { recorder: { connected: boolean; frames: number } };
    assert.is(health.recorder.connected, true);

    // A page seeded with it continues from there (a later frame of the same run keeps the history).
    const page = new Store();
    page.seed(snap);
    page.ingest(payload(102.5, state(SESSION + 2500, 5010)), 0);
    assert.is(page.history('ESH24').mid.length, 3);
    assert.is(page.engineRuns, 0);

    // The engine restarts: the stream drops, the recorder reconnects and starts over.
    run = 2;
    for (const c of conns) c.destroy();
    await until('the recorder to read run 2', () => recorder.frames >= 40);
    const after = (await (await fetch(`${url}/dashboard/history`)).json()) as HistorySnapshot;
    assert.is(after.symbols.ESH24.fills.length, 0, "the old run's fills are gone");
    assert.ok(after.uptime_s < 5);
  } finally {
    recorder.stop();
    await close(server);
    for (const c of conns) c.destroy();
    await close(feed);
  }
});

// ------------------------------------------------------------------------------------------------
// The entry process (dist/dashboard.js)

function waitForLog(child: ChildProcess, pattern: RegExp, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`no log line matching ${pattern} within ${ms} ms; got:\n${buf}`)), ms);
    child.stdout!.on('data', (c) => {
      buf += String(c);
      for (const line of buf.split('\n')) {
        if (pattern.test(line)) {
          clearTimeout(timer);
          resolve(line);
          return;
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dashboard exited (${code}) before logging ${pattern}:\n${buf}`));
    });
  });
}

test('node dist/dashboard.js --help prints its usage and exits 0; another argument exits 2 without starting', () => {
  const help = spawnSync(process.execPath, ['dist/dashboard.js', '--help'], {
    encoding: 'utf8',
    env: { ...process.env, DASHBOARD_PORT: '0' },
    timeout: 30_000,
  });
  assert.is(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage:\n {2}dashboard /);
  for (const name of ['DASHBOARD_PORT', 'DASHBOARD_HOST', 'ENGINE_URL', 'DASHBOARD_ALLOWED_HOSTS', 'RUST_LOG'])
    assert.match(help.stdout, new RegExp(`\\n {2}${name} `));
  assert.not.match(help.stdout, /listening/);
  const bad = spawnSync(process.execPath, ['dist/dashboard.js', '--port', '8080'], {
    encoding: 'utf8',
    env: { ...process.env, DASHBOARD_PORT: '0' },
    timeout: 30_000,
  });
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /unknown argument "--port": the dashboard takes none but --help; set DASHBOARD_PORT/);
  assert.is(bad.stdout, '', 'nothing started');
});

test('node dist/dashboard.js: DASHBOARD_PORT=0, ENGINE_URL, bad env, SIGTERM with a stream open', async () => {
  if (!existsSync('dist/dashboard.js') || !existsSync('dist/dashboard/index.html')) assert.unreachable('dist/dashboard.js is missing: run npm run build first');
  const bad = spawn(process.execPath, ['dist/dashboard.js'], {
    env: { ...process.env, ENGINE_URL: 'ftp://x', DASHBOARD_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  bad.stderr!.on('data', (c) => (stderr += c));
  const badCode = await new Promise<number | null>((r) => bad.once('exit', r));
  assert.is(badCode, 2);
  assert.match(stderr, /ENGINE_URL/);
  const badHosts = spawn(process.execPath, ['dist/dashboard.js'], {
    env: { ...process.env, DASHBOARD_ALLOWED_HOSTS: 'dash.example.com,evil.example:3000', DASHBOARD_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let hostsErr = '';
  badHosts.stderr!.on('data', (c) => (hostsErr += c));
  assert.is(await new Promise<number | null>((r) => badHosts.once('exit', r)), 2);
  assert.match(hostsErr, /DASHBOARD_ALLOWED_HOSTS=.*"evil\.example:3000" is not a host name/);

  const child = spawn(process.execPath, ['dist/dashboard.js'], {
    env: { ...process.env, DASHBOARD_PORT: '0', DASHBOARD_HOST: '127.0.0.1', ENGINE_URL: `http://127.0.0.1:${enginePort}`, RUST_LOG: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const line = await waitForLog(child, /dashboard listening/, WAIT_MS);
    const port = (JSON.parse(line) as { port: number }).port;
    assert.ok(port > 0);
    const url = `http://127.0.0.1:${port}`;
    const index = await fetch(`${url}/`);
    assert.is(index.status, 200);
    assert.match(await index.text(), /app\.js/);
    const health = await fetch(`${url}/dashboard/health`);
    assert.is(((await health.json()) as { status: string }).status, 'ok');
    const r = await fetch(`${url}/api/stream`);
    const s = readSse(r);
    await until('an event through the entry process', () => s.events.length >= 1);
    child.kill('SIGTERM');
    const code = await within('the dashboard to exit', new Promise<number | null>((res) => child.once('exit', res)));
    assert.is(code, 0, 'exit code after SIGTERM');
    await s.done;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

test.run();
