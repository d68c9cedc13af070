// The live stream's fan-out (src/http/sse.ts, src/http/routes/stream.ts): one state frame per
// tick, encoded once and written to every client as the same buffer, with nothing allocated per
// client (a GC during 2,000 ticks to 1,000 clients fails it; allocation is behaviour, time is not);
// and over a real server, a burst of concurrent connections never admits more than
// max_sse_clients (a client holds its slot from admission, before its head is written).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { get, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer } from '../../../src/http/server.ts';
import { SseHub, type SseSink } from '../../../src/http/sse.ts';
import { measureAllocation } from '../../helpers/allocation.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { until } from '../../helpers/wait.ts';

const CLIENTS = 1000;
const TICKS = 2000;

/** Sinks that keep the last chunk and completion callback of each client in preallocated arrays. */
function sinks(n: number) {
  const last: (Uint8Array | null)[] = new Array(n).fill(null);
  const pending: (((err?: Error | null) => void) | null)[] = new Array(n).fill(null);
  const list: SseSink[] = [];
  for (let i = 0; i < n; i++) {
    list.push({
      write(chunk, done) {
        last[i] = chunk;
        if (done) pending[i] = done;
      },
      close() {},
      destroy() {},
    });
  }
  /** Completes every write in flight (the transport flushed it). */
  const flush = () => {
    for (let i = 0; i < n; i++) {
      const d = pending[i];
      if (d !== null) {
        pending[i] = null;
        d();
      }
    }
  };
  return { list, last, flush };
}

test(`a tick writes one shared frame to ${CLIENTS} clients and allocates nothing per client`, async () => {
  const state = JSON.stringify({ version: 'v0.1.0', states: { ESH24: { mid: 5000.125, bids: [{ price: 5000, size: 120 }] } } });
  const hub = new SseHub({ hz: 1, maxClients: CLIENTS, keepAliveMs: 60_000, state: () => state });
  const s = sinks(CLIENTS);
  const first = Buffer.from('retry: 2000\n');
  const clients = s.list.map((sink) => hub.attach(sink, first)!);
  const run = (ticks: number) => {
    for (let t = 0; t < ticks; t++) {
      hub.tick();
      s.flush();
    }
  };
  run(200); // warm-up: the tick and write paths optimised
  // 2M client writes: 16 B each (one boxed double) would be 32 MB, two scavenges at least.
  const a = await measureAllocation(() => run(TICKS), { attempts: 3 });
  console.log(`  ${CLIENTS} clients x ${TICKS} ticks: ${a.gcs} GCs, new space +${(a.newSpaceGrowth / 1024).toFixed(0)} KiB`);
  assert.is(a.gcs, 0, `${a.gcs} GCs during ${CLIENTS * TICKS} client writes: something is allocated per client`);
  const frame = s.last[0]!;
  assert.match(Buffer.from(frame).toString(), /^event: state\ndata: \{"version"/);
  assert.ok(
    s.last.every((f) => f === frame),
    'every client was handed the same buffer',
  );
  assert.is(hub.stats.coalesced, 0, 'every write completed before the next tick: nothing coalesced');
  for (const c of clients) hub.detach(c);
  assert.not.ok(hub.active);
});

test('a burst of concurrent connections admits exactly max_sse_clients; the rest get 503 and every slot frees on disconnect', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sse-fanout-'));
  const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n[backtest]\npool_size = 1\n[http]\nstream_hz = 20\nmax_sse_clients = 5\n`, 'sse-fanout.toml');
  const { logger } = capturingLogger('error');
  const backtests = await BacktestService.open({ config, logger, poolSize: 1 });
  const server = await startHttpServer(
    { runtime: new FakeRuntime(), config, logger, backtests },
    { port: 0, host: '127.0.0.1', latencyDrainMs: 0, defaultMetrics: false },
  );
  const reqs: ClientRequest[] = [];
  try {
    const statuses = await Promise.all(
      Array.from(
        { length: 12 },
        () =>
          new Promise<number>((resolve, reject) => {
            const req = get(`http://127.0.0.1:${server.port}/api/stream`, { agent: false }, (res) => {
              resolve(res.statusCode ?? 0);
              res.resume();
            });
            req.on('error', reject);
            reqs.push(req);
          }),
      ),
    );
    assert.is(statuses.filter((s) => s === 200).length, 5, `statuses ${statuses.join(' ')}`);
    assert.is(statuses.filter((s) => s === 503).length, 7);
    assert.is(server.http.hub.size, 5);
    for (const r of reqs) r.destroy();
    await until('every slot to free', () => server.http.hub.size === 0);
  } finally {
    for (const r of reqs) r.destroy();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
