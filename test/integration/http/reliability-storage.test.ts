// Issue 16 §1 and §3, asserted on behaviour (never on speed): the journal stays within its
// configured bounds under a flood and keeps only index entries in memory; a restart over 10,000
// runs pages correctly; corrupt records are quarantined and counted; a failed journal write is
// reported as a failure; admission counts sessions; Idempotency-Key; a client that disconnects
// from a synchronous POST cancels its run and frees the pool.

import { ensureBuilt } from '../../helpers/build.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { assertDocumented } from '../../helpers/openapi-check.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { until } from '../../helpers/wait.ts';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BacktestResult } from '../../../src/wire/backtest-run.ts';
import { Admission } from '../../../src/backtest-service/admission.ts';
import { serializeRecord, type BacktestRecord } from '../../../src/backtest-service/journal/record.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { BacktestService, type Runner } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import type { EngineConfig } from '../../../src/config/schema.ts';
import { startHttpServer } from '../../../src/http/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'reliability-storage-'));
const { logger, lines: logLines } = capturingLogger('warn');
const REFERENCE = { symbol: 'ES', initialCapital: 100000, useML: false };
/** 2024-01-02..2024-01-08: five trading days. */
const FIVE_DAYS = { ...REFERENCE, startDate: '2024-01-02', endDate: '2024-01-08' };
/** The keys of a list item (the index entry as served). */
const INDEX_KEYS = [
  'id',
  'status',
  'started_at',
  'finished_at',
  'duration_ms',
  'symbol',
  'start_date',
  'end_date',
  'sessions',
  'seed',
  'use_ml',
  'data_source',
  'strategy',
  'total_pnl',
  'sharpe_ratio',
  'max_drawdown_pct',
  'kill_switch_tripped',
  'error',
  'bytes',
];

function configWith(toml: string): EngineConfig {
  return parseConfig(`data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n${toml}`, 'reliability.toml');
}
const baseConfig = configWith('[backtest]\npool_size = 2\n');

/** A result of about `points` x 40 bytes (its equity curve), plus `alerts` risk alerts of ~100 bytes each. */
function fakeResult(symbol: string, points = 500, alerts = 0): BacktestResult {
  const equity_curve = Array.from({ length: points }, (_, i) => ({ t: 1_704_205_800_000 + i * 60_000, equity: 100_000 + Math.sin(i) * 1234.567 }));
  const alertList = Array.from({ length: alerts }, (_, i) => ({
    ts: i,
    date: '2024-01-02',
    level: 'warning',
    message: `inventory at ${i} contracts, over the soft limit`,
  }));
  return { symbol, total_pnl: 12.5, sharpe_ratio: 1.25, max_drawdown_pct: 0.5, equity_curve, alerts: alertList } as unknown as BacktestResult;
}

/** A runner that completes at once. */
const instant: Runner = async (req) => ({ result: fakeResult(req.symbol) });

/** A runner that runs until aborted (or until `release()`), counting its calls. */
function gatedRunner() {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const calls = { n: 0 };
  const runner: Runner = async (req, _cfg, opts) => {
    calls.n++;
    await new Promise<void>((resolve, reject) => {
      if (opts.signal?.aborted) reject(opts.signal.reason);
      opts.signal?.addEventListener('abort', () => reject(opts.signal!.reason), { once: true });
      void gate.then(resolve);
    });
    return { result: fakeResult(req.symbol) };
  };
  return { runner, release: () => release(), calls };
}

function journalFiles(data: string): { files: string[]; bytes: number } {
  const jdir = join(data, 'backtests');
  const files = readdirSync(jdir).filter((f) => f.endsWith('.jsonl'));
  return { files, bytes: files.reduce((a, f) => a + statSync(join(jdir, f)).size, 0) };
}

