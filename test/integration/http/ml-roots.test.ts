// The model of every contract root (models/<ROOT>.json): a useML backtest of a non-ES root runs
// through the CLI and over HTTP with that root's own model (its version in the result), and a
// root without a model (one a config adds) is refused, naming the root and the command that
// trains one: exit 2 on the CLI, a 400 on the field useML over HTTP. `npm run train` refuses a
// root it cannot train before it starts.

import { ensureBuilt } from '../../helpers/build.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { startHttpServer } from '../../../src/http/server.ts';
import { createLogger } from '../../../src/log.ts';
import { useConfiguredContracts } from '../../../src/market/instruments.ts';
import { modelPath } from '../../../src/ml/inference/model-store.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { ROOT, runCli, tempDir, writeConfig } from '../../helpers/cli.ts';
import { beforeAll } from '../../helpers/hooks.ts';

// A root the built-in table lacks, with a synthetic market and fees: everything but a model.
const ZZ = `
[contracts.ZZ]
product = "A configured future"
tick_size = 0.25
point_value = 50
currency = "USD"
group = "equity_index"
expiry = "equity_quarterly"
[contracts.ZZ.market]
price_low = 5000
price_high = 6000
annual_vol = 0.145
queue = 320
order_size = 9
[fees.ZZ]
maker_fee = 0.1
taker_fee = 0.3
exchange_fee = 0.6
`;
const SHORT = `[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n`;
const logger = createLogger({ env: {}, configLevel: 'error' });

beforeAll(test, () => ensureBuilt());
test.after(() => useConfiguredContracts({}));

test('a useML request on NQ loads models/NQ.json, not the ES model', () => {
  const c = parseConfig(SHORT, 'short.toml');
  const v = validateBacktestRequest({ symbol: 'NQ', startDate: '2024-01-03', useML: true }, c);
  assert.ok(v.ok, JSON.stringify(v));
  if (!v.ok) return;
  assert.is(v.request.model?.path, modelPath(c, 'NQ'));
  assert.match(v.request.model!.version, /^nq-mlp-/);
});

test('CLI: --use-ml on NQ runs with the NQ model (model_version in the result)', () => {
  const r = runCli(['--backtest', '--config', writeConfig(SHORT), '--symbol', 'NQ', '--use-ml', '--json']);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.match(res.model_version, /^nq-mlp-/);
  assert.is(res.use_ml, true);
  assert.ok(res.predictions > 1000, `predictions ${res.predictions}`);
});

test('CLI: --use-ml on a configured root without a model exits 2 naming the root and the train command', () => {
  const cfg = writeConfig(SHORT + ZZ);
  const r = runCli(['--backtest', '--config', cfg, '--symbol', 'ZZ', '--use-ml']);
  assert.is(r.code, 2, r.stderr);
  const file = join(ROOT, 'models', 'ZZ.json');
  assert.ok(r.stderr.includes(`no model for ZZ: ${file} does not exist (train one with: npm run train -- --root ZZ --config ${cfg})`), r.stderr);
  assert.is(r.stdout, '');
  // the same root without --use-ml runs: only the model is missing
  assert.is(runCli(['--backtest', '--config', cfg, '--symbol', 'ZZ']).code, 0);
});

test('POST /api/backtest: useML on NQ runs with the NQ model; on a root without a model, a 400 on useML', async () => {
  const dir = tempDir('ml-roots-http-');
  const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n${SHORT}[backtest]\npool_size = 1\n${ZZ}`, 'zz.toml');
  const svc = await BacktestService.open({ config, logger });
  const server = await startHttpServer({ runtime: new FakeRuntime(), config, logger, backtests: svc }, { port: 0, host: '127.0.0.1', latencyDrainMs: 0 });
  const post = (body: unknown) =>
    fetch(`http://127.0.0.1:${server.port}/api/backtest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  try {
    const r = await post({ symbol: 'NQ', startDate: '2024-01-03', endDate: '2024-01-03', useML: true });
    assert.is(r.status, 200, await r.clone().text());
    const run = (await r.json()) as { status: string; model_version: string; use_ml: boolean; predictions: number };
    assert.is(run.status, 'completed');
    assert.match(run.model_version, /^nq-mlp-/);
    assert.ok(run.predictions > 1000, `predictions ${run.predictions}`);

    const none = await post({ symbol: 'ZZ', useML: true });
    assert.is(none.status, 400);
    const fields = ((await none.json()) as { error: { fields: { field: string; message: string }[] } }).error.fields;
    assert.equal(
      fields.map((e) => e.field),
      ['useML'],
    );
    assert.match(fields[0].message, /no model for ZZ: .*ZZ\.json does not exist \(train one with: npm run train -- --root ZZ/);
  } finally {
    await server.close();
    await svc.close();
  }
});

test('npm run train refuses an unknown root, a root without a market, and bad arguments (exit 2)', () => {
  const train = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'bin', 'train.ts'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  let r = train('--root', 'ZZ');
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /--root ZZ: unknown contract root 'ZZ'/);
  const cfg = writeConfig(ZZ.replace(/\[contracts\.ZZ\.market\][^[]*/, ''));
  r = train('--root', 'ZZ', '--config', cfg);
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /--root ZZ: ZZ \(contracts\.ZZ\) has no synthetic market profile/);
  r = train('--root');
  assert.is(r.status, 2);
  assert.match(r.stderr, /--root needs a value/);
  r = train('--epochs', '3');
  assert.is(r.status, 2);
  assert.match(r.stderr, /unknown argument: --epochs/);
});

test.run();
