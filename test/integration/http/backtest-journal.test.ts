// The backtest journal: runs survive a restart (a new service over the same data_dir lists and
// returns them, also over HTTP), runs left `running` become `interrupted`, unreadable files are
// quarantined, ids are unique and time-ordered; the equity-curve downsampling keeps the shape.
// (Bounds, retention, paging, failed writes, idempotency: reliability-storage.test.ts.)

import { ensureBuilt } from '../../helpers/build.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { beforeAll } from '../../helpers/hooks.ts';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BacktestService, downsampleCurve, type BacktestRecord, type Runner } from '../../../src/backtest-service/service.ts';
import { serializeRecord } from '../../../src/backtest-service/journal/record.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import type { BacktestResult } from '../../../src/backtest/merge.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { createLogger } from '../../../src/log.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { until } from '../../helpers/wait.ts';
import { startHttpServer } from '../../../src/http/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'bt-journal-'));
const logger = createLogger({ env: {}, configLevel: 'error' });
const config = parseConfig(
  `data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n[backtest]\npool_size = 2\n`,
  'journal.toml',
);
const REFERENCE = { symbol: 'ES', initialCapital: 100000, useML: false };

beforeAll(test, () => ensureBuilt());
test.after(() => rmSync(dir, { recursive: true, force: true }));

async function finish(svc: BacktestService, body: unknown): Promise<BacktestRecord> {
  const out = svc.submit(body);
  if (out.kind !== 'accepted') throw new Error(`not accepted: ${JSON.stringify(out)}`);
  return out.done;
}

test('runs survive a restart: a new service over the same data_dir lists and returns them (also over HTTP)', async () => {
  const data = join(dir, 'restart');
  const a = await BacktestService.open({ config, logger, dataDir: data });
  const r1 = await finish(a, REFERENCE);
  const r2 = await finish(a, { ...REFERENCE, seed: 7 });
  assert.is(r1.status, 'completed');
  assert.is(r2.status, 'completed');
  assert.is.not(r1.result!.total_pnl, r2.result!.total_pnl, 'different seeds, different runs');
  await a.close();
  const files = readdirSync(join(data, 'backtests')).sort();
  assert.equal(files, [`${r1.id}.jsonl`, `${r2.id}.jsonl`], 'one journal file per run, no temp file left');

  const b = await BacktestService.open({ config, logger, dataDir: data });
  try {
    assert.equal(
      b.list(10).entries.map((r) => r.id),
      [r2.id, r1.id],
      'newest first',
    );
    const back = (await b.read(r1.id))!;
    assert.is(back.status, 'completed');
    assert.not.ok('request' in back, 'the raw body is never journaled');
    assert.equal(back.resolved, r1.resolved, 'the validated request is');
    assert.equal(back.result, r1.result, 'the whole result, equity curve included, comes back');
    assert.is(back.duration_ms, r1.duration_ms);

    const server = await startHttpServer({ runtime: new FakeRuntime(), config, logger, backtests: b }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const list = (await (await fetch(base + '/api/backtests')).json()) as { total: number; runs: { id: string; total_pnl: number }[] };
      assert.is(list.total, 2);
      assert.equal(
        list.runs.map((r) => r.id),
        [r2.id, r1.id],
      );
      const one = (await (await fetch(`${base}/api/backtests/${r1.id}`)).json()) as { id: string; status: string; total_pnl: number; equity_curve: unknown[] };
      assert.is(one.status, 'completed');
      assert.is(one.total_pnl, r1.result!.total_pnl);
      assert.is(one.equity_curve.length, r1.result!.equity_curve.length);
    } finally {
      await server.close();
    }
  } finally {
    await b.close();
  }
});

