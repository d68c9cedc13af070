// Recorded data as Databento delivers it, on files built with the DBN writer to have each
// property: an MBO file opening with a clear and a book snapshot whose ts_event is days before the
// file (docs/replay.md), a window that starts inside the file (warm-up), MBP-10 at a window start,
// and the data-quality counters in the result, the report, the CLI and a warn log line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { runCli, writeConfig } from '../../helpers/cli.ts';
import { ASK, BID, EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, EV_TS, MD_ADD, MD_CANCEL, MD_TRADE } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { FLAGS, type DbnMetadata } from '../../../src/data/dbn/index.ts';
import { DbnWriter, newMboFields, newMbpFields } from '../../../src/data/dbn/writer.ts';
import { planReplay } from '../../../src/market/replay/dataset.ts';
import { DbnMarketSource } from '../../../src/market/replay/dbn-source.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { parseConfig } from '../../../src/config/load.ts';

const dir = mkdtempSync(join(tmpdir(), 'dbn-replay-real-'));
const T0 = 1_709_647_200_000_000_000n; // 2024-03-05 14:00 UTC = 09:00 New York, the file's start
const MIN = 60e9;
const DAY = 86_400e9;
const PX = (p: number) => Math.round(p * 1e9); // dollars -> DBN 1e-9 units
const A = 0x41,
  C = 0x43,
  M = 0x4d,
  F = 0x46,
  R = 0x52,
  N = 0x4e;
const B_ = 0x42,
  A_ = 0x41; // DBN sides: bid, ask
const { F_LAST, F_SNAPSHOT } = FLAGS;