async function serve(backtests: BacktestService, config: EngineConfig) {
  const server = await startHttpServer({ runtime: new FakeRuntime(), config, logger, backtests }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  return { server, base: `http://127.0.0.1:${server.port}` };
}

async function postJson(base: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api/backtest`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
  return { res, body: (await res.json()) as Record<string, any> };
}

beforeAll(test, () => ensureBuilt());
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('a submit-and-cancel flood stays within max_runs; cancelled records are under 8 KiB; memory holds index entries only', async () => {
  const data = join(dir, 'flood-count');
  const config = configWith('[backtest]\npool_size = 2\nmax_queued_sessions = 62\n[storage]\nmax_runs = 40\n');
  const { runner } = gatedRunner();
  const svc = await BacktestService.open({ config, logger, dataDir: data, runner });
  try {
    for (let i = 0; i < 300; i++) {
      // The raw body's symbol is padded and lower case: the journal keeps the normalised "ES", never the body.
      const out = svc.submit({ ...REFERENCE, symbol: ` es${' '.repeat(12)}`, seed: i });
      if (out.kind !== 'accepted') throw new Error(`not accepted: ${out.kind}`);
      svc.cancel(out.id);
      const rec = await out.done;
      assert.is(rec.status, 'cancelled');
    }
    const { files, bytes } = journalFiles(data);
    assert.is(files.length, 40, 'max_runs files');
    assert.is(svc.total, 40, 'max_runs index entries');
    const largest = Math.max(...files.map((f) => statSync(join(data, 'backtests', f)).size));
    assert.ok(largest < 8192, `a cancelled run's record is ${largest} bytes`);
    assert.is(svc.storageHealth().bytes, bytes, 'the index knows the bytes on disk');
    const page = svc.list(100);
    assert.is(page.entries.length, 40);
    for (const e of page.entries) {
      assert.equal(Object.keys(e).sort(), [...INDEX_KEYS, 'idempotency'].sort(), 'an index entry, not a record');
      assert.is(e.symbol, 'ES');
    }
    assert.is(page.entries[0].seed, 299, 'the newest runs are kept');
    assert.is(page.entries[39].seed, 260, 'the oldest went first');
  } finally {
    await svc.close();
  }
});

test('completed runs stay within max_bytes; a record over max_record_bytes fails the run with record_too_large', async () => {
  const data = join(dir, 'flood-bytes');
  const maxBytes = 1024 * 1024;
  const config = configWith(`[backtest]\npool_size = 2\n[storage]\nmax_bytes = ${maxBytes}\nmax_record_bytes = 65536\n`);
  const svc = await BacktestService.open({ config, logger, dataDir: data, runner: instant });
  try {
    for (let i = 0; i < 80; i++) {
      const out = svc.submit({ ...REFERENCE, seed: i });
      if (out.kind !== 'accepted') throw new Error(`not accepted: ${out.kind}`);
      assert.is((await out.done).status, 'completed');
    }
    const { files, bytes } = journalFiles(data);
    assert.ok(bytes <= maxBytes, `${bytes} bytes on disk`);
    assert.ok(files.length > 20 && files.length < 80, `${files.length} runs kept`);
    assert.is(svc.total, files.length);
  } finally {
    await svc.close();
  }
  const huge: Runner = async (req) => ({ result: fakeResult(req.symbol, 500, 1000) });
  const big = await BacktestService.open({ config, logger, dataDir: join(dir, 'too-large'), runner: huge });
  try {
    const out = big.submit(REFERENCE);
    if (out.kind !== 'accepted') throw new Error('not accepted');
    const rec = await out.done;
    assert.is(rec.status, 'failed');
    assert.is(rec.error!.code, 'record_too_large');
    assert.match(rec.error!.message, /max_record_bytes = 65536/);
    const back = (await big.read(rec.id))!;
    assert.is(back.status, 'failed', 'the failure itself is journaled (without the result)');
    assert.is(back.result, null);
  } finally {
    await big.close();
  }
});