test('a run left "running" by a dead process is marked interrupted at start; corrupt files are quarantined', async () => {
  const data = join(dir, 'interrupted');
  const jdir = join(data, 'backtests');
  mkdirSync(jdir, { recursive: true });
  const id = 'bt_20240102T093000123Z_0001_a1b2c3';
  const v = validateBacktestRequest(REFERENCE, config);
  if (!v.ok) throw new Error('reference request invalid');
  const rec: BacktestRecord = {
    id,
    status: 'running',
    resolved: v.request,
    started_at: new Date().toISOString(),
    finished_at: null,
    duration_ms: null,
    progress: 0.4,
    error: null,
    result: null,
    idempotency: null,
  };
  writeFileSync(join(jdir, `${id}.jsonl`), serializeRecord(rec).text);
  writeFileSync(join(jdir, 'bt_20240102T093000999Z_0004_dddddd.jsonl'), '{"id": "bt_');
  const other = serializeRecord({ ...rec, id: 'bt_20240102T093000999Z_0003_eeeeee' }).text;
  writeFileSync(join(jdir, 'bt_20240102T093000999Z_0002_ffffff.jsonl'), other);
  writeFileSync(join(jdir, 'notes.txt'), 'not a journal file');
  const svc = await BacktestService.open({ config, logger, dataDir: data });
  try {
    assert.is(svc.total, 1, 'only the valid record is loaded');
    const got = (await svc.read(id))!;
    assert.is(got.status, 'interrupted');
    assert.is(got.error!.code, 'interrupted');
    const onDisk = JSON.parse(readFileSync(join(jdir, `${id}.jsonl`), 'utf8').split('\n')[1]);
    assert.is(onDisk.status, 'interrupted', 'the journal is updated');
    assert.is(await svc.read('bt_20240102T093000999Z_0003_eeeeee'), null, 'a file whose name does not match its id is not loaded');
    assert.equal(readdirSync(join(jdir, 'quarantine')).sort(), ['bt_20240102T093000999Z_0002_ffffff.jsonl', 'bt_20240102T093000999Z_0004_dddddd.jsonl']);
    assert.ok(existsSync(join(jdir, 'notes.txt')), 'a file that is not a record is left alone');
    assert.is(svc.storageHealth().quarantined, 2);
  } finally {
    await svc.close();
  }
});

test('a journal of the previous format (<id>.json with the raw body) is rewritten once as <id>.jsonl without the body', async () => {
  const data = join(dir, 'legacy');
  const jdir = join(data, 'backtests');
  mkdirSync(jdir, { recursive: true });
  const v = validateBacktestRequest(REFERENCE, config);
  if (!v.ok) throw new Error('reference request invalid');
  const id = 'bt_20260101T000000000Z_0001_a1b2c3';
  const old = {
    id,
    status: 'completed',
    request: { ...REFERENCE, symbol: `ES${' '.repeat(1000)}` },
    resolved: v.request,
    started_at: new Date().toISOString(),
    finished_at: new Date().toISOString(),
    duration_ms: 12,
    progress: 1,
    error: null,
    result: { total_pnl: 5, sharpe_ratio: 1, max_drawdown_pct: 0.1, equity_curve: [] },
  };
  writeFileSync(join(jdir, `${id}.json`), JSON.stringify(old));
  writeFileSync(join(jdir, 'bt_20260101T000000000Z_0002_a1b2c3.json'), JSON.stringify({ ...old, id: 'bt_20260101T000000000Z_0002_a1b2c3', resolved: null }));
  const svc = await BacktestService.open({ config, logger, dataDir: data });
  try {
    assert.equal(
      readdirSync(jdir).filter((f) => f.startsWith('bt_')),
      [`${id}.jsonl`],
    );
    assert.equal(readdirSync(join(jdir, 'quarantine')), ['bt_20260101T000000000Z_0002_a1b2c3.json'], 'not a run record: quarantined');
    const back = (await svc.read(id))!;
    assert.not.ok('request' in back);
    assert.is(back.status, 'completed');
    assert.is(back.result!.total_pnl, 5);
    assert.is(svc.list(10).entries[0].total_pnl, 5);
  } finally {
    await svc.close();
  }
});