function meta(schema: 'mbo' | 'mbp-10', minutes: number): DbnMetadata {
  return {
    version: 3,
    dataset: 'GLBX.MDP3',
    schema,
    start: T0,
    end: T0 + BigInt(minutes * MIN),
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
}

/** [minute after T0 (ts_recv; ts_event too unless given), action, side, price $, size, order id, flags, ts_event minute]. */
type Rec = [number, number, number, number, number, number, number, number?];

async function mboFile(name: string, minutes: number, recs: Rec[]): Promise<string> {
  const file = join(dir, name);
  const w = await DbnWriter.toFile(file, meta('mbo', minutes));
  const f = newMboFields();
  f.instrumentId = 42;
  for (const [m, action, side, price, size, id, flags, ev] of recs) {
    Object.assign(f, { tsRecvRel: m * MIN, tsEventRel: (ev ?? m) * MIN, action, side, price: Number.isNaN(price) ? NaN : PX(price), size, orderId: id, flags });
    w.writeMbo(f);
  }
  w.close();
  return file;
}

// Databento's daily file: a clear, then every resting order as F_SNAPSHOT records entered days
// earlier (ts_event), received at the file's start; then the day's records.
const SNAPSHOT: Rec[] = [
  [0, R, N, NaN, 0, 0, 0],
  [0, A, B_, 5000.0, 5, 1, F_SNAPSHOT, (-3 * DAY) / MIN],
  [0, A, B_, 4999.75, 3, 2, F_SNAPSHOT, (-2 * DAY) / MIN],
  [0, A, A_, 5000.25, 4, 3, F_SNAPSHOT, -DAY / MIN],
  [0, A, A_, 5000.5, 2, 4, F_SNAPSHOT | F_LAST, -DAY / MIN],
];
// Before 09:30: one more order; after: the overnight orders are cancelled, modified, filled.
const DAY_RECORDS: Rec[] = [
  [10, A, B_, 5000.0, 1, 5, F_LAST],
  [40, C, B_, 5000.0, 5, 1, F_LAST],
  [41, M, A_, 5000.25, 2, 3, F_LAST],
  [42, F, B_, 4999.75, 1, 2, 0],
  [42, C, B_, 4999.75, 1, 2, F_LAST],
  [43, C, B_, 5000.0, 1, 5, F_LAST],
];

interface Ev {
  ts: number;
  kind: number;
  side: number;
  price: number;
  qty: number;
}

function drain(file: string, regularHoursOnly = false): { src: DbnMarketSource; events: Ev[]; startNs: number } {
  const s = planReplay(file, { regularHoursOnly }).sessions[0];
  const src = new DbnMarketSource(s.replay, s.sessionStartNs, s.sessionEndNs);
  const ring = RecordRing.allocate(EV_STRIDE, 1024, false);
  const events: Ev[] = [];
  try {
    while (!src.done) {
      const n = src.generate(ring, ring.free());
      for (let k = 0; k < n; k++) {
        const o = ring.peek();
        const d = ring.data;
        events.push({ ts: d[o + EV_TS], kind: d[o + EV_KIND], side: d[o + EV_SIDE], price: d[o + EV_PRICE], qty: d[o + EV_QTY] });
        ring.advance();
      }
      ring.release();
    }
  } finally {
    src.close();
  }
  return { src, events, startNs: s.sessionStartNs };
}

const NY_0900 = 9 * 60 * MIN;
const NY_0930 = NY_0900 + 30 * MIN;
const adds = (evs: Ev[], ts: number) => evs.filter((e) => e.ts === ts && e.kind === MD_ADD).map((e) => [e.side, e.price, e.qty]);

test.before(() => ensureBuilt());
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('§1 the opening snapshot builds the book at the window start, whatever its ts_event', async () => {
  const file = await mboFile('snapshot.mbo.dbn.zst', 60, [...SNAPSHOT, ...DAY_RECORDS]);
  const { src, events, startNs } = drain(file);
  assert.is(startNs, NY_0900);
  assert.equal(src.unknownOrders, { unknownCancels: 0, unknownFills: 0, unknownModifies: 0, duplicateAdds: 0 });
  // ticks of 0.25: 4999.75 = 19999, 5000 = 20000, 5000.25 = 20001, 5000.5 = 20002
  assert.equal(adds(events, NY_0900), [
    [BID, 19999, 3],
    [BID, 20000, 5],
    [ASK, 20001, 4],
    [ASK, 20002, 2],
  ]);
  assert.ok(
    events.every((e) => e.ts >= NY_0900),
    'no event before the window',
  );
  const q = src.qualityCounts();
  assert.equal([q[0], q[1], q[2], q[3]], [DAY_RECORDS.length, SNAPSHOT.length, 0, 4], 'applied, warm-up, skipped, snapshot records');
  assert.is(src.timeClamped, 0, 'snapshot times are not clamped: they are the window start');
});

test('§2 a window that starts inside the file warms the book with every earlier record', async () => {
  const file = join(dir, 'snapshot.mbo.dbn.zst');
  const { src, events, startNs } = drain(file, true);
  assert.is(startNs, NY_0930);
  assert.equal(src.unknownOrders, { unknownCancels: 0, unknownFills: 0, unknownModifies: 0, duplicateAdds: 0 });
  assert.ok(
    events.every((e) => e.ts >= NY_0930),
    'nothing emitted before the window',
  );
  // the book at 09:30: the snapshot plus the 09:10 order (bid 5000 x 6), in one add per level
  assert.equal(adds(events, NY_0930), [
    [BID, 19999, 3],
    [BID, 20000, 6],
    [ASK, 20001, 4],
    [ASK, 20002, 2],
  ]);
  const q = src.qualityCounts();
  assert.equal([q[0], q[1]], [DAY_RECORDS.length - 1, SNAPSHOT.length + 1]);
});

test('§2 with l3_fifo (one event per order) the warmed orders are published in queue order, and later changes find them', async () => {
  const file = join(dir, 'snapshot.mbo.dbn.zst');
  const s = planReplay(file, { regularHoursOnly: true, perOrder: true }).sessions[0];
  const src = new DbnMarketSource(s.replay, s.sessionStartNs, s.sessionEndNs);
  const ring = RecordRing.allocate(EV_STRIDE, 1024, false);
  const got: number[][] = [];
  while (!src.done) {
    const n = src.generate(ring, ring.free());
    for (let k = 0; k < n; k++) {
      const o = ring.peek();
      const seq = got.length;
      got.push([seq, ring.data[o + EV_KIND], ring.data[o + EV_SIDE], ring.data[o + EV_PRICE], ring.data[o + EV_QTY], src.tape!.prio[seq & src.tape!.mask]]);
      ring.advance();
    }
    ring.release();
  }
  src.close();
  // seq, kind, side, price, qty, priority (an add's is its own sequence: -1 relative)
  const ADD = MD_ADD,
    CXL = MD_CANCEL,
    TRD = MD_TRADE;
  assert.equal(got, [
    [0, ADD, BID, 19999, 3, -1], // order 2
    [1, ADD, BID, 20000, 5, -1], // order 1 ahead of order 5 (09:10)
    [2, ADD, BID, 20000, 1, -1],
    [3, ADD, ASK, 20001, 4, -1], // order 3
    [4, ADD, ASK, 20002, 2, -1], // order 4
    [5, CXL, BID, 20000, 5, 1], // 09:40 order 1 cancelled: its add at seq 1
    [6, CXL, ASK, 20001, 2, 3], // 09:41 order 3 modified from 4 to 2: keeps its priority
    [7, TRD, BID, 19999, 1, 0], // 09:42 order 2 filled (its following cancel is the fill's removal)
    [8, CXL, BID, 20000, 1, 2], // 09:43 order 5
  ]);
});

test('§2 MBP-10: the book at the window start is the last levels received before it', async () => {
  const file = join(dir, 'levels.mbp-10.dbn.zst');
  const w = await DbnWriter.toFile(file, meta('mbp-10', 60));
  const f = newMbpFields(10);
  f.instrumentId = 42;
  const at = (m: number, bid: number, ask: number) => {
    f.bidPx.fill(NaN);
    f.askPx.fill(NaN);
    f.bidSz.fill(0);
    f.askSz.fill(0);
    f.bidPx[0] = PX(bid);
    f.bidSz[0] = 7;
    f.askPx[0] = PX(ask);
    f.askSz[0] = 9;
    Object.assign(f, { tsEventRel: m * MIN, tsRecvRel: m * MIN, action: A, side: B_, price: PX(bid), size: 7, flags: F_LAST });
    w.writeMbp(f);
  };
  at(0, 4999.0, 4999.5);
  at(20, 5000.0, 5000.25); // the book at 09:30
  at(45, 5000.25, 5000.5);
  w.close();
  const { src, events } = drain(file, true);
  assert.equal(adds(events, NY_0930), [
    [BID, 20000, 7],
    [ASK, 20001, 9],
  ]);
  assert.equal([src.qualityCounts()[0], src.qualityCounts()[1]], [1, 2]);
});

// A run through the engine: the pool's decoder thread hands the counters over; the result, the
// report, the CLI and the log carry them.
const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n`, 'test.toml');

test('§5 a replayed run carries its data-quality counters; the synthetic market none', async () => {
  // No snapshot: the file starts mid-session, as the official fixtures do.
  const file = await mboFile('nosnap.mbo.dbn.zst', 60, DAY_RECORDS);
  const v = validateBacktestRequest({}, config, file);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const r = (await runBacktest(v.request, config)).result;
  assert.equal(r.data_quality, {
    records_applied: DAY_RECORDS.length,
    records_warmup: 0,
    records_skipped: 0,
    snapshot_records: 0,
    unknown_cancels: 2,
    unknown_modifies: 1,
    unknown_fills: 1,
    time_clamped: 0,
    crossed_ns: 0,
    phase_changes: 0,
  });
  assert.equal(r.session_results[0].data_quality, r.data_quality);
  const s = validateBacktestRequest(
    { symbol: 'ES', startDate: '2024-03-05' },
    parseConfig(`data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:31"\n`, 's.toml'),
  );
  if (!s.ok) throw new Error(JSON.stringify(s.errors));
  const syn = (await runBacktest(s.request, config)).result;
  assert.is(syn.data_quality, null);
  assert.is(syn.session_results[0].data_quality, null);
});

