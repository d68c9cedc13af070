// The model in backtests: useML true and false on the same seed and session give different
// fills and the model runs only with useML; useML with a missing, corrupt or disabled model is
// a validation error on the field useML (never a silent fallback), and the CLI exits 2 on it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateBacktestRequest, type FieldError } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { defaultConfig, type EngineConfig } from '../../../src/config/schema.ts';
import { packageRoot } from '../../../src/core/paths.ts';
import { modelPath } from '../../../src/ml/inference/model-store.ts';

const tmp = mkdtempSync(join(tmpdir(), 'ml-backtest-'));

function config(over: (c: EngineConfig) => void = () => {}): EngineConfig {
  const c = defaultConfig();
  c.simulation.session_start = '09:30';
  c.simulation.session_end = '10:00';
  over(c);
  return c;
}

function fieldErrors(body: Record<string, unknown>, c: EngineConfig): FieldError[] {
  const v = validateBacktestRequest(body, c);
  assert.ok(!v.ok, 'expected validation to fail');
  return v.ok ? [] : v.errors;
}

const BODY = { symbol: 'ES', startDate: '2024-01-03', seed: 7 };

test('useML true vs false: same market, different fills; the model runs only with useML', async () => {
  const c = config();
  const off = validateBacktestRequest({ ...BODY, useML: false }, c);
  const on = validateBacktestRequest({ ...BODY, useML: true }, c);
  assert.ok(off.ok && on.ok, JSON.stringify([off, on]));
  if (!off.ok || !on.ok) return;
  assert.is(off.request.model, null);
  assert.ok(on.request.model !== null && on.request.model.path === modelPath(c, 'ES'));
  const a = (await runBacktest(off.request, c)).result;
  const b = (await runBacktest(on.request, c)).result;
  // the same synthetic market: the engine saw the same events
  assert.is(a.events_processed, b.events_processed);
  assert.ok(a.events_processed > 100_000, `events ${a.events_processed}`);
  assert.is(a.predictions, 0, 'no model without useML');
  // one prediction per 10 ms of market time at most, over 30 minutes: close to 180,000
  assert.ok(b.predictions > 100_000 && b.predictions <= 180_001, `predictions ${b.predictions}`);
  assert.is(b.use_ml, true);
  assert.ok(a.total_fills > 0 && b.total_fills > 0, `fills ${a.total_fills} / ${b.total_fills}`);
  const differ = a.total_fills !== b.total_fills || a.total_pnl !== b.total_pnl || a.volume !== b.volume || a.orders_sent !== b.orders_sent;
  assert.ok(differ, `useML changed nothing: ${JSON.stringify([a.total_fills, a.total_pnl, a.orders_sent])}`);
  assert.is.not(a.orders_sent, b.orders_sent, 'the signal moves the quotes, so the orders differ');

  // with ml_weight = 0 the signal is computed (predictions run) but moves nothing
  const z = config((cfg) => (cfg.strategy.ml_weight = 0));
  const onZero = validateBacktestRequest({ ...BODY, useML: true }, z);
  assert.ok(onZero.ok);
  if (!onZero.ok) return;
  const w0 = (await runBacktest(onZero.request, z)).result;
  assert.is(w0.predictions, b.predictions);
  assert.is(w0.total_fills, a.total_fills);
  assert.is(w0.total_pnl, a.total_pnl);
});

test('useML with a missing model: a field error on useML naming the root, the file and the train command', () => {
  const c = config((cfg) => (cfg.model.dir = join(tmp, 'nowhere')));
  const errs = fieldErrors({ ...BODY, useML: true }, c);
  assert.is(errs.length, 1);
  assert.is(errs[0].field, 'useML');
  const msg = errs[0].message;
  assert.ok(msg.includes('no model for ES') && msg.includes(join(tmp, 'nowhere', 'ES.json')) && msg.includes('npm run train -- --root ES'), msg);
  // without useML the same config is fine: no model is needed or read
  assert.ok(validateBacktestRequest({ ...BODY, useML: false }, c).ok);
  // use_ml = true from the config, no field in the request: the same error
  const c2 = config((cfg) => {
    cfg.model.dir = join(tmp, 'nowhere');
    cfg.strategy.use_ml = true;
  });
  assert.is(fieldErrors(BODY, c2)[0].field, 'useML');
});

test('useML with a corrupt model, a disabled model or another root: field errors', () => {
  const bad = join(tmp, 'corrupt');
  mkdirSync(bad, { recursive: true });
  writeFileSync(join(bad, 'ES.json'), '{"format": "futures-mm-model", "formatVersion": 1, "layers": [');
  let errs = fieldErrors(
    { ...BODY, useML: true },
    config((cfg) => (cfg.model.dir = bad)),
  );
  assert.is(errs[0].field, 'useML');
  assert.ok(errs[0].message.includes('invalid JSON'), errs[0].message);

  writeFileSync(join(bad, 'ES.json'), JSON.stringify({ format: 'futures-mm-model', formatVersion: 99 }));
  errs = fieldErrors(
    { ...BODY, useML: true },
    config((cfg) => (cfg.model.dir = bad)),
  );
  assert.ok(errs[0].field === 'useML' && errs[0].message.includes('unsupported formatVersion 99'), errs[0].message);

  errs = fieldErrors(
    { ...BODY, useML: true },
    config((cfg) => (cfg.model.enabled = false)),
  );
  assert.ok(errs[0].field === 'useML' && errs[0].message.includes('[model] enabled = false'), errs[0].message);

  // another root's model under NQ's name: refused, never used for NQ
  const wrong = join(tmp, 'wrong');
  mkdirSync(wrong, { recursive: true });
  copyFileSync(modelPath(config(), 'ES'), join(wrong, 'NQ.json'));
  errs = fieldErrors(
    { ...BODY, symbol: 'NQ', useML: true },
    config((cfg) => (cfg.model.dir = wrong)),
  );
  assert.ok(
    errs[0].field === 'useML' && errs[0].message.includes('trained on ES, not NQ') && errs[0].message.includes('npm run train -- --root NQ'),
    errs[0].message,
  );
});

test('CLI: --use-ml with a missing model prints the field error and exits 2', () => {
  const cfgPath = join(tmp, 'config.toml');
  writeFileSync(cfgPath, `[model]\ndir = ${JSON.stringify(join(tmp, 'nowhere'))}\n[simulation]\nsession_end = "10:00"\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(packageRoot(), 'src', 'bin', 'engine.ts'), '--backtest', '--config', cfgPath, '--use-ml'], {
    cwd: packageRoot(),
    encoding: 'utf8',
    env: { ...process.env, RUST_LOG: 'error' },
    timeout: 60_000,
  });
  assert.is(r.status, 2, `exit ${r.status}: ${r.stderr}`);
  // The config is not the shipped one: the command to train names it (it says where the model goes).
  assert.ok(
    r.stderr.includes(
      `error: --use-ml: cannot use the model: no model for ES: ${join(tmp, 'nowhere', 'ES.json')} does not exist (train one with: npm run train -- --root ES --config ${cfgPath})`,
    ),
    r.stderr,
  );
  assert.is(r.stdout, '', 'no result printed');
});

test.after(() => rmSync(tmp, { recursive: true, force: true }));

test.run();
