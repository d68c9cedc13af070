// The engine as a process: startup, HTTP on an ephemeral port, SIGTERM, and a restart that keeps
// the backtest journal.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeConfig } from '../../helpers/cli.ts';
import { startEngine } from '../../helpers/engine-process.ts';

const CONFIG = writeConfig(`
[simulation]
speed = 4
session_start = "09:30"
session_end = "09:40"
`);

test('starts, logs v0.1.0, serves /health and /api/state, and exits 0 on SIGTERM within 10 s', async () => {
  const e = await startEngine(CONFIG);
  try {
    assert.ok(
      e.logs.some((l) => l.includes('"version":"v0.1.0"')),
      'start line with the version',
    );
    await e.waitHealthy();
    const h = await fetch(`${e.url}/health`);
    assert.is(h.status, 200);
    const body = (await h.json()) as { version: string; workers: unknown[] };
    assert.is(body.version, 'v0.1.0');
    assert.is(body.workers.length, 3);
    // An open SSE stream must not hold the shutdown up.
    const ctrl = new AbortController();
    const stream = await fetch(`${e.url}/api/stream`, { signal: ctrl.signal });
    assert.is(stream.status, 200);
    const t0 = Date.now();
    const code = await e.stop('SIGTERM');
    assert.is(code, 0);
    assert.ok(Date.now() - t0 < 10_000, `took ${Date.now() - t0} ms`);
    ctrl.abort();
  } finally {
    await e.stop('SIGKILL');
  }
});

test('a bad PORT is a clear error', async () => {
  let err = '';
  try {
    await startEngine(CONFIG, { PORT: 'http' });
  } catch (e) {
    err = String(e);
  }
  assert.match(err, /PORT = \\?"http\\?": expected an integer port/);
});

test('a backtest journaled by one engine process is served by the next', async () => {
  const a = await startEngine(CONFIG);
  let id = '';
  try {
    const r = await fetch(`${a.url}/api/backtest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ symbol: 'ES', initialCapital: 100000, useML: false }),
    });
    assert.is(r.status, 200);
    const res = (await r.json()) as Record<string, unknown> & { id: string };
    id = res.id;
    for (const k of ['total_pnl', 'sharpe_ratio', 'max_drawdown_pct', 'win_rate', 'total_trades']) assert.ok(k in res, k);
  } finally {
    assert.is(await a.stop(), 0);
  }
  const b = await startEngine(CONFIG);
  try {
    const one = await fetch(`${b.url}/api/backtests/${id}`);
    assert.is(one.status, 200);
    const run = (await one.json()) as { id: string; status: string };
    assert.is(run.id, id);
    assert.is(run.status, 'completed');
    const list: unknown = await (await fetch(`${b.url}/api/backtests`)).json();
    assert.ok(JSON.stringify(list).includes(id));
  } finally {
    assert.is(await b.stop(), 0);
  }
});

test.run();
