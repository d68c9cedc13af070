// Fees per product (docs/execution.md, "Fees per product"): a root's [fees.<ROOT>] section overrides the flat [fees]
// table, which stays the schedule of every root without a section. Checked at the config, at
// every fill of a backtest, and in the result, which names the schedule it used.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { defaultConfigPath, loadConfig, parseConfig } from '../../../src/config/load.ts';
import { feeParams } from '../../../src/config/derive.ts';
import type { EngineConfig } from '../../../src/config/schema.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { LIQ_MAKER } from '../../../src/core/events.ts';
import { CONTRACTS } from '../../../src/market/instruments.ts';
import { configError } from '../../helpers/config-error.ts';
import { MES_SCHEDULE, MES_SECTION } from '../../helpers/mes-fees.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

/** The shipped config, traded over 10 minutes (enough fills of both kinds, a short run). */
function shortSession(fees?: string): EngineConfig {
  const c = fees === undefined ? shippedConfigNoModel() : parseConfig(fees, 'fees.toml');
  // Ten minutes an hour after the open: the opening minutes' wide quotes fill rarely.
  c.simulation.session_start = '10:30';
  c.simulation.session_end = '10:40';
  return c;
}

async function backtest(symbol: string, c: EngineConfig) {
  const v = validateBacktestRequest({ symbol }, c);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return runBacktest(v.request, c, { collectFills: true });
}

// -------------------------------------------------------------------------------------- config

test('[fees.MES] parses next to the flat [fees] table, which keeps its defaults', () => {
  const c = parseConfig(MES_SECTION, 'x.toml');
  assert.equal(c.fees.MES, { maker_fee: 0.1, taker_fee: 0.25, exchange_fee: 0.35 });
  assert.is(c.fees.maker_fee, 0.25);
  assert.is(c.fees.exchange_fee, 1.18);
});

test('a root with a section uses it; a root without one uses the flat [fees] table', () => {
  const c = parseConfig(MES_SECTION, 'x.toml');
  assert.equal(feeParams(c, 'MES'), { root: 'MES', source: 'fees.MES', makerFee: 0.1, takerFee: 0.25, exchangeFee: 0.35 });
  assert.equal(feeParams(c, 'ES'), { root: 'ES', source: 'fees', makerFee: 0.25, takerFee: 0.85, exchangeFee: 1.18 });
});

test('a malformed root [fees.Es] is a config error naming the key and the known roots', () => {
  // A well-formed root outside the tables ([fees.ZN]) is accepted: recorded data's definition
  // records may bring it (test/integration/process/instruments-any-root.test.ts).
  const e = configError('[fees.Es]\nmaker_fee = 0\ntaker_fee = 0\nexchange_fee = 0\n');
  const issue = e.issues.find((i) => i.key === 'fees.Es');
  assert.ok(issue, e.message);
  for (const root of Object.keys(CONTRACTS)) assert.ok(issue!.expected.includes(root), `${root} not named in: ${issue!.expected}`);
  assert.match(e.message, /^config\.toml: fees\.Es = /m);
});

test('a section holds all three keys: a missing or unknown one is an error naming it', () => {
  const missing = configError('[fees.MES]\nmaker_fee = 0.1\nexchange_fee = 0.35\n');
  assert.equal(
    missing.issues.map((i) => i.key),
    ['fees.MES.taker_fee'],
  );
  assert.match(missing.message, /fees\.MES\.taker_fee = \(missing\): expected a number \(USD per contract per fill/);
  const unknown = configError(`${MES_SECTION}makerfee = 0.1\n`);
  assert.equal(
    unknown.issues.map((i) => i.key),
    ['fees.MES.makerfee'],
  );
  assert.match(unknown.issues[0].expected, /in \[fees\.MES\].*did you mean "maker_fee"/);
  const wrongType = configError('[fees.MES]\nmaker_fee = "0.1"\ntaker_fee = 0.25\nexchange_fee = 0.35\n');
  assert.match(wrongType.message, /fees\.MES\.maker_fee = "0\.1": expected a number/);
});

test('the shipped config carries a section for every root of the contract table, each citing its source', () => {
  const c = loadConfig({ path: defaultConfigPath() }).config;
  for (const root of Object.keys(CONTRACTS)) assert.ok(c.fees[root as keyof typeof c.fees], `no [fees.${root}] in the shipped config`);
  const text = readFileSync(defaultConfigPath(), 'utf8');
  for (const root of Object.keys(CONTRACTS)) {
    const at = text.indexOf(`[fees.${root}]`);
    assert.match(text.slice(at, text.indexOf('\n', at)), /#\s*source:/, `[fees.${root}] has no source comment`);
  }
  // Micros are far cheaper than E-minis (CME charges them about a quarter of the E-mini fee).
  assert.ok(feeParams(c, 'MES').exchangeFee < feeParams(c, 'ES').exchangeFee / 3);
});

// ------------------------------------------------------------------------------------ backtest

test('an MES backtest charges every fill the MES schedule and the result names it', async () => {
  const { result, sessions } = await backtest('MES', shortSession(MES_SECTION));
  const cols = sessions[0].result!.fillColumns!;
  assert.ok(cols.fee.length > 20, `only ${cols.fee.length} fills`);
  let makers = 0,
    sum = 0;
  for (let i = 0; i < cols.fee.length; i++) {
    const maker = cols.liq[i] === LIQ_MAKER;
    if (maker) makers++;
    assert.is(cols.fee[i], cols.qty[i] * (maker ? 0.1 + 0.35 : 0.25 + 0.35), `fill ${i}`);
    sum += cols.fee[i];
  }
  assert.ok(makers > 0, 'no maker fill');
  assert.is(result.fees, sum);
  assert.equal(result.fee_schedule, MES_SCHEDULE);
});

test('a root without a section pays the flat [fees] table, and the result says so', async () => {
  const { result, sessions } = await backtest('ES', shortSession(MES_SECTION));
  const cols = sessions[0].result!.fillColumns!;
  assert.ok(cols.fee.length > 20, `only ${cols.fee.length} fills`);
  for (let i = 0; i < cols.fee.length; i++) {
    assert.is(cols.fee[i], cols.qty[i] * (cols.liq[i] === LIQ_MAKER ? 0.25 + 1.18 : 0.85 + 1.18), `fill ${i}`);
  }
  assert.equal(result.fee_schedule, {
    root: 'ES',
    source: 'fees',
    maker_fee: 0.25,
    taker_fee: 0.85,
    exchange_fee: 1.18,
    maker_per_contract: 0.25 + 1.18,
    taker_per_contract: 0.85 + 1.18,
  });
});

test('the shipped config: an MES run uses [fees.MES], not the E-mini figures', async () => {
  const c = shortSession();
  const { result } = await backtest('MES', c);
  const mes = feeParams(c, 'MES');
  assert.is(result.fee_schedule.source, 'fees.MES');
  assert.is(result.fee_schedule.exchange_fee, mes.exchangeFee);
  assert.ok(result.fees <= result.volume * Math.max(mes.makerFee, mes.takerFee) + result.volume * mes.exchangeFee + 1e-9);
});

test.run();