test('a restart over 10,000 journaled runs serves every run once across pages, newest first, stable under inserts', async () => {
  const data = join(dir, 'restart-10k');
  const jdir = join(data, 'backtests');
  mkdirSync(jdir, { recursive: true });
  const config = configWith('[backtest]\npool_size = 2\n[storage]\nmax_runs = 20000\n');
  const v = validateBacktestRequest(REFERENCE, config);
  if (!v.ok) throw new Error('invalid reference');
  const t0 = Date.now() - 3_600_000;
  const ids: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const at = new Date(t0 + i * 100);
    const id = `bt_${at.toISOString().replace(/[-:.]/g, '')}_${(i % 36 ** 4).toString(36).padStart(4, '0')}_${(i % 0xffffff).toString(16).padStart(6, '0')}`;
    const rec: BacktestRecord = {
      id,
      status: 'completed',
      resolved: { ...v.request, seed: i },
      started_at: at.toISOString(),
      finished_at: at.toISOString(),
      duration_ms: 10,
      progress: 1,
      error: null,
      result: fakeResult('ES', 20),
      idempotency: null,
    };
    writeFileSync(join(jdir, `${id}.jsonl`), serializeRecord(rec).text);
    ids.push(id);
  }
  const svc = await BacktestService.open({ config, logger, dataDir: data, runner: instant });
  const { server, base } = await serve(svc, config);
  try {
    assert.is(svc.total, 10_000);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `${base}/api/backtests?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const body = (await (await fetch(url)).json()) as { total: number; runs: { id: string; seed: number }[]; next_cursor: string | null };
      if (pages === 0) assertDocumented('BacktestList', body);
      seen.push(...body.runs.map((r) => r.id));
      cursor = body.next_cursor;
      pages++;
      // A run inserted while a client pages lands before its first page, never in a later one.
      if (pages === 3) assert.is((await postJson(base, REFERENCE)).res.status, 200);
    } while (cursor !== null);
    assert.is(pages, 100);
    assert.equal(seen, [...ids].reverse(), 'every run once, newest first');
    const first = (await (await fetch(`${base}/api/backtests?limit=1`)).json()) as { total: number; runs: { id: string }[] };
    assert.is(first.total, 10_001);
    assert.ok(first.runs[0].id > ids[9999], 'the new run is the newest');
    const one = (await (await fetch(`${base}/api/backtests/${ids[1234]}`)).json()) as { id: string; seed: number; equity_curve: unknown[] };
    assert.is(one.id, ids[1234]);
    assert.is(one.equity_curve.length, 20, 'the result is read from disk on demand');
    const tooMany = await fetch(`${base}/api/backtests?limit=101`);
    assert.is(tooMany.status, 400);
    assert.is(((await tooMany.json()) as { error: { fields: { field: string }[] } }).error.fields[0].field, 'limit');
    const badCursor = await fetch(`${base}/api/backtests?cursor=nonsense`);
    assert.is(badCursor.status, 400);
    assert.is(((await badCursor.json()) as { error: { fields: { field: string }[] } }).error.fields[0].field, 'cursor');
  } finally {
    await server.close();
  }
});

test('at start: corrupt records are quarantined, counted in a metric and logged by file name; temp files are removed', async () => {
  const data = join(dir, 'corrupt');
  const jdir = join(data, 'backtests');
  mkdirSync(jdir, { recursive: true });
  const config = baseConfig;
  const v = validateBacktestRequest(REFERENCE, config);
  if (!v.ok) throw new Error('invalid reference');
  const good: BacktestRecord = {
    id: 'bt_20260101T000000000Z_0001_aaaaaa',
    status: 'completed',
    resolved: v.request,
    started_at: new Date().toISOString(),
    finished_at: new Date().toISOString(),
    duration_ms: 5,
    progress: 1,
    error: null,
    result: fakeResult('ES', 10),
    idempotency: null,
  };
  const text = serializeRecord(good).text;
  writeFileSync(join(jdir, `${good.id}.jsonl`), text);
  writeFileSync(join(jdir, 'bt_20260101T000000000Z_0002_bbbbbb.jsonl'), text.replaceAll(good.id, 'bt_20260101T000000000Z_0002_bbbbbb').slice(0, -40)); // torn
  writeFileSync(join(jdir, 'bt_20260101T000000000Z_0003_cccccc.jsonl'), '\u0000\u0000garbage');
  writeFileSync(join(jdir, `${good.id}.jsonl.12345.tmp`), text.slice(0, 100));
  const svc = await BacktestService.open({ config, logger, dataDir: data, runner: instant });
  const { server, base } = await serve(svc, config);
  try {
    assert.is(svc.total, 1);
    assert.equal(readdirSync(join(jdir, 'quarantine')).sort(), ['bt_20260101T000000000Z_0002_bbbbbb.jsonl', 'bt_20260101T000000000Z_0003_cccccc.jsonl']);
    assert.not.ok(
      readdirSync(jdir).some((f) => f.endsWith('.tmp')),
      'temp file removed',
    );
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /^engine_backtest_journal_quarantined_total 2$/m);
    assert.match(metrics, /^engine_backtest_journal_runs 1$/m);
    for (const f of ['bt_20260101T000000000Z_0002_bbbbbb.jsonl', 'bt_20260101T000000000Z_0003_cccccc.jsonl']) {
      assert.ok(
        logLines.some((l) => l.includes('quarantined a corrupt backtest journal record') && l.includes(`"file":"${f}"`)),
        `logged: ${f}`,
      );
    }
    const health = (await (await fetch(`${base}/health`)).json()) as { storage: { quarantined: number; status: string } };
    assert.is(health.storage.quarantined, 2);
    assert.is(health.storage.status, 'ok');
  } finally {
    await server.close();
  }
});

test('a failed journal write is not a success: 500 storage_error, /health degraded, a metric; recovers once writes succeed', async () => {
  const data = join(dir, 'failed-write');
  const jdir = join(data, 'backtests');
  const { runner, release } = gatedRunner();
  const config = baseConfig;
  const svc = await BacktestService.open({ config, logger, dataDir: data, runner });
  const { server, base } = await serve(svc, config);
  try {
    const pending = postJson(base, REFERENCE);
    await until('the run journaled as running', () => svc.running === 1 && journalFiles(data).files.length === 1);
    // Replacing the directory with a regular file stops writes even as root (chmod would not).
    renameSync(jdir, `${jdir}.moved`);
    writeFileSync(jdir, 'not a directory');
    release();
    const { res, body } = await pending;
    assert.is(res.status, 500);
    assert.is(body.error.code, 'storage_error');
    assertDocumented('Error', body);
    const health = await fetch(`${base}/health`);
    assert.is(health.status, 503);
    const h = (await health.json()) as { status: string; storage: { status: string; write_failures: number; last_error: string } };
    assertDocumented('Health', h);
    assert.is(h.status, 'degraded');
    assert.is(h.storage.status, 'degraded');
    assert.is(h.storage.write_failures, 1);
    assert.match(h.storage.last_error, /ENOTDIR|EEXIST|not a directory/);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /^engine_backtest_journal_write_failures_total 1$/m);
    const list = (await (await fetch(`${base}/api/backtests`)).json()) as { runs: { status: string; error: { code: string } }[] };
    assert.is(list.runs[0].status, 'failed');
    assert.is(list.runs[0].error.code, 'storage_error');
    // A run admitted while storage is down fails before it starts.
    const second = await postJson(base, REFERENCE);
    assert.is(second.res.status, 500);
    assert.is(second.body.error.code, 'storage_error');
    rmSync(jdir);
    renameSync(`${jdir}.moved`, jdir);
    const third = await postJson(base, REFERENCE);
    assert.is(third.res.status, 200, JSON.stringify(third.body));
    assert.is((await fetch(`${base}/health`)).status, 200, 'storage ok again');
  } finally {
    release();
    await server.close();
  }
});

test('admission counts sessions; Retry-After is the queue drain time (sessions x mean session seconds / threads)', async () => {
  const config = configWith('[backtest]\nmax_days = 10\npool_size = 2\nmax_queued_sessions = 10\nsession_seconds_estimate = 30\n');
  const { runner, release } = gatedRunner();
  const svc = await BacktestService.open({ config, logger, dataDir: join(dir, 'admission'), runner });
  try {
    const a = svc.submit(FIVE_DAYS);
    const b = svc.submit({ ...FIVE_DAYS, seed: 2 });
    assert.is(a.kind, 'accepted');
    assert.is(b.kind, 'accepted');
    assert.is(svc.queuedSessions, 10);
    const c = svc.submit(REFERENCE);
    if (c.kind !== 'busy') throw new Error(`expected busy, got ${c.kind}`);
    assert.is(c.retryAfterS, Math.ceil((10 * 30) / 2), '10 sessions x 30 s / 2 threads');
    assert.match(c.message, /max_queued_sessions = 10/);
  } finally {
    release();
    await svc.close();
  }
  const adm = new Admission({ maxSessions: 10, poolThreads: 2, defaultSessionSeconds: 30 });
  adm.record(8, 4); // 4 sessions on 2 threads in 8 s: 4 thread-seconds per session
  assert.is(adm.meanSessionSeconds, 4);
  assert.is(adm.retryAfterSeconds(10), 20);
  assert.is(adm.retryAfterSeconds(0), 1, 'never 0');
});

test('Idempotency-Key: same key + same request returns the same run; a different request is 422 naming the header; remembered across a restart', async () => {
  const data = join(dir, 'idempotency');
  const config = baseConfig;
  let calls = 0;
  const counting: Runner = async (req, cfg, opts) => {
    calls++;
    return instant(req, cfg, opts);
  };
  let svc = await BacktestService.open({ config, logger, dataDir: data, runner: counting });
  let app = await serve(svc, config);
  const key = { 'idempotency-key': '"order-7f3a"' };
  let first: Awaited<ReturnType<typeof postJson>>;
  try {
    first = await postJson(app.base, REFERENCE, key);
    assert.is(first.res.status, 200);
    const again = await postJson(app.base, { ...REFERENCE, symbol: ' es ' }, key); // the same request once normalised
    assert.is(again.res.status, 200);
    assert.is(again.body.id, first.body.id, 'the same run');
    assert.is(again.body.total_pnl, first.body.total_pnl);
    assert.is(calls, 1, 'no second run');
    const other = await postJson(app.base, { ...REFERENCE, seed: 9 }, key);
    assert.is(other.res.status, 422);
    assert.is(other.body.error.code, 'idempotency_key_mismatch');
    assert.is(other.body.error.fields[0].field, 'Idempotency-Key');
    assertDocumented('Error', other.body);
    const bad = await postJson(app.base, REFERENCE, { 'idempotency-key': 'has space' });
    assert.is(bad.res.status, 400);
    assert.is(bad.body.error.fields[0].field, 'Idempotency-Key');
    const asyncFirst = await postJson(app.base, { ...REFERENCE, seed: 3 }, { 'idempotency-key': 'async-1', prefer: 'respond-async' });
    assert.ok(asyncFirst.res.status === 202 || asyncFirst.res.status === 200);
    const asyncAgain = await postJson(app.base, { ...REFERENCE, seed: 3 }, { 'idempotency-key': 'async-1', prefer: 'respond-async' });
    assert.is(asyncAgain.body.id, asyncFirst.body.id);
  } finally {
    await app.server.close();
  }
  const before = calls;
  svc = await BacktestService.open({ config, logger, dataDir: data, runner: counting });
  app = await serve(svc, config);
  try {
    const afterRestart = await postJson(app.base, REFERENCE, key);
    assert.is(afterRestart.res.status, 200);
    assert.is(afterRestart.body.id, first.body.id);
    assert.is(calls, before, 'no new run after the restart either');
  } finally {
    await app.server.close();
  }
});

test('a client that disconnects from a synchronous POST cancels its run and frees the pool; respond-async does not', async () => {
  // Full sessions (several seconds each) on the real pool, so the run is still going when the socket closes.
  const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n[backtest]\npool_size = 1\n`, 'disconnect.toml');
  const svc = await BacktestService.open({ config, logger, dataDir: join(dir, 'disconnect') });
  const { server } = await serve(svc, config);
  try {
    const req = request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/api/backtest', headers: { 'content-type': 'application/json' } });
    req.on('error', () => {}); // the socket is destroyed on purpose
    req.end(JSON.stringify({ ...REFERENCE, startDate: '2024-01-02', endDate: '2024-01-03' }));
    await until('the run started', () => svc.running === 1);
    const id = svc.list(1).entries[0].id;
    req.destroy();
    await until('the run is cancelled and off the pool', () => svc.entry(id)?.status === 'cancelled' && svc.running === 0);
    assert.match(svc.entry(id)!.error!.message, /client disconnected/);
    assert.is(svc.running, 0, 'the pool is free');
    const out = svc.submit({ ...REFERENCE, startDate: '2024-01-02', endDate: '2024-01-02' });
    if (out.kind !== 'accepted') throw new Error('not accepted');
    // Async: the client got its 202 and left; the run goes on.
    const asyncRes = await fetch(`http://127.0.0.1:${server.port}/api/backtest`, {
      method: 'POST',
      body: JSON.stringify({ ...REFERENCE, seed: 5 }),
      headers: { 'content-type': 'application/json', prefer: 'respond-async' },
    });
    assert.is(asyncRes.status, 202);
    const asyncId = ((await asyncRes.json()) as { id: string }).id;
    assert.is((await out.done).status, 'completed', 'the next run uses the freed pool');
    await until('the async run completes', () => svc.entry(asyncId)?.status === 'completed');
  } finally {
    await server.close();
  }
});

test.run();
