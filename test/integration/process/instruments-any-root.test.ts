// Any CME future, not only the built-in eight: a root from the data's definition records or from
// the config's [contracts.<ROOT>] table. The 10-Year T-Note (ZN) figures are CME Group's contract
// specification ("10-Year T-Note Futures - Contract Specs"): $100,000 face value, so $1,000 per
// point; minimum tick 1/2 of 1/32 of a point = 1/64 = 0.015625, i.e. $15.625 per contract.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../src/config/load.ts';
import { DbnReader, DbnWriter, type DbnRecord, type InstrumentDefMsg, RTYPE } from '../../../src/data/dbn/index.ts';
import { sessionNsToUnixNs } from '../../../src/market/dbn-time.ts';
import { exportMetadata, exportSynthetic, type ExportSession, syntheticInstrumentId } from '../../../src/market/dbn-export/synthetic-export.ts';
import { expiryMessage, frontMonth, lastTradingDay, rollDate } from '../../../src/market/contract-calendar.ts';
import { type ContractTable, contractForRoot, contractSpec, parseSymbol, useConfiguredContracts } from '../../../src/market/instruments.ts';
import { describeDataset, planReplay } from '../../../src/market/replay/dataset.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { configError } from '../../helpers/config-error.ts';
import { runCli, tempDir, writeConfig } from '../../helpers/cli.ts';

const H = 3600e9;
const M = 60e9;
const at = (h: number, m = 0) => h * H + m * M;

// The ZN table as docs/instruments.md writes it. The market profile is illustrative (the test's
// synthetic data); CME's figures are the tick, the point value and the hours.
const ZN_TOML = `
[contracts.ZN]
product = "10-Year T-Note"
tick_size = 0.015625
point_value = 1000
currency = "USD"
group = "interest_rate"
expiry = "treasury_quarterly"
regular_open = "07:20"
regular_close = "14:00"
`;
const ZN_MARKET = `
[contracts.ZN.market]
price_low = 108
price_high = 112
annual_vol = 0.06
queue = 400
order_size = 5
`;
const ZN_FEES = `
[fees.ZN]
maker_fee = 0.1
taker_fee = 0.3
exchange_fee = 0.6
`;
const ZN_TABLE: ContractTable = {
  product: '10-Year T-Note',
  tick_size: 1 / 64,
  point_value: 1000,
  currency: 'USD',
  group: 'interest_rate',
  expiry: 'treasury_quarterly',
  market: { price_low: 108, price_high: 112, annual_vol: 0.06, queue: 400, order_size: 5 },
};

const dir = tempDir('zn-');
test.after(() => rmSync(dir, { recursive: true, force: true }));
test.after.each(() => useConfiguredContracts({}));

/** A ZNH4 definition record (v3 layout, prices in 1e-9 units) carrying CME's figures: tick 1/64, $15.625 a tick. */
function znDefinition(overrides: Partial<InstrumentDefMsg> = {}): InstrumentDefMsg {
  const ts = sessionNsToUnixNs('2024-03-05', at(7));
  return {
    hd: { length: 130, rtype: RTYPE.INSTRUMENT_DEF, publisher_id: 1, instrument_id: syntheticInstrumentId('ZNH4'), ts_event: ts },
    ts_recv: ts,
    min_price_increment: 15_625_000n, // 1/64 = 0.015625
    display_factor: 1_000_000_000n, // 1.0
    expiration: sessionNsToUnixNs('2024-03-19', at(13, 1)),
    activation: sessionNsToUnixNs('2023-06-20', at(17)),
    high_limit_price: 115_000_000_000n,
    low_limit_price: 105_000_000_000n,
    unit_of_measure_qty: 100_000_000_000_000n, // $100,000 face value
    min_price_increment_amount: 15_625_000_000n, // $15.625 per tick
    raw_instrument_id: BigInt(syntheticInstrumentId('ZNH4')),
    maturity_year: 2024,
    maturity_month: 3,
    currency: 'USD',
    raw_symbol: 'ZNH4',
    group: 'ZN',
    exchange: 'XCBT',
    asset: 'ZN',
    security_type: 'FUT',
    instrument_class: 'F',
    match_algorithm: 'F',
    security_update_action: 'A',
    ...overrides,
  };
}

function znSession(date: string): ExportSession {
  return { date, rawSymbol: 'ZNH4', spec: contractSpec('ZN', ZN_TABLE, 'test'), seed: 3, sessionStartNs: at(8, 20), sessionEndNs: at(9, 20), activity: 0.05 };
}

