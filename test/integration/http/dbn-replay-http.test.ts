// Recorded data over HTTP: GET /api/datasets lists what is under <data_dir>/market/ (documented
// shape), a backtest request names a dataset there and replays it, and any name that would leave
// that directory (.., absolute, a symlink out) or l3_fifo over MBP-10 data is a 400 naming the field.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { assertDocumented } from '../../helpers/openapi-check.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer } from '../../../src/http/server.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures', 'dbn');
const dir = mkdtempSync(join(tmpdir(), 'dbn-replay-http-'));
const market = join(dir, 'market');
mkdirSync(join(market, 'es-mbp10'), { recursive: true });
copyFileSync(join(FIXTURES, 'test_data.mbp-10.v3.dbn.zst'), join(market, 'es-mbp10', 'test_data.mbp-10.v3.dbn.zst'));
copyFileSync(join(FIXTURES, 'test_data.mbo.v3.dbn.zst'), join(market, 'es.mbo.dbn.zst'));
mkdirSync(join(dir, 'outside'));
copyFileSync(join(FIXTURES, 'test_data.mbo.v3.dbn.zst'), join(dir, 'outside', 'secret.dbn.zst'));
symlinkSync(join(dir, 'outside', 'secret.dbn.zst'), join(market, 'link.dbn.zst'));
const { logger } = capturingLogger();

async function start(extra = '') {
  const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n[backtest]\npool_size = 1\n${extra}`, 'test.toml');
  const backtests = await BacktestService.open({ config, logger, dataDir: join(dir, 'journal') });
  const server = await startHttpServer({ runtime: new FakeRuntime(), config, logger, backtests }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  return { server, base: `http://127.0.0.1:${server.port}` };
}
const post = (base: string, body: unknown) =>
  fetch(`${base}/api/backtest`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as any,
  }));

test.before(() => ensureBuilt());
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('GET /api/datasets lists files and directories with schema, symbols, range, records and size', async () => {
  const { server, base } = await start();
  try {
    const res = await fetch(`${base}/api/datasets`);
    assert.is(res.status, 200);
    const body = (await res.json()) as any;
    assertDocumented('DatasetList', body);
    const byName = Object.fromEntries(body.datasets.map((d: any) => [d.name, d]));
    assert.equal(Object.keys(byName), ['es-mbp10', 'es.mbo.dbn.zst', 'link.dbn.zst']);
    assert.equal(
      { ...byName['es-mbp10'], bytes: 0 },
      {
        name: 'es-mbp10',
        kind: 'directory',
        files: 1,
        dataset: 'GLBX.MDP3',
        schema: 'mbp-10',
        symbols: ['ESH1'],
        start: '2020-12-28T13:00:00.000Z',
        end: '2020-12-29T00:00:00.000Z',
        records: 2,
        bytes: 0,
        error: null,
      },
    );
    assert.ok(byName['es-mbp10'].bytes > 0);
    assert.is(byName['es.mbo.dbn.zst'].schema, 'mbo');
  } finally {
    await server.close();
  }
});

test('a request naming a dataset replays it; the result says so', async () => {
  const { server, base } = await start();
  try {
    const r = await post(base, { dataset: 'es-mbp10' });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.is(r.body.data_source, 'dbn es-mbp10 (mbp-10, ESH1)');
    assert.is(r.body.resolved.dataset, 'es-mbp10');
    assert.equal(r.body.contracts, ['ESH1']);
    assert.is(r.body.start_date, '2020-12-28');
    // 2020-12-28: 20 levels, then the second record's one change; the file runs to 00:00 UTC, past
    // the 17:00 New York close, so it also holds the evening of 2020-12-29, which opens on the
    // book warmed with both records (20 levels).
    assert.equal(
      r.body.session_results.map((s: { date: string; events: number }) => [s.date, s.events]),
      [
        ['2020-12-28', 21],
        ['2020-12-29', 20],
      ],
    );
    assert.is(r.body.events_processed, 41);
  } finally {
    await server.close();
  }
});

test('dataset names that leave <data_dir>/market are a 400 naming the field', async () => {
  const { server, base } = await start();
  try {
    for (const name of ['../outside/secret.dbn.zst', '/etc/passwd', 'es-mbp10/../../outside', 'link.dbn.zst', 'nope.dbn', '', 'a\\b']) {
      const r = await post(base, { dataset: name });
      assert.is(r.status, 400, name);
      assert.is(r.body.error.fields?.[0]?.field, 'dataset', `${name}: ${JSON.stringify(r.body)}`);
    }
  } finally {
    await server.close();
  }
});

test('l3_fifo over MBP-10 data, or over the synthetic market, is a 400 saying it needs MBO', async () => {
  const { server, base } = await start('[execution]\nqueue_model = "l3_fifo"\n');
  try {
    const r = await post(base, { dataset: 'es-mbp10' });
    assert.is(r.status, 400);
    assert.match(r.body.error.fields[0].message, /l3_fifo.*needs order-level \(MBO\) data.*mbp-10/);
    const s = await post(base, { symbol: 'ES' });
    assert.is(s.status, 400);
    assert.match(s.body.error.fields[0].message, /synthetic market has none/);
    const ok = await post(base, { dataset: 'es.mbo.dbn.zst' });
    assert.is(ok.status, 200, JSON.stringify(ok.body));
  } finally {
    await server.close();
  }
});

test.run();
