// `npm run facts` (src/market/facts/, docs/market-facts.md): the order-flow facts of a tiny MBO
// file built to have hand-checkable values, a synthetic window and its own DBN export giving the
// same table, MBP-10 giving n/a for the facts about single orders, and the command through its
// CLI (--json, --vs, flag errors exiting 2 and naming the flag).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAGS, type DbnMetadata } from '../../../src/data/dbn/index.ts';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { DbnWriter, newMboFields } from '../../../src/data/dbn/writer.ts';
import { dbnFacts, FACTS, syntheticFacts } from '../../../src/market/facts/facts.ts';
import { runFactsCommand } from '../../../src/market/facts/facts-command.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';

const ROOT = new URL('../../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'market-facts-'));
const H = 3600e9;
const MIN = 60e9;
const MS = 1e6;
const T0 = 1_709_647_200_000_000_000n; // 2024-03-05 14:00 UTC = 09:00 New York, the file's start
const PX = (p: number) => Math.round(p * 1e9);
const A = 0x41,
  C = 0x43,
  M = 0x4d,
  T = 0x54,
  F = 0x46,
  R = 0x52,
  N = 0x4e;
const BID = 0x42,
  ASK = 0x41; // DBN sides
const { F_LAST, F_SNAPSHOT } = FLAGS;

/** [ns after 09:00, action, side, price $, size, order id, flags]. */
type Rec = [number, number, number, number, number, number, number];

async function mboFile(name: string, recs: Rec[]): Promise<string> {
  const meta: DbnMetadata = {
    version: 3,
    dataset: 'GLBX.MDP3',
    schema: 'mbo',
    start: T0,
    end: T0 + BigInt(60 * MIN),
    limit: 0n,
    stype_in: 'raw_symbol',
    stype_out: 'instrument_id',
    ts_out: false,
    symbol_cstr_len: 71,
    symbols: ['ESH4'],
    partial: [],
    not_found: [],
    mappings: [{ raw_symbol: 'ESH4', intervals: [{ start_date: '2024-03-05', end_date: '2024-03-06', symbol: '42' }] }],
  };
  const file = join(dir, name);
  const w = await DbnWriter.toFile(file, meta);
  const f = newMboFields();
  f.instrumentId = 42;
  for (const [ns, action, side, price, size, orderId, flags] of recs) {
    Object.assign(f, { tsRecvRel: ns, tsEventRel: ns, action, side, price: Number.isNaN(price) ? NaN : PX(price), size, orderId, flags });
    w.writeMbo(f);
  }
  w.close();
  return file;
}

// The opening snapshot (one resting order of 7: the book, not flow), then four new orders (three
// of size 1, one of 5), one modify, and a sell of 2 filling two resting orders (T, F, F, C, C).
// Events (distinct times) at 1 min, 1 min + 1 ms, 1.5 min, 3 min, 4 min after the window's start.
const TINY: Rec[] = [
  [0, R, N, NaN, 0, 0, 0],
  [0, A, BID, 4999.5, 7, 9, F_SNAPSHOT | F_LAST],
  [1 * MIN, A, BID, 5000.0, 1, 1, F_LAST],
  [1 * MIN + MS, A, BID, 5000.0, 1, 2, F_LAST],
  [1.5 * MIN, A, ASK, 5000.25, 1, 3, F_LAST],
  [1.5 * MIN, A, ASK, 5000.5, 5, 4, F_LAST],
  [3 * MIN, M, ASK, 5000.5, 4, 4, F_LAST],
  [4 * MIN, T, ASK, 5000.0, 2, 0, 0],
  [4 * MIN, F, BID, 5000.0, 1, 1, 0],
  [4 * MIN, F, BID, 5000.0, 1, 2, 0],
  [4 * MIN, C, BID, 5000.0, 1, 1, 0],
  [4 * MIN, C, BID, 5000.0, 1, 2, F_LAST],
];

test('MBO order-flow facts of a tiny file equal the hand-counted values', async () => {
  const [s] = dbnFacts(await mboFile('tiny.mbo.dbn.zst', TINY));
  const f = s.facts;
  assert.is(s.kind, 'mbo');
  assert.is(s.date, '2024-03-05');
  assert.is(s.startNs, 9 * H);
  assert.is(f.size1_share, 0.75); // 3 of 4 new orders (the snapshot's order is not one)
  assert.is(f.add_size_median, 1);
  assert.is(f.add_size_mean, 2); // (1 + 1 + 1 + 5) / 4
  assert.is(f.modify_share, 1 / 8); // 1 M of 4 A + 2 C + 1 M + 1 T
  assert.is(f.modifies_per_trade, 1);
  assert.is(f.fills_per_trade, 2);
  // gaps 1 ms, 29.999 s, 90 s, 60 s: median (rank 2) 60 s, p99 (rank 3) 90 s
  assert.is(f.inter_event_median_ns, 60e9);
  assert.is(f.inter_event_p99_ns, 90e9);
  assert.is(f.inter_event_ratio, 1.5);
  // 3 events in the first 2 min (1.5/min) vs 2 in the next 2 min to the last event (1/min)
  assert.is(f.opening_burst, 1.5);
});

const SYNTH = { root: 'ES', date: '2024-03-15', seed: 42, startNs: 9.5 * H, endNs: 9.5 * H + 3 * MIN };
const synth = syntheticFacts(SYNTH);
const exportSession = {
  date: SYNTH.date,
  rawSymbol: 'ESM24',
  spec: contractForRoot('ES'),
  seed: 42,
  sessionStartNs: SYNTH.startNs,
  sessionEndNs: SYNTH.endNs,
  activity: 1,
};
const mboExport = join(dir, 'synth.mbo.dbn.zst');
const mbpExport = join(dir, 'synth.mbp-10.dbn.zst');
await exportSynthetic(mboExport, [exportSession], { schema: 'mbo', marketDataLatencyNs: 0 });
await exportSynthetic(mbpExport, [exportSession], { schema: 'mbp-10', marketDataLatencyNs: 0 });

test('a synthetic window and its DBN MBO export give the same facts', () => {
  assert.ok(synth.facts.l2_events > 10_000, `${synth.facts.l2_events} events`);
  assert.ok(synth.facts.size1_share > 0 && synth.facts.size1_share < 1);
  assert.ok(synth.facts.fills_per_trade >= 1);
  const [recorded] = dbnFacts(mboExport);
  assert.is(recorded.kind, 'mbo');
  assert.is(recorded.startNs, SYNTH.startNs);
  for (const { key } of FACTS) assert.ok(Object.is(recorded.facts[key], synth.facts[key]), `${key}: ${recorded.facts[key]} vs ${synth.facts[key]}`);
});

test('MBP-10 input: n/a (NaN) for the facts about single orders, the others measured', () => {
  const [s] = dbnFacts(mbpExport);
  assert.is(s.kind, 'mbp-10');
  for (const key of ['size1_share', 'add_size_median', 'add_size_mean', 'modify_share', 'modifies_per_trade', 'fills_per_trade'])
    assert.ok(Number.isNaN(s.facts[key]), key);
  // One MBP-10 record per book event at the same times: the event times are the MBO export's.
  for (const key of ['inter_event_median_ns', 'inter_event_p99_ns', 'opening_burst', 'one_tick_spread_share', 'mean_best_queue'])
    assert.ok(Object.is(s.facts[key], synth.facts[key]), `${key}: ${s.facts[key]} vs ${synth.facts[key]}`);
});

function facts(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/facts.ts'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test('CLI: --json with full precision, --vs synthetic side by side, n/a as null', () => {
  const r = facts(['--data', mbpExport, '--vs', 'synthetic', '--date', SYNTH.date, '--from', '09:30', '--to', '09:33', '--json']);
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { sessions: { kind: string; facts: Record<string, number | null> }[] };
  assert.equal(
    out.sessions.map((s) => s.kind),
    ['mbp-10', 'synthetic'],
  );
  assert.is(out.sessions[0].facts.size1_share, null);
  for (const { key } of FACTS) assert.is(out.sessions[1].facts[key], Number.isNaN(synth.facts[key]) ? null : synth.facts[key], key);
  const table = facts(['--data', mbpExport]);
  assert.is(table.code, 0, table.stderr);
  assert.match(table.stdout, /\| new orders of size 1 \| n\/a \|/);
  assert.match(table.stdout, /\| spread = 1 tick, time-weighted \| \d+\.\d\d% \|/);
});