test('ids are unique and time-ordered; every status change is journaled; cancel and close', async () => {
  const data = join(dir, 'ids');
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const seen: string[] = [];
  // A runner that waits for the gate (or the abort signal), to observe the `running` journal entry.
  const runner: Runner = async (req, _cfg, opts) => {
    await new Promise<void>((resolve, reject) => {
      opts.signal?.addEventListener('abort', () => reject(opts.signal!.reason), { once: true });
      void gate.then(resolve);
    });
    opts.onProgress?.(1);
    const result = { symbol: req.symbol, total_pnl: 12.5, equity_curve: [{ t: 0, equity: 1 }] } as unknown as BacktestResult;
    return { result };
  };
  const svc = await BacktestService.open({ config, logger, dataDir: data, runner, maxQueuedSessions: 3 });
  svc.subscribe((ev) => seen.push(ev.type === 'progress' ? `progress ${ev.id}` : `complete ${ev.run.id} ${ev.run.status}`));
  const outs = [svc.submit(REFERENCE), svc.submit(REFERENCE), svc.submit(REFERENCE)];
  const ids = outs.map((o) => (o.kind === 'accepted' ? o.id : 'x'));
  assert.is(new Set(ids).size, 3);
  assert.equal(ids, [...ids].sort(), 'ids sort in submission order');
  assert.is(svc.submit(REFERENCE).kind, 'busy');
  assert.is(svc.submit({ symbol: 'ES', initialCapital: -1 }).kind, 'invalid');
  // Journaled as running before it ends (the runner waits for release()).
  await until(
    'the first run journaled as running',
    () => JSON.parse(readFileSync(join(data, 'backtests', `${ids[0]}.jsonl`), 'utf8').split('\n')[0]).status === 'running',
  );
  assert.ok(svc.cancel(ids[1]));
  assert.not.ok(svc.cancel('bt_nope'));
  release();
  const recs = await Promise.all(outs.map((o) => (o.kind === 'accepted' ? o.done : null)));
  assert.equal(
    recs.map((r) => r!.status),
    ['completed', 'cancelled', 'completed'],
  );
  assert.ok(seen.includes(`complete ${ids[1]} cancelled`));
  assert.ok(seen.includes(`progress ${ids[0]}`));
  await svc.close();
  const b = await BacktestService.open({ config, logger, dataDir: data });
  assert.equal(
    b.list(10).entries.map((r) => `${r.id} ${r.status}`),
    [`${ids[2]} completed`, `${ids[1]} cancelled`, `${ids[0]} completed`],
  );
  assert.equal(
    b.list(1).entries.map((r) => r.id),
    [ids[2]],
  );
  await b.close();
  assert.is(b.submit(REFERENCE).kind, 'closed');
});

test('downsampleCurve: at most max points, first/last kept, extremes kept, short curves untouched', () => {
  const n = 12_000;
  const curve = Array.from({ length: n }, (_, i) => ({
    t: i * 60_000,
    equity: 100_000 + 500 * Math.sin(i / 300) + (i === 4321 ? -2_000 : 0) + (i === 8765 ? 1_500 : 0),
  }));
  const d = downsampleCurve(curve, 500);
  assert.ok(d.length <= 500 && d.length >= 490, `length ${d.length}`);
  assert.equal(d[0], curve[0]);
  assert.equal(d[d.length - 1], curve[n - 1]);
  for (let i = 1; i < d.length; i++) assert.ok(d[i].t > d[i - 1].t, 'time order');
  const min = (xs: { equity: number }[]) => Math.min(...xs.map((p) => p.equity));
  const max = (xs: { equity: number }[]) => Math.max(...xs.map((p) => p.equity));
  assert.is(min(d), min(curve), 'the trough (drawdown) survives');
  assert.is(max(d), max(curve), 'the peak survives');
  assert.ok(d.some((p) => p.t === 4321 * 60_000));
  const short = curve.slice(0, 300);
  assert.equal(downsampleCurve(short, 500), short);
  assert.is(downsampleCurve(curve, 10).length <= 10, true);
});

test.run();