/** A directory of daily ZN MBO files (no definitions inside). */
async function znDays(name: string): Promise<string> {
  const days = join(dir, name);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(days);
  for (const date of ['2024-03-05', '2024-03-06']) {
    await exportSynthetic(join(days, `glbx-${date}.mbo.dbn.zst`), [znSession(date)], {
      schema: 'mbo',
      marketDataLatencyNs: 50_000,
      maxEventsPerSession: 20_000,
    });
  }
  return days;
}

/** A definition-schema file holding `defs`. */
async function definitionFile(path: string, defs: InstrumentDefMsg[]): Promise<void> {
  const w = await DbnWriter.toFile(path, { ...exportMetadata([znSession('2024-03-05')], 'mbo'), schema: 'definition' });
  for (const d of defs) w.write(d);
  w.close();
}

test('the DBN writer writes a v3 definition record that the reader reads back field for field', async () => {
  const path = join(dir, 'zn.definition.dbn.zst');
  await definitionFile(path, [znDefinition()]);
  const reader = DbnReader.open(path);
  const records = [...reader.records()];
  reader.close();
  assert.is(reader.metadata.schema, 'definition');
  assert.equal(records, [znDefinition()]);
  // A v1/v2 file has another layout: refused rather than written wrong.
  const v2 = await DbnWriter.toBytes({ ...exportMetadata([znSession('2024-03-05')], 'mbo'), version: 2 }, { compress: false });
  assert.throws(() => v2.write(znDefinition()), /definition records are written in the DBN v3 layout; this file is v2/);
  v2.close();
});

