// The live stream (SSE) over a real server: events on connect and at stream_hz, injected fill and
// alert events, keep-alive comments, client limit, disconnect frees the subscription, a stuck
// client is coalesced then dropped without slowing anyone, shutdown ends every stream promptly.
// Plus unit tests of the hub's coalescing and drop rules with fake sinks.

import { assertDocumented, eventComponent } from '../../helpers/openapi-check.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { createLogger } from '../../../src/log.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { startHttpServer } from '../../../src/http/server.ts';
import { SseHub, type SseSink } from '../../../src/http/sse.ts';
import { openSse } from '../../helpers/sse-client.ts';
import { sleep, until, WAIT_MS } from '../../helpers/wait.ts';

const dir = mkdtempSync(join(tmpdir(), 'http-stream-'));
// Errors are expected in one test (a failing runtime); keep them out of the test output.
const logger = createLogger({ env: {}, configLevel: 'error', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const cfg = (hz: number, maxClients: number) =>
  parseConfig(`data_dir = ${JSON.stringify(dir)}\n[backtest]\npool_size = 1\n[http]\nstream_hz = ${hz}\nmax_sse_clients = ${maxClients}\n`, 'http-stream.toml');

const metricValue = async (base: string, series: string) => {
  const text = await (await fetch(base + '/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
};

test('state on connect, state events at ~stream_hz, fill/alert events, keep-alive, disconnect frees everything', async () => {
  const runtime = new FakeRuntime();
  const backtests = await BacktestService.open({ config: cfg(20, 2), logger, dataDir: join(dir, 'a') });
  // No state cache: a late tick less than 50 ms after the previous one would reuse its body, and
  // every frame is to carry the state of its own moment.
  const server = await startHttpServer(
    { runtime, config: cfg(20, 2), logger, backtests },
    { port: 0, host: '127.0.0.1', keepAliveMs: 300, latencyDrainMs: 0, stateMaxAgeMs: 0 },
  );
  const base = `http://127.0.0.1:${server.port}`;
  try {
    const t0 = Date.now();
    const s = await openSse(base + '/api/stream');
    assert.is(s.res.status, 200);
    assert.match(s.res.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.is(s.res.headers.get('cache-control'), 'no-cache');
    await until('the first state event', () => s.events.length > 0);
    assert.is(s.events[0].event, 'state', 'first event is the state');
    assert.is(s.retry, 2000);
    const first = JSON.parse(s.events[0].data);
    assert.equal(first.symbols, ['ESH24', 'NQH24']);
    assertDocumented(eventComponent('state'), first);
    assert.is(runtime.listenerCount, 1, 'subscribed to runtime events while a client is connected');
    assert.is(await metricValue(base, 'engine_sse_clients'), 1);

    await sleep(150);
    const fill = runtime.emitFill('ESH24', 'sell');
    runtime.emitAlert('NQH24');
    await until('the fill and alert events', () => s.of('fill').length === 1 && s.of('alert').length === 1);
    assert.equal(JSON.parse(s.of('fill')[0].data), fill);
    const alert = JSON.parse(s.of('alert')[0].data);
    assert.is(alert.symbol, 'NQH24');
    assert.is(alert.alert.code, 'DRAWDOWN_WARNING');
    assertDocumented(eventComponent('fill'), JSON.parse(s.of('fill')[0].data));
    assertDocumented(eventComponent('alert'), alert);

    // Paced by stream_hz: at least a few ticks arrive, and never more than 20/s allow (a busy
    // machine may deliver fewer, so there is no lower bound on the rate).
    await until('ten state events and three keep-alives', () => s.of('state').length >= 10 && s.comments.length >= 3);
    const states = s.of('state');
    const spanS = (states[states.length - 1].at - t0) / 1000;
    console.log(
      `  stream: ${states.length} state events in ${spanS.toFixed(2)} s at stream_hz 20, ${s.comments.length} keep-alives, hub ${JSON.stringify(server.http.hub.stats)}`,
    );
    assert.ok(states.length <= 2 + 20 * spanS, `${states.length} state events in ${spanS.toFixed(2)} s: more than stream_hz 20 allows`);
    const times = states.map((e) => JSON.parse(e.data).states.ESH24.sim_time);
    assert.ok(new Set(times).size > states.length * 0.8, 'state events carry fresh state');
    assert.ok(s.comments.length >= 3 && s.comments.every((c) => c.text === 'keep-alive'), `keep-alive comments: ${s.comments.length}`);
    assert.ok(JSON.parse(states[states.length - 1].data).states.ESH24.recent_trades.length === 1, 'state includes the fill');

    await s.close();
    await until('the hub to release the client', () => server.http.hub.size === 0);
    assert.is(runtime.listenerCount, 0, 'runtime subscription released');
    assert.is(backtests.listenerCount, 0, 'backtest subscription released');
    assert.not.ok(server.http.hub.active, 'timers stopped');
    assert.is(await metricValue(base, 'engine_sse_clients'), 0);
    const calls = runtime.calls.state;
    await sleep(200);
    assert.is(runtime.calls.state, calls, 'no state is built while nobody listens');
  } finally {
    await server.close();
  }
});

test('max_sse_clients: 503 JSON with Retry-After beyond the limit; a slot frees on disconnect', async () => {
  const runtime = new FakeRuntime();
  const backtests = await BacktestService.open({ config: cfg(10, 2), logger, dataDir: join(dir, 'b') });
  const server = await startHttpServer({ runtime, config: cfg(10, 2), logger, backtests }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  const base = `http://127.0.0.1:${server.port}`;
  try {
    const a = await openSse(base + '/api/stream');
    const b = await openSse(base + '/api/stream');
    assert.is(a.res.status, 200);
    assert.is(b.res.status, 200);
    const c = await fetch(base + '/api/stream');
    assert.is(c.status, 503);
    assert.ok(Number(c.headers.get('retry-after')) > 0);
    const body = (await c.json()) as { error: { code: string } };
    assert.is(body.error.code, 'too_many_clients');
    assert.is(runtime.listenerCount, 1, 'one shared runtime subscription for all clients');
    await a.close();
    await until('a slot to free', () => server.http.hub.size === 1);
    const d = await openSse(base + '/api/stream');
    assert.is(d.res.status, 200);
    await until('d to get its state', () => d.events.length > 0);
    await sleep(300);
    assert.is(b.comments.length + d.comments.length, 0, 'default keep-alive interval is 15 s, not a busy loop');
    await Promise.all([b.close(), d.close()]);
    await until('all clients to leave', () => server.http.hub.size === 0);
    assert.is(runtime.listenerCount, 0);
  } finally {
    await server.close();
  }
});

test('a stuck client is coalesced, then dropped and counted; others and /health are unaffected', async () => {
  // ~120 KB state frames at 20/s: a client that never reads fills the socket buffers quickly.
  const runtime = new FakeRuntime({ recentTrades: 250 });
  const backtests = await BacktestService.open({ config: cfg(20, 10), logger, dataDir: join(dir, 'c') });
  const server = await startHttpServer(
    { runtime, config: cfg(20, 10), logger, backtests },
    { port: 0, host: '127.0.0.1', sseStallTimeoutMs: 800, latencyDrainMs: 0 },
  );
  const base = `http://127.0.0.1:${server.port}`;
  const stuck = connect(server.port, '127.0.0.1');
  let stuckClosed = false;
  stuck.on('close', () => (stuckClosed = true));
  stuck.on('error', () => {});
  try {
    await new Promise<void>((r) => stuck.once('connect', () => r()));
    stuck.pause(); // never reads
    stuck.write('GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
    const good = await openSse(base + '/api/stream');
    const t0 = Date.now();
    const healthMs: number[] = [];
    while (Date.now() - t0 < WAIT_MS && server.http.hub.stats.dropped === 0) {
      const h0 = performance.now();
      const h = await fetch(base + '/health');
      await h.arrayBuffer();
      assert.is(h.status, 200);
      healthMs.push(performance.now() - h0);
      await sleep(50);
    }
    const elapsed = (Date.now() - t0) / 1000;
    const stats = server.http.hub.stats;
    healthMs.sort((x, y) => x - y);
    console.log(
      `  stuck client dropped after ${elapsed.toFixed(2)} s; coalesced frames ${stats.coalesced}; good client ${good.of('state').length} states; ` +
        `/health p50 ${healthMs[Math.floor(healthMs.length / 2)].toFixed(1)} ms max ${healthMs[healthMs.length - 1].toFixed(1)} ms (${healthMs.length} calls)`,
    );
    assert.is(stats.dropped, 1, 'the stuck client was dropped');
    stuck.resume(); // read what was buffered: the connection must then end
    await until('the stuck socket to close', () => stuckClosed);
    assert.ok(stats.coalesced > 0, 'frames were coalesced before the drop');
    assert.is(server.http.hub.size, 1, 'the good client stays');
    const seen = good.of('state').length;
    assert.ok(seen > 0, 'the good client received state while the stuck one was stalled');
    await until('the good client to keep receiving state after the drop', () => good.of('state').length >= seen + 3);
    assert.is(await metricValue(base, 'engine_sse_dropped_clients_total{reason="stalled"}'), 1);
    assert.ok((await metricValue(base, 'engine_sse_coalesced_frames_total')) > 0);
    await good.close();
  } finally {
    stuck.destroy();
    await server.close();
  }
});

test('CORS on the stream; HEAD opens no stream; a failing runtime gives a 500 JSON at connect and skipped frames later, never a crash', async () => {
  const runtime = new FakeRuntime();
  const backtests = await BacktestService.open({ config: cfg(20, 10), logger, dataDir: join(dir, 'e') });
  // stateMaxAgeMs 0: every tick asks the runtime. With the default cache (50 ms) a tick just
  // after the runtime starts failing may still send the state cached before it, which a busy
  // machine's timer drift made happen.
  const server = await startHttpServer(
    { runtime, config: cfg(20, 10), logger, backtests },
    { port: 0, host: '127.0.0.1', latencyDrainMs: 0, stateMaxAgeMs: 0 },
  );
  const base = `http://127.0.0.1:${server.port}`;
  const real = runtime.state.bind(runtime);
  try {
    const head = await fetch(base + '/api/stream', { method: 'HEAD' });
    assert.is(head.status, 200);
    assert.is(server.http.hub.size, 0, 'HEAD attaches no client');

    runtime.state = () => {
      throw new Error('seqlock retry limit');
    };
    const broken = await fetch(base + '/api/stream');
    assert.is(broken.status, 500);
    assert.is(((await broken.json()) as { error: { code: string } }).error.code, 'internal_error');
    runtime.state = real;

    const ac = new AbortController();
    const res = await fetch(base + '/api/stream', { headers: { origin: 'http://localhost:3000' }, signal: ac.signal });
    assert.is(res.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    await until('the client to attach', () => server.http.hub.size === 1);
    const framesBefore = server.http.hub.stats.stateFrames;
    runtime.state = () => {
      throw new Error('seqlock retry limit');
    };
    await sleep(200);
    assert.is(server.http.hub.stats.stateFrames, framesBefore, 'no frame while the runtime fails');
    runtime.state = real;
    await until('frames to resume', () => server.http.hub.stats.stateFrames > framesBefore + 2);
    assert.is(server.http.hub.size, 1, 'the client stayed connected');
    ac.abort();
  } finally {
    runtime.state = real;
    await server.close();
  }
});

test('shutdown ends every SSE stream and close() returns promptly', async () => {
  const runtime = new FakeRuntime();
  const backtests = await BacktestService.open({ config: cfg(10, 10), logger, dataDir: join(dir, 'd') });
  // With a grace period this long, close() returns before it only if it ended the streams itself.
  const server = await startHttpServer(
    { runtime, config: cfg(10, 10), logger, backtests },
    { port: 0, host: '127.0.0.1', latencyDrainMs: 0, graceMs: WAIT_MS },
  );
  const base = `http://127.0.0.1:${server.port}`;
  const clients = await Promise.all([openSse(base + '/api/stream'), openSse(base + '/api/stream'), openSse(base + '/api/stream')]);
  await until('every client to get its first state', () => clients.every((c) => c.events.length > 0));
  const t0 = performance.now();
  await server.close();
  const ms = performance.now() - t0;
  console.log(`  close() with 3 open streams took ${ms.toFixed(0)} ms`);
  assert.ok(ms < WAIT_MS, `close took ${ms} ms: it waited out the grace period instead of ending the streams`);
  await until('every stream to end', () => clients.every((c) => c.ended));
  for (const c of clients) {
    assert.ok(c.ended, 'stream ended');
    assert.is(c.events[c.events.length - 1].event, 'shutdown');
  }
  assert.is(runtime.listenerCount, 0);
  let refused = false;
  await fetch(base + '/health').catch(() => (refused = true));
  assert.ok(refused, 'no longer accepting connections');
});

// ---- hub unit tests (fake sinks, manual ticks) ----

function fakeSink() {
  const writes: string[] = [];
  const pending: (() => void)[] = [];
  let destroyed = false;
  let stuck = false;
  const sink: SseSink = {
    write(chunk, done) {
      writes.push(Buffer.from(chunk).toString());
      if (!done) return;
      if (stuck) pending.push(() => done());
      else void Promise.resolve().then(() => done());
    },
    close() {},
    destroy() {
      destroyed = true;
    },
  };
  return {
    sink,
    writes,
    release: () => pending.splice(0).forEach((r) => r()),
    set stuck(v: boolean) {
      stuck = v;
    },
    get destroyed() {
      return destroyed;
    },
  };
}

test('hub: a busy client has at most one write in flight and only the latest state pending', async () => {
  let n = 0;
  let now = 0;
  const hub = new SseHub({ hz: 1, maxClients: 5, keepAliveMs: 60_000, stallTimeoutMs: 5000, state: () => ({ n: ++n }), now: () => now });
  const slow = fakeSink();
  const fast = fakeSink();
  slow.stuck = true;
  const cs = hub.attach(slow.sink, Buffer.from(hub.stateFrame()))!;
  const cf = hub.attach(fast.sink, Buffer.from(hub.stateFrame()))!;
  await sleep(0);
  for (let i = 0; i < 5; i++) {
    now += 100;
    hub.tick();
    await sleep(0);
  }
  assert.is(slow.writes.length, 1, 'one write in flight, nothing else sent');
  assert.is(fast.writes.length, 6, 'the fast client got every frame');
  assert.is(hub.stats.coalesced, 4, 'four of the five frames were replaced while pending');
  slow.stuck = false;
  slow.release();
  await sleep(0);
  assert.is(slow.writes.length, 2, 'then exactly one (the latest) frame');
  assert.match(slow.writes[1], /"n":7\}/);
  assert.match(fast.writes[5], /"n":7\}/);
  hub.detach(cs);
  hub.detach(cf);
  assert.not.ok(hub.active);
});

test('hub: a stalled or overflowing client is dropped and its sink destroyed', async () => {
  let now = 0;
  const drops: string[] = [];
  const hub = new SseHub({ hz: 1, maxClients: 5, stallTimeoutMs: 1000, maxQueuedFrames: 3, state: () => ({}), now: () => now, onDrop: (r) => drops.push(r) });
  const a = fakeSink();
  a.stuck = true;
  hub.attach(a.sink, Buffer.from('x'));
  now += 999;
  hub.tick();
  assert.not.ok(a.destroyed, 'not yet stalled');
  now += 2;
  hub.tick();
  assert.ok(a.destroyed, 'stalled past the timeout');
  assert.equal(drops, ['stalled']);
  const b = fakeSink();
  b.stuck = true;
  hub.attach(b.sink, Buffer.from('x'));
  for (let i = 0; i < 3; i++) hub.publish('fill', { i });
  assert.not.ok(b.destroyed);
  hub.publish('fill', { i: 3 });
  assert.ok(b.destroyed, 'queue overflow');
  assert.equal(drops, ['stalled', 'overflow']);
  assert.is(hub.size, 0);
  assert.not.ok(hub.active, 'timers released with the last client');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
