// The fills and equity exports: the Parquet file, read back by an independent reader
// (parquet-wasm: Rust's arrow-rs parquet, not the JavaScript writer's family), holds exactly
// the CSV's values, and the per-fill markouts add up to the result's markouts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBacktest, type BacktestRun } from '../../../src/backtest/run.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { MARKOUT_LABELS } from '../../../src/portfolio/markouts.ts';
import { equityTable, FILL_COLUMNS, fillTable, toCsv, type Column } from '../../../src/research/fill-table.ts';
import { toParquet } from '../../../src/research/parquet.ts';
import { equityFile, fillsFile } from '../../../src/research/artifacts.ts';
import { VERSION } from '../../../src/version.ts';

const config = parseConfig('[simulation]\nsession_start = "09:30"\nsession_end = "09:50"\n', 'short.toml');
const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-03', seed: 7 }, config);
if (!v.ok) throw new Error(JSON.stringify(v.errors));
// Run when this file's tests start (uvu imports every file first), and dropped after them.
let run: BacktestRun;
// The readers load when this file's tests start: parquet-wasm compiles a 5 MB WASM module.
let tableFromIPC: typeof import('apache-arrow').tableFromIPC;
let readParquet: typeof import('parquet-wasm/node').readParquet;
beforeAll(test, async () => {
  ({ tableFromIPC } = await import('apache-arrow'));
  ({ readParquet } = await import('parquet-wasm/node'));
  run = await runBacktest(v.request, config, { collectFills: true });
});
test.after(() => {
  run = undefined as unknown as BacktestRun;
});

function csvRows(csv: string): string[][] {
  return csv
    .trimEnd()
    .split('\n')
    .map((l) => l.split(','));
}

/** Every Parquet value, compared with the CSV field of the same row and column. */
function assertParquetEqualsCsv(cols: Column[]): void {
  const csv = csvRows(toCsv(cols));
  const table = tableFromIPC(readParquet(toParquet(cols)).intoIPCStream());
  assert.equal(
    table.schema.fields.map((f) => f.name),
    csv[0],
  );
  assert.is(table.numRows, csv.length - 1);
  cols.forEach((c, k) => {
    const col = table.getChildAt(k)!;
    if (c.kind === 'int64') assert.is(String(col.type), 'Int64', c.name);
    if (c.kind === 'timestamp_ns') assert.is(String(col.type), 'Timestamp<NANOSECOND, UTC>', c.name);
    if (c.kind === 'date') assert.is(String(col.type), 'Date32<DAY>', c.name);
    // A nanosecond timestamp's exact integer (arrow's get() gives float ms).
    const ns = c.kind === 'timestamp_ns' ? col.data.flatMap((d) => [...(d.values as BigInt64Array)]) : [];
    for (let i = 0; i < table.numRows; i++) {
      const got = col.get(i);
      const want = csv[i + 1][k];
      if (c.kind === 'timestamp_ns') assert.is(String(ns[i]), want, `${c.name} row ${i}`);
      else if (c.kind === 'date') assert.is(new Date(got as number).toISOString().slice(0, 10), want, `${c.name} row ${i}`);
      else if (c.kind === 'double') assert.ok(want === '' ? got === null : got === Number(want), `${c.name} row ${i}: parquet ${got}, csv ${want}`);
      else assert.is(String(got), want, `${c.name} row ${i}`);
    }
  });
}

test('the fills CSV keeps the nine historical columns first, then the new ones', () => {
  const header = toCsv(fillTable(v.request, run.sessions)).split('\n')[0];
  assert.is(
    header,
    'time,session_date,symbol,side,price,quantity,liquidity,fee,order_id,time_ns,position_after,realized_pnl_gross,realized_pnl_net,mid,markout_100ms,markout_1s,markout_10s,markout_60s',
  );
  assert.is(FILL_COLUMNS.length, 18);
});

test('fills: the Parquet file read by parquet-wasm equals the CSV, value for value', () => {
  const cols = fillTable(v.request, run.sessions);
  assert.ok(cols[0].values.length > 50, `fills ${cols[0].values.length}`);
  assertParquetEqualsCsv(cols);
});