test('a ZN directory with a definition file beside: 1/64 tick grid, $15.625 per tick, a session per trade date', async () => {
  const days = await znDays('zn-defs');
  // Without a definition or a table, ZN is unknown, and the error says how to make it known.
  assert.throws(
    () => planReplay(days),
    /no symbol maps to a known contract \(symbols: ZNH4; .*needs a \[contracts\.<ROOT>\] table in the config or definition records in the data/,
  );
  await definitionFile(join(days, 'glbx-definition.dbn.zst'), [znDefinition()]);
  const plan = planReplay(days);
  assert.is(plan.root, 'ZN');
  assert.is(plan.contract.tickSize, 0.015625);
  assert.is(plan.contract.tickValue, 15.625);
  assert.is(plan.contract.pointValue, 1000);
  assert.match(plan.contract.source, /glbx-definition\.dbn\.zst: definition record of ZNH4/);
  // GET /api/datasets lists the directory as MBO data: the definition file describes it.
  assert.is(describeDataset(days, 'zn').schema, 'mbo');
  assert.equal(
    plan.sessions.map((s) => s.date),
    ['2024-03-05', '2024-03-06'],
  );
  for (const s of plan.sessions) {
    assert.is(s.replay.tickUnits, 15_625_000); // DBN price units per tick: the grid the book is read on
    assert.equal([s.sessionStartNs, s.sessionEndNs], [at(8, 20), at(9, 20)]);
  }

  // The CLI: a root outside the built-in table pays only its own [fees.ZN].
  const noFees = runCli(['--backtest', '--config', writeConfig(''), '--data', days, '--json']);
  assert.is.not(noFees.code, 0);
  assert.match(noFees.stderr, /ZN \(.*definition record of ZNH4\) has no fee schedule: add \[fees\.ZN\] with maker_fee, taker_fee and exchange_fee/);

  const fills = join(dir, 'zn-fills.csv');
  const r = runCli(['--backtest', '--config', writeConfig(ZN_FEES), '--data', days, '--json', '--fills', fills]);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.is(res.root, 'ZN');
  assert.equal(
    res.session_results.map((s: { date: string }) => s.date),
    ['2024-03-05', '2024-03-06'],
  );
  assert.is(res.fee_schedule.source, 'fees.ZN');
  assertOnGridAndPnl(fills, res);
});

/** Every fill price is a whole number of 1/64 ticks, and each session's P&L recomputes from the fills at $1,000 per point. */
function assertOnGridAndPnl(
  fillsPath: string,
  res: { total_fills: number; session_results: { date: string; pnl: number; final_position: number; final_mid: number }[] },
): void {
  const lines = readFileSync(fillsPath, 'utf8').trim().split('\n');
  assert.is(lines.length - 1, res.total_fills);
  assert.ok(res.total_fills >= 10, `fills: ${res.total_fills}`);
  const head = lines[0].split(',');
  const col = (n: string) => head.indexOf(n);
  const bySession = new Map<string, { cash: number; pos: number; fees: number }>();
  for (const line of lines.slice(1)) {
    const f = line.split(',');
    const price = Number(f[col('price')]);
    assert.ok(Number.isInteger(price * 64), `price ${price} is not on the 1/64 grid`);
    const s = bySession.get(f[col('session_date')]) ?? { cash: 0, pos: 0, fees: 0 };
    const q = Number(f[col('quantity')]) * (f[col('side')] === 'BUY' ? 1 : -1);
    s.cash -= q * price * 1000;
    s.pos += q;
    s.fees += Number(f[col('fee')]);
    bySession.set(f[col('session_date')], s);
  }
  for (const sr of res.session_results) {
    const s = bySession.get(sr.date) ?? { cash: 0, pos: 0, fees: 0 };
    assert.ok(Number.isInteger(sr.final_mid * 128), `final mid ${sr.final_mid} is not on the half-tick grid`);
    const pnl = s.cash + s.pos * sr.final_mid * 1000 - s.fees;
    assert.ok(Math.abs(pnl - sr.pnl) < 1e-6, `${sr.date}: ${pnl} from the fills vs ${sr.pnl}`);
  }
}

test('definition records inside the data file name its contract', async () => {
  const days = await znDays('zn-inside');
  const file = join(days, 'glbx-2024-03-05.mbo.dbn.zst');
  const reader = DbnReader.open(file);
  const records: DbnRecord[] = [...reader.records()];
  const meta = reader.metadata;
  reader.close();
  const w = await DbnWriter.toFile(file, meta);
  w.write(znDefinition());
  for (const r of records) w.write(r);
  w.close();
  const plan = planReplay(file);
  assert.is(plan.contract.tickValue, 15.625);
  assert.is(plan.sessions[0].replay.tickUnits, 15_625_000);
});

test('a definition that contradicts [contracts.ZN] is an error naming both values, not a merge', async () => {
  const days = await znDays('zn-conflict');
  await definitionFile(join(days, 'glbx-definition.dbn.zst'), [znDefinition()]);
  // The config says 1/32 (the 30-Year Bond's tick), the data 1/64.
  parseConfig(ZN_TOML.replace('tick_size = 0.015625', 'tick_size = 0.03125') + ZN_FEES, 'config.toml');
  assert.throws(
    () => planReplay(days),
    (e: Error) =>
      /definition record of ZNH4 contradicts the contract table: tick_size 0\.03125 in contracts\.ZN, 0\.015625 in the data \(min_price_increment 15625000\)/.test(
        e.message,
      ) &&
      /tick value \$31\.25 in contracts\.ZN \(point_value 1000\), \$15\.625 in the data \(min_price_increment_amount 15625000000 \/ display_factor 1000000000\)/.test(
        e.message,
      ) &&
      /Fix \[contracts\.ZN\]/.test(e.message),
  );
  // The CLI reports it and exits non-zero.
  const r = runCli(['--backtest', '--config', writeConfig(ZN_TOML.replace('tick_size = 0.015625', 'tick_size = 0.03125') + ZN_FEES), '--data', days]);
  assert.is.not(r.code, 0);
  assert.match(r.stderr, /contradicts the contract table: tick_size 0\.03125 in contracts\.ZN/);
  // An agreeing table is used as is (its hours and calendar come with it), and so is a table alone.
  parseConfig(ZN_TOML + ZN_FEES, 'config.toml');
  assert.is(planReplay(days).contract.source, 'contracts.ZN');
  rmSync(join(days, 'glbx-definition.dbn.zst'));
  const alone = planReplay(days, { regularHoursOnly: true });
  assert.is(alone.contract.source, 'contracts.ZN');
  assert.is(alone.contract.tickValue, 15.625);
  // Regular hours follow the instrument: 07:20-14:00 Chicago = 08:20-15:00 New York.
  assert.equal([alone.sessions[0].sessionStartNs, alone.sessions[0].sessionEndNs], [at(8, 20), at(9, 20)]);
  // A definition without the tick's value needs a table to give it.
  useConfiguredContracts({});
  await definitionFile(join(days, 'glbx-definition.dbn.zst'), [znDefinition({ min_price_increment_amount: 9223372036854775807n })]);
  assert.throws(
    () => planReplay(days),
    /min_price_increment_amount is null \(CME may leave tag 1146 empty\), so the tick value is unknown: add \[contracts\.ZN\] with point_value/,
  );
});

test('[contracts.ZN] alone: a synthetic ZN backtest on the 1/64 grid, at $15.625 a tick, in Treasury hours', () => {
  const fills = join(dir, 'zn-synthetic-fills.csv');
  const config = writeConfig(`[simulation]\nactivity = 0.05\n${ZN_TOML}${ZN_MARKET}${ZN_FEES}`);
  const r = runCli(['--backtest', '--config', config, '--symbol', 'ZN', '--start', '2024-01-02', '--end', '2024-01-02', '--json', '--fills', fills]);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.equal(res.contracts, ['ZNH24']);
  assert.is(res.fee_schedule.source, 'fees.ZN');
  assertOnGridAndPnl(fills, res);
  // 07:20 Chicago = 13:20 UTC in January: no fill before the Treasury open, none after 14:00 CT.
  const times = readFileSync(fills, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[0]);
  assert.ok(
    times.every((t) => t >= '2024-01-02T13:20:00' && t < '2024-01-02T20:00:00'),
    `${times[0]} .. ${times[times.length - 1]}`,
  );
});

test('a configured root without a market profile is refused by the synthetic market, naming what is missing', () => {
  const config = parseConfig(ZN_TOML + ZN_FEES, 'config.toml');
  const v = validateBacktestRequest({ symbol: 'ZN', startDate: '2024-01-02', endDate: '2024-01-02' }, config);
  assert.is(v.ok, false);
  if (v.ok) return;
  assert.equal(
    v.errors.map((e) => e.field),
    ['symbol'],
  );
  assert.match(
    v.errors[0].message,
    /ZN \(contracts\.ZN\) has no synthetic market profile: add \[contracts\.ZN\.market\] with price_low, price_high, annual_vol, queue, order_size, or replay recorded data/,
  );
  // The live simulation trades trading.symbols on the synthetic market: refused at load.
  const e = configError(`[trading]\nsymbols = ["ZNH24"]\n${ZN_TOML}${ZN_FEES}`);
  assert.equal(
    e.issues.map((i) => i.key),
    ['trading.symbols[0]'],
  );
  assert.match(e.message, /no synthetic market profile: add \[contracts\.ZN\.market\]/);
});

test('[contracts.<ROOT>] is validated like every key: errors name the key, the value and what was expected', () => {
  const noFees = configError(ZN_TOML);
  assert.equal(
    noFees.issues.map((i) => i.key),
    ['fees.ZN'],
  );
  assert.match(
    noFees.message,
    /fees\.ZN = \(missing\): expected a table \[fees\.ZN\] \(maker_fee, taker_fee, exchange_fee\): \[contracts\.ZN\] is configured, and the flat \[fees\] table \(E-mini figures\) does not apply/,
  );
  const badTick = configError(ZN_TOML.replace('tick_size = 0.015625', 'tick_size = 0.3') + ZN_FEES);
  assert.equal(
    badTick.issues.map((i) => i.key),
    ['contracts.ZN.tick_size'],
  );
  assert.match(badTick.message, /contracts\.ZN\.tick_size = 0\.3: expected a tick size that divides one point into a whole number of ticks/);
  const group = configError(ZN_TOML.replace('"interest_rate"', '"grains"') + ZN_FEES);
  assert.match(group.message, /contracts\.ZN\.group = "grains": expected one of "equity_index", "energy", "metals", "interest_rate"/);
  const typo = configError(`${ZN_TOML}tick_value = 15.625\n${ZN_FEES}`);
  assert.match(
    typo.message,
    /contracts\.ZN\.tick_value = 15\.625: expected a known key in \[contracts\.ZN\] \(unknown key; known keys: product, tick_size, point_value, currency, group, expiry, regular_open, regular_close, market\)/,
  );
  const missing = configError(ZN_TOML.replace('point_value = 1000\n', '') + ZN_FEES);
  assert.equal(
    missing.issues.map((i) => i.key),
    ['contracts.ZN.point_value'],
  );
  const hours = configError(ZN_TOML.replace('regular_close = "14:00"', 'regular_close = "07:00"') + ZN_FEES);
  assert.match(hours.message, /contracts\.ZN\.regular_close = "07:00": expected a time after regular_open \("07:20"\)/);
  const feesMalformed = configError('[fees.zn]\nmaker_fee = 0\ntaker_fee = 0\nexchange_fee = 0\n');
  assert.match(
    feesMalformed.message,
    /fees\.zn = .*a root of 1 to 3 capital letters \(known roots: ES, NQ, YM, RTY, MES, MNQ, CL, GC, or one that recorded data's definitions bring\)/,
  );
  // The built-in roots keep their specs, and the flat [fees] table stays theirs.
  const cfg = parseConfig(ZN_TOML + ZN_FEES, 'config.toml');
  assert.is(contractForRoot('ES').tickValue, 12.5);
  assert.is(contractForRoot('CL').tickValue, 10);
  assert.is(contractForRoot('ZN').tickValue, 15.625);
  assert.is(cfg.contracts.ZN.point_value, 1000);
});

test('Treasury expiry and roll (treasury_quarterly): ZNH24 per CME', () => {
  parseConfig(ZN_TOML + ZN_FEES, 'config.toml');
  const h24 = parseSymbol('ZNH24');
  // Seventh business day before the last business day of March 2024 (the 28th; the 29th is Good Friday).
  assert.is(lastTradingDay(h24), '2024-03-19');
  // First intention day: two business days before the first business day of March (Friday the 1st).
  assert.is(rollDate(h24), '2024-02-28');
  assert.is(frontMonth('ZN', '2024-02-27').symbol, 'ZNH24');
  assert.is(frontMonth('ZN', '2024-02-28').symbol, 'ZNM24');
  assert.match(
    expiryMessage(h24, at(8, 20), at(15)),
    /ZNH24 trades until its last trading day 2024-03-19 \(trading terminates at 13:01 ET; its last session is 2024-03-19\)/,
  );
});

// Euro FX (6E), CME Group's "Euro FX Futures - Contract Specs": 125,000 euro, so $125,000 per
// point (USD per EUR); minimum tick $0.00005 per euro = $6.25 per contract; trading terminates at
// 9:16 CT on the second business day before the third Wednesday of the contract month.
const FX_TOML = `
[contracts.6E]
product = "Euro FX"
tick_size = 0.00005
point_value = 125000
currency = "USD"
group = "currency"
expiry = "fx_quarterly"

[contracts.6E.market]
price_low = 1.07
price_high = 1.11
annual_vol = 0.07
queue = 60
order_size = 3

[fees.6E]
maker_fee = 0.1
taker_fee = 0.3
exchange_fee = 0.6
`;

test('a root that starts with a digit (6E, from [contracts.6E]): parsed, $6.25 a tick, fx_quarterly expiry, a synthetic run on its grid', () => {
  parseConfig(FX_TOML, 'config.toml');
  const h24 = parseSymbol('6EH24');
  assert.is(h24.root, '6E');
  assert.is(contractForRoot('6E').tickValue, 6.25);
  // The third Wednesday of March 2024 is the 20th: two business days before, Monday the 18th.
  assert.is(lastTradingDay(h24), '2024-03-18');
  assert.is(rollDate(h24), '2024-03-11');
  assert.is(frontMonth('6E', '2024-03-08').symbol, '6EH24');
  assert.is(frontMonth('6E', '2024-03-11').symbol, '6EM24');
  assert.match(expiryMessage(h24, at(9, 30), at(16)), /trading terminates at 10:16 ET/);
  const fills = join(dir, 'fx-fills.csv');
  const r = runCli([
    '--backtest',
    '--config',
    writeConfig(`[simulation]\nactivity = 0.05\n${FX_TOML}`),
    '--symbol',
    '6E',
    '--start',
    '2024-01-02',
    '--end',
    '2024-01-02',
    '--json',
    '--fills',
    fills,
  ]);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.equal(res.contracts, ['6EH24']);
  const lines = readFileSync(fills, 'utf8').trim().split('\n');
  assert.ok(lines.length > 1, 'fills');
  const col = lines[0].split(',').indexOf('price');
  for (const l of lines.slice(1)) {
    const px = Number(l.split(',')[col]);
    assert.ok(Math.abs(px / 0.00005 - Math.round(px / 0.00005)) < 1e-6, `price ${px} is not on the 0.00005 grid`);
  }
});

test('an unknown root from the CLI is refused once the config is read, naming the known roots and the table to add', () => {
  const r = runCli(['--backtest', '--config', writeConfig(''), '--symbol', 'ZB']);
  assert.is.not(r.code, 0);
  assert.match(r.stderr, /unknown contract 'ZB': expected one of ES, NQ, YM, RTY, MES, MNQ, CL, GC .*add a \[contracts\.ZB\] table to the config/);
});

test.run();