test('§5 the CLI: summary row, report table of the non-zero counters, a warn line naming them', () => {
  const file = join(dir, 'nosnap.mbo.dbn.zst');
  const out = join(dir, 'report.html');
  const r = runCli(['--backtest', '--config', writeConfig(''), '--data', file, '--report', out]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /data quality\s+records applied 6, unknown cancels 2, unknown modifies 1, unknown fills 1/);
  const warn = r.stderr.split('\n').filter((l) => l.includes('"level":"warn"'));
  assert.is(warn.length, 1, r.stderr);
  assert.match(warn[0], /recorded data of 2024-03-05: records_applied=6 unknown_cancels=2 unknown_modifies=1 unknown_fills=1/);
  assert.is(JSON.parse(warn[0]).data_quality.unknown_cancels, 2);
  const html = readFileSync(out, 'utf8');
  assert.match(html, /<h2>Recorded data quality<\/h2>/);
  assert.match(html, /<tr data-quality="unknown_cancels"><td>unknown_cancels<\/td><td class="n" data-value="2">/);
  assert.not.match(html, /data-quality="time_clamped"/, 'zero counters are not listed');
});

test('§5 a clean replay logs no warning', async () => {
  const file = join(dir, 'snapshot.mbo.dbn.zst');
  const r = runCli(['--backtest', '--config', writeConfig(''), '--data', file]);
  assert.is(r.code, 0, r.stderr);
  assert.not.match(r.stderr, /"level":"warn"/);
  assert.match(r.stdout, /data quality\s+records applied 6, records warmup 5, snapshot records 4\n/);
});

test.run();
