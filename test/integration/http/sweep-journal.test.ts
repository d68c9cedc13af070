// The sweeps' journal (<data_dir>/sweeps) within the storage bounds: retention by count ([sweep]
// max_kept), bytes and age ([storage]), records over [storage] max_record_bytes refused, corrupt
// or torn files quarantined, sweeps left running marked interrupted, files of the previous format
// rewritten; and over HTTP: GET /api/sweeps pages by cursor with a hard maximum, Idempotency-Key
// on POST /api/sweeps returns the first sweep (422 for another request under the same key).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SweepRun } from '../../../src/wire/sweep.ts';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer } from '../../../src/http/server.ts';
import { type SweepJournalOptions, SweepJournal, type SweepRecord } from '../../../src/sweep/journal.ts';
import { ensureBuilt } from '../../helpers/build.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { assertDocumented } from '../../helpers/openapi-check.ts';
import { until } from '../../helpers/wait.ts';

const root = mkdtempSync(join(tmpdir(), 'sweep-journal-'));
const { logger } = capturingLogger();
const DAY_MS = 86_400_000;
let n = 0;

function journal(name: string, limits: Partial<SweepJournalOptions['limits']> = {}, maxRecordBytes = 1 << 20): SweepJournal {
  return new SweepJournal({
    dir: join(root, name),
    limits: { maxRuns: 100, maxBytes: 1 << 30, maxAgeMs: 90 * DAY_MS, ...limits },
    maxRecordBytes,
    idempotencyTtlMs: DAY_MS,
    logger,
  });
}
/** A finished sweep started `ageMs` ago; ids sort by start time like the service's. */
function sweep(ageMs = 0, status: SweepRun['status'] = 'completed'): SweepRecord {
  const t = new Date(Date.now() - ageMs);
  const id = `sw_${t.toISOString().replace(/[-:.]/g, '')}_${(n++).toString(36).padStart(4, '0')}_abcdef`;
  return {
    id,
    status,
    request: { symbol: 'ES', grid: { skewFactor: [0, 1] } },
    points: 2,
    sessions: 2,
    progress: 1,
    started_at: t.toISOString(),
    finished_at: t.toISOString(),
    error: null,
    result: { points: [] },
    idempotency: null,
  };
}
const files = (j: SweepJournal) =>
  readdirSync(j.dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();

beforeAll(test, () => ensureBuilt());
test.after(() => rmSync(root, { recursive: true, force: true }));

test('retention by count keeps the newest [sweep] max_kept sweeps; a running one is never deleted (and counts)', () => {
  const j = journal('count', { maxRuns: 2 });
  j.open();
  const running = sweep(3000, 'running');
  const [a, b, c] = [sweep(2000), sweep(1000), sweep(0)];
  for (const r of [running, a, b, c]) j.save(r);
  assert.equal(files(j), [running.id, c.id].map((id) => `${id}.jsonl`).sort());
  assert.is(j.read(a.id), null);
  assert.is(j.read(b.id), null);
  assert.is(j.read(c.id)!.id, c.id);
});

test('retention by bytes and by age ([storage] max_bytes, max_age_days)', () => {
  const probe = journal('probe');
  probe.open();
  const one = sweep();
  probe.save(one);
  const size = probe.index.get(one.id)!.bytes;
  const bytes = journal('bytes', { maxBytes: 2 * size + 10 });
  bytes.open();
  const kept = [sweep(3000), sweep(2000), sweep(1000)];
  for (const r of kept) bytes.save(r);
  assert.is(files(bytes).length, 2);
  assert.is(bytes.index.bytes <= 2 * size + 10, true);
  const age = journal('age', { maxAgeMs: DAY_MS });
  age.open();
  const old = sweep(2 * DAY_MS);
  const fresh = sweep(0);
  age.save(old);
  age.save(fresh);
  assert.equal(files(age), [`${fresh.id}.jsonl`]);
});

test('a record over [storage] max_record_bytes is refused, naming the bound', () => {
  const j = journal('big', {}, 8192);
  j.open();
  const r = sweep();
  r.result = {
    points: Array.from({ length: 100 }, (_, i) => ({
      params: { skewFactor: i },
      result: { sessions: 1, total_pnl: i, sharpe_ratio: 0, max_drawdown_pct: 0, total_fills: 0, fees: 0, markouts: {}, kill_switch_tripped: false },
    })),
  };
  assert.throws(() => j.save(r), /the sweep's record is \d+ bytes, over \[storage\] max_record_bytes = 8192/);
  assert.equal(files(j), []);
});

test('at start: corrupt and torn files go to quarantine/, running sweeps become interrupted, old-format files are rewritten', () => {
  const first = journal('restart');
  first.open();
  const done = sweep(3000);
  const left = sweep(2000, 'running');
  const torn = sweep(1000);
  for (const r of [done, left, torn]) first.save(r);
  const dir = first.dir;
  const tornText = readFileSync(join(dir, `${torn.id}.jsonl`), 'utf8');
  writeFileSync(join(dir, `${torn.id}.jsonl`), tornText.slice(0, -20));
  const garbage = sweep(500);
  writeFileSync(join(dir, `${garbage.id}.jsonl`), 'not json\n');
  const { idempotency: _k, ...legacy } = sweep(100);
  writeFileSync(join(dir, `${legacy.id}.json`), JSON.stringify(legacy));

  const again = journal('restart');
  again.open();
  assert.equal(readdirSync(join(dir, 'quarantine')).sort(), [`${torn.id}.jsonl`, `${garbage.id}.jsonl`].sort());
  assert.equal(files(again), [done.id, left.id, legacy.id].map((id) => `${id}.jsonl`).sort());
  assert.not.ok(existsSync(join(dir, `${legacy.id}.json`)));
  assert.equal(again.read(legacy.id), { ...legacy, idempotency: null });
  const interrupted = again.read(left.id)!;
  assert.is(interrupted.status, 'interrupted');
  assert.is(interrupted.error!.code, 'interrupted');
});

test('pages newest first by cursor; a cursor the journal did not issue is refused', () => {
  const j = journal('pages');
  j.open();
  const runs = [sweep(4000), sweep(3000), sweep(2000), sweep(1000), sweep(0)];
  for (const r of runs) j.save(r);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const p = j.page(2, cursor);
    seen.push(...p.entries.map((e) => e.id));
    cursor = p.nextCursor;
  } while (cursor !== null);
  assert.equal(seen, runs.map((r) => r.id).reverse());
  assert.throws(() => j.page(2, 'bm9wZQ'), RangeError);
});

test('HTTP: GET /api/sweeps pages (limit 1..100), Idempotency-Key replays the first sweep, 422 for another request', async () => {
  const dir = join(root, 'http');
  mkdirSync(dir);
  const config = parseConfig(
    `data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:40"\n[backtest]\npool_size = 1\n`,
    'sweep.toml',
  );
  const backtests = await BacktestService.open({ config, logger, dataDir: join(dir, 'journal') });
  const server = await startHttpServer({ runtime: new FakeRuntime(), config, logger, backtests }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  const base = `http://127.0.0.1:${server.port}`;
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(base + path, init);
    return { res, body: (await res.json()) as any };
  };
  const post = (body: unknown, key?: string) =>
    call('/api/sweeps', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    });
  const body = { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-02', grid: { skewFactor: [0, 1] } };
  try {
    const first = await post(body, 'k-1');
    assert.is(first.res.status, 202, JSON.stringify(first.body));
    const retry = await post(body, '"k-1"');
    assert.is(retry.body.id, first.body.id, 'the same key and request: the first sweep');
    assert.is(retry.res.headers.get('location'), `/api/sweeps/${first.body.id}`);
    const other = await post({ ...body, grid: { skewFactor: [2] } }, 'k-1');
    assert.is(other.res.status, 422);
    assert.is(other.body.error.code, 'idempotency_key_mismatch');
    assert.equal(other.body.error.fields, [{ field: 'Idempotency-Key', message: `already used for sweep ${first.body.id} with a different request` }]);
    const bad = await post(body, 'has space');
    assert.is(bad.res.status, 400);
    await until('the sweep completes', async () => (await call(`/api/sweeps/${first.body.id}`)).body.status === 'completed');
    const ended = await post(body, 'k-1');
    assert.is(ended.res.status, 200);
    assert.is(ended.body.id, first.body.id);
    assert.is(ended.body.status, 'completed');
    const second = await post(body);
    assert.is(second.res.status, 202);
    assert.is.not(second.body.id, first.body.id, 'no key: a new sweep');

    const page1 = await call('/api/sweeps?limit=1');
    assert.is(page1.res.status, 200);
    assertDocumented('SweepList', page1.body);
    assert.is(page1.body.total, 2);
    assert.equal(
      page1.body.sweeps.map((s: any) => s.id),
      [second.body.id],
    );
    assert.not.ok('idempotency' in page1.body.sweeps[0], 'the key is remembered, never served');
    const page2 = await call(`/api/sweeps?limit=1&cursor=${page1.body.next_cursor}`);
    assert.equal(
      page2.body.sweeps.map((s: any) => s.id),
      [first.body.id],
    );
    assert.is(page2.body.next_cursor, null);
    const tooMany = await call('/api/sweeps?limit=101');
    assert.is(tooMany.res.status, 400);
    assert.equal(tooMany.body.error.fields, [{ field: 'limit', message: 'expected an integer in 1..100' }]);
    const badCursor = await call('/api/sweeps?cursor=nope');
    assert.is(badCursor.res.status, 400);
    assert.is(badCursor.body.error.fields[0].field, 'cursor');
  } finally {
    await server.close();
  }
});

test.run();
