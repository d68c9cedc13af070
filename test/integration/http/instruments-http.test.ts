// A [contracts.<ROOT>] root through the HTTP API: POST /api/backtest runs it on the pool (whose
// workers know only what the session spec carries), its fills come back on the 1/64 grid, and an
// unknown root or a root without a market profile is a 400 naming the field.
import { ensureBuilt } from '../../helpers/build.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer } from '../../../src/http/server.ts';
import { createLogger } from '../../../src/log.ts';
import { useConfiguredContracts } from '../../../src/market/instruments.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { beforeAll } from '../../helpers/hooks.ts';

const dir = mkdtempSync(join(tmpdir(), 'instruments-http-'));
const logger = createLogger({ env: {}, configLevel: 'error' });
// ZN per CME's contract specs ($1,000 per point, tick 1/64 = $15.625); the market profile and fees are illustrative.
const ZN = `
[contracts.ZN]
product = "10-Year T-Note"
tick_size = 0.015625
point_value = 1000
currency = "USD"
group = "interest_rate"
expiry = "treasury_quarterly"
regular_open = "07:20"
regular_close = "07:50"
[fees.ZN]
maker_fee = 0.1
taker_fee = 0.3
exchange_fee = 0.6
[contracts.TN]
product = "Ultra 10-Year T-Note, no market profile"
tick_size = 0.015625
point_value = 1000
currency = "USD"
group = "interest_rate"
expiry = "treasury_quarterly"
[fees.TN]
maker_fee = 0.1
taker_fee = 0.3
exchange_fee = 0.6
[contracts.ZN.market]
price_low = 108
price_high = 112
annual_vol = 0.06
queue = 400
order_size = 5
`;

beforeAll(test, () => ensureBuilt());
test.after(() => {
  rmSync(dir, { recursive: true, force: true });
  useConfiguredContracts({});
});

test('POST /api/backtest runs a configured root; a root the config lacks, or without a market profile, is a 400', async () => {
  const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n[backtest]\npool_size = 1\n${ZN}`, 'zn.toml');
  const svc = await BacktestService.open({ config, logger });
  const server = await startHttpServer({ runtime: new FakeRuntime(), config, logger, backtests: svc }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  const base = `http://127.0.0.1:${server.port}`;
  const post = (body: unknown) =>
    fetch(`${base}/api/backtest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  try {
    const r = await post({ symbol: 'ZNH24', startDate: '2024-01-02', endDate: '2024-01-02' });
    assert.is(r.status, 200, await r.clone().text());
    const run = (await r.json()) as { id: string; status: string; contracts: string[]; total_fills: number; fee_schedule: { source: string } };
    assert.is(run.status, 'completed', JSON.stringify(run).slice(0, 500));
    assert.equal(run.contracts, ['ZNH24']);
    assert.is(run.fee_schedule.source, 'fees.ZN');
    const csv = await (await fetch(`${base}/api/backtests/${run.id}/fills.csv`)).text();
    const lines = csv.trim().split('\n');
    const price = lines[0].split(',').indexOf('price');
    assert.is(lines.length - 1, run.total_fills);
    assert.ok(run.total_fills > 0);
    for (const l of lines.slice(1)) assert.ok(Number.isInteger(Number(l.split(',')[price]) * 64), l);

    const unknown = await post({ symbol: 'ZB' });
    assert.is(unknown.status, 400);
    const ue = ((await unknown.json()) as { error: { fields: { field: string; message: string }[] } }).error.fields;
    assert.equal(
      ue.map((e) => e.field),
      ['symbol'],
    );
    assert.match(ue[0].message, /unknown contract 'ZB': expected one of ZN, TN, ES, NQ, YM, RTY, MES, MNQ, CL, GC .*add a \[contracts\.ZB\] table/);

    const noMarket = await post({ symbol: 'TN' });
    assert.is(noMarket.status, 400);
    const ne = ((await noMarket.json()) as { error: { fields: { field: string; message: string }[] } }).error.fields;
    assert.equal(
      ne.map((e) => e.field),
      ['symbol'],
    );
    assert.match(ne[0].message, /TN \(contracts\.TN\) has no synthetic market profile: add \[contracts\.TN\.market\]/);
  } finally {
    await server.close();
    await svc.close();
  }
});

test.run();