test('equity: the Parquet file equals the CSV and holds every sample of the result', () => {
  const cols = equityTable(run.result.equity_curve);
  assert.is(cols[0].values.length, run.result.equity_curve.length);
  assert.equal(
    cols[2].values,
    run.result.equity_curve.map((p) => p.equity),
  );
  assertParquetEqualsCsv(cols);
});

test('fills: time is time_ns truncated to the millisecond, exactly (no float rounding into the next ms)', () => {
  // 34200000999937 ns after New York midnight: 14:30:00.000999937Z, which ms + ns / 1e6 in
  // floats rounded to .001.
  const s = run.sessions[0];
  const cols0 = s.result!.fillColumns!;
  const one = Object.fromEntries(Object.entries(cols0).map(([k, c]) => [k, c.slice(0, 1)])) as typeof cols0;
  one.exchTs[0] = 34_200_000_999_937;
  const cols = fillTable(v.request, [{ ...s, result: { ...s.result!, fillColumns: one } }]);
  assert.is(cols[0].values[0], '2024-01-02T14:30:00.000Z');
  assert.is(cols[9].values[0], 1704205800000999937n);
  // And every fill of the run: time is its time_ns, truncated.
  const all = fillTable(v.request, run.sessions);
  all[9].values.forEach((ns, i) => assert.is(all[0].values[i], new Date(Number((ns as bigint) / 1_000_000n)).toISOString()));
});

test('Parquet: time_ns a UTC nanosecond timestamp, session_date a date, the run in the key-value metadata', () => {
  const file = fillsFile(v.request, run, 'parquet', config) as Uint8Array;
  const table = tableFromIPC(readParquet(file).intoIPCStream());
  const type = (n: string) => String(table.schema.fields.find((f) => f.name === n)!.type);
  assert.is(type('time_ns'), 'Timestamp<NANOSECOND, UTC>');
  assert.is(type('session_date'), 'Date32<DAY>');
  const meta = table.schema.metadata;
  assert.is(meta.get('engine.version'), VERSION);
  assert.is(meta.get('engine.seed'), '7');
  assert.is(meta.get('engine.symbol'), 'ES');
  assert.is(meta.get('engine.strategy'), v.request.strategy.name);
  const req = JSON.parse(meta.get('engine.request')!);
  assert.equal(req.dates, ['2024-01-02', '2024-01-03']);
  assert.equal(req.strategy.params, v.request.strategy.params);
  assert.is(JSON.parse(meta.get('engine.config')!).simulation.session_end, '09:50');
  const eq = tableFromIPC(readParquet(equityFile(v.request, run, 'parquet', config) as Uint8Array).intoIPCStream());
  assert.is(String(eq.schema.fields[1].type), 'Timestamp<NANOSECOND, UTC>');
  assert.is(eq.schema.metadata.get('engine.seed'), '7');
});

test('per-fill columns add up to the result: markouts per horizon, position after each fill', () => {
  const cols = fillTable(v.request, run.sessions);
  const col = (name: string) => cols.find((c) => c.name === name)!.values;
  const qty = col('quantity').map(Number);
  for (const label of MARKOUT_LABELS) {
    const m = col(`markout_${label}`);
    let sum = 0;
    let n = 0;
    m.forEach((x, i) => {
      if (x === null) return;
      sum += (x as number) * qty[i];
      n += qty[i];
    });
    assert.is(n, run.result.markouts[label].fills_qty, label);
    assert.is(sum / n, run.result.markouts[label].avg_ticks, label);
  }
  const dates = col('session_date');
  const pos = col('position_after');
  for (const s of run.result.session_results) {
    const last = dates.lastIndexOf(s.date);
    assert.is(Number(pos[last]), s.final_position, s.date);
  }
  const mids = col('mid');
  assert.ok(
    mids.every((x) => x === null || (typeof x === 'number' && x > 4000)),
    'mid in index points',
  );
});

test.run();