test('bad flags exit 2 naming the flag (through the CLI, and every flag through the command)', () => {
  const cases: [string[], string][] = [
    [['--bogus'], '--bogus'],
    [['--seed', 'x'], '--seed'],
    [['--date', '2024-02-30'], '--date'],
    [['--from', '25:00'], '--from'],
    [['--from', '10:00', '--to', '09:00'], '--to'],
    [['--seeds', '7-1'], '--seeds'],
    [['--symbol', 'ZZ'], '--symbol'],
    [['--data', join(dir, 'missing.dbn')], '--data'],
    [['--vs', join(dir, 'missing.dbn')], '--vs'],
  ];
  for (const [args, flag] of cases) {
    let out = '',
      err = '';
    const code = runFactsCommand(
      args,
      (s) => void (out += s),
      (s) => void (err += s),
    );
    assert.is(code, 2, `${args.join(' ')}: exit ${code} ${err}`);
    assert.ok(err.includes(flag), `${args.join(' ')}: ${err}`);
    assert.is(out, '');
  }
  for (const [args, flag] of [cases[0], cases[1]]) {
    const r = facts(args);
    assert.is(r.code, 2, `${args.join(' ')}: exit ${r.code} ${r.stderr}`);
    assert.ok(r.stderr.includes(flag), `${args.join(' ')}: ${r.stderr}`);
    assert.is(r.stdout, '');
  }
});

test('a source the replay cannot read exits 1 naming the flag and the file', () => {
  const trades = join(ROOT, 'test/fixtures/dbn/test_data.trades.v3.dbn.zst');
  let out = '',
    err = '';
  assert.is(
    runFactsCommand(
      ['--data', trades],
      (s) => void (out += s),
      (s) => void (err += s),
    ),
    1,
  );
  assert.ok(err.startsWith('error: --data: ') && err.includes(trades) && err.includes('schema trades'), err);
  assert.is(out, '');
});

test.run();
