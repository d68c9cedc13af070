// Trade dates of real files: Databento's daily files are cut at 00:00 UTC, so each ends with the
// evening (from 17:00 New York, the 16:00 Chicago close) that opens the next CME trade date. A
// session is a trade date's data wherever the files were cut: the evening comes from the file
// before, which also warms the book; the later file's opening snapshot is not replayed again.
// The pre-open of that evening (a crossed book) is counted in the session that owns it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { ASK, BID, EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, EV_TS, MD_ADD } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { FLAGS, type DbnMetadata } from '../../../src/data/dbn/index.ts';
import { DbnWriter, newMboFields } from '../../../src/data/dbn/writer.ts';
import { planReplay } from '../../../src/market/replay/dataset.ts';
import { DbnMarketSource } from '../../../src/market/replay/dbn-source.ts';
import { Q } from '../../../src/market/replay/quality.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { parseConfig } from '../../../src/config/load.ts';

const root = mkdtempSync(join(tmpdir(), 'dbn-trade-dates-'));
const dir = join(root, 'es');
mkdirSync(dir);
const H = 3600e9;
const MIN = 60e9;
const DAY = 24 * H;
const UTC = (date: string) => BigInt(Date.parse(`${date}T00:00:00Z`)) * 1_000_000n;
const A = 0x41,
  C = 0x43,
  R = 0x52,
  N = 0x4e,
  SB = 0x42,
  SA = 0x41;
const { F_LAST, F_SNAPSHOT } = FLAGS;

/** [hours after the file's 00:00 UTC, action, side, price $, size, order id, flags] */
type Rec = [number, number, number, number, number, number, number];

/** A Databento-style daily file of `date` (00:00-24:00 UTC): clear + snapshot of `book`, then `recs`. */
async function dailyFile(date: string, book: [number, number, number, number][], recs: Rec[]): Promise<string> {
  const file = join(dir, `glbx-mdp3-${date.replaceAll('-', '')}.mbo.dbn.zst`);
  const start = UTC(date);
  const m: DbnMetadata = {
    version: 3,
    dataset: 'GLBX.MDP3',
    schema: 'mbo',
    start,
    end: start + BigInt(DAY),
    limit: 0n,
    stype_in: 'raw_symbol',
    stype_out: 'instrument_id',
    ts_out: false,
    symbol_cstr_len: 71,
    symbols: ['ESH4'],
    partial: [],
    not_found: [],
    mappings: [{ raw_symbol: 'ESH4', intervals: [{ start_date: date, end_date: date, symbol: '42' }] }],
  };
  const w = await DbnWriter.toFile(file, m);
  const f = newMboFields();
  f.instrumentId = 42;
  const put = (recvH: number, eventH: number, action: number, side: number, price: number, size: number, id: number, flags: number) => {
    Object.assign(f, {
      tsRecvRel: recvH * H,
      tsEventRel: eventH * H,
      action,
      side,
      price: Number.isNaN(price) ? NaN : Math.round(price * 1e9),
      size,
      orderId: id,
      flags,
    });
    w.writeMbo(f);
  };
  put(0, 0, R, N, NaN, 0, 0, 0);
  book.forEach(([side, price, size, id], i) => put(0, -72, A, side, price, size, id, F_SNAPSHOT | (i === book.length - 1 ? F_LAST : 0)));
  for (const [h, action, side, price, size, id, flags] of recs) put(h, h, action, side, price, size, id, flags);
  w.close();
  return file;
}

let f04 = '';
let f05 = '';
const config = parseConfig(`data_dir = ${JSON.stringify(root)}\n`, 'test.toml');

test.before(async () => {
  ensureBuilt();
  // Monday 2024-03-04 (New York = UTC-5): the day, then at 23:00 UTC (18:00 New York) the evening of trade date 03-05.
  f04 = await dailyFile(
    '2024-03-04',
    [
      [SB, 5000, 5, 1],
      [SA, 5000.25, 4, 2],
    ],
    [
      [15, A, SB, 4999.75, 2, 3, F_LAST],
      [23, A, SA, 5000.5, 3, 4, F_LAST],
    ],
  );
  // Tuesday: its snapshot is the book above; 22:10-23:00 UTC a crossed pre-open of trade date 03-06.
  f05 = await dailyFile(
    '2024-03-05',
    [
      [SB, 5000, 5, 1],
      [SB, 4999.75, 2, 3],
      [SA, 5000.25, 4, 2],
      [SA, 5000.5, 3, 4],
    ],
    [
      [1, C, SA, 5000.5, 3, 4, F_LAST],
      [15, C, SB, 4999.75, 2, 3, F_LAST],
      [22 + 10 / 60, A, SB, 5000.5, 1, 5, F_LAST], // a bid through the ask: pre-open
      [23, C, SB, 5000.5, 1, 5, F_LAST], // the open uncrosses
      [23.5, A, SA, 5000.75, 1, 6, F_LAST],
    ],
  );
});
test.after(() => rmSync(root, { recursive: true, force: true }));

test('sessions are trade dates, rolling at 17:00 New York, over the files that hold them', () => {
  const plan = planReplay(dir);
  assert.equal(
    plan.sessions.map((s) => [s.date, s.sessionStartNs / H, s.sessionEndNs / H, s.replay.files]),
    [
      ['2024-03-04', -5, 17, [f04]], // from the file's start (19:00 Sunday New York) to the close
      ['2024-03-05', -7, 17, [f04, f05]], // from Monday's close: Monday's evening is in the file before
      ['2024-03-06', -7, -5, [f05]], // Tuesday's evening, up to the end of the data
    ],
  );
  // --start names the trade date and finds its evening in the file before.
  assert.equal(
    planReplay(dir, { startDate: '2024-03-05', endDate: '2024-03-05' }).sessions.map((s) => s.replay.files),
    [[f04, f05]],
  );
});

test("a session over two files: the evening's records are in it, the book carries over, nothing unknown", () => {
  const s = planReplay(dir, { startDate: '2024-03-05', endDate: '2024-03-05' }).sessions[0];
  const src = new DbnMarketSource(s.replay, s.sessionStartNs, s.sessionEndNs);
  const ring = RecordRing.allocate(EV_STRIDE, 1024, false);
  const evs: number[][] = [];
  while (!src.done) {
    const n = src.generate(ring, ring.free());
    for (let k = 0; k < n; k++) {
      const o = ring.peek();
      const d = ring.data;
      evs.push([d[o + EV_TS] / H, d[o + EV_KIND], d[o + EV_SIDE], d[o + EV_PRICE], d[o + EV_QTY]]);
      ring.advance();
    }
    ring.release();
  }
  src.close();
  assert.equal(src.unknownOrders, { unknownCancels: 0, unknownFills: 0, unknownModifies: 0, duplicateAdds: 0 });
  assert.equal(evs, [
    [-7, MD_ADD, BID, 19999, 2], // the book at Monday's close (warmed by Monday's file)
    [-7, MD_ADD, BID, 20000, 5],
    [-7, MD_ADD, ASK, 20001, 4],
    [-6, MD_ADD, ASK, 20002, 3], // Monday 18:00 New York: the evening of trade date 03-05
    [-4, 2, ASK, 20002, 3], // Tuesday 01:00 UTC
    [10, 2, BID, 19999, 2], // Tuesday 15:00 UTC
  ]);
  const q = src.qualityCounts();
  // applied 3; warm-up: Monday's clear, snapshot and 15:00 add; skipped: Tuesday's opening (clear + 4) and its evening (3)
  assert.equal([q[Q.records_applied], q[Q.records_warmup], q[Q.records_skipped], q[Q.snapshot_records]], [3, 4, 8, 6]);
});

test('the evening pre-open is counted in the trade date it opens: crossed time and phase changes', async () => {
  const v = validateBacktestRequest({ startDate: '2024-03-06', endDate: '2024-03-06' }, config, dir);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  assert.equal(v.request.dates, ['2024-03-06']);
  const r = (await runBacktest(v.request, config)).result;
  const q = r.data_quality!;
  assert.is(q.crossed_ns, 50 * MIN, 'crossed from 22:10 to 23:00 UTC');
  assert.is(q.phase_changes, 2);
  assert.is(q.unknown_cancels, 0);
  const m = validateBacktestRequest({ endDate: '2024-03-04' }, config, dir);
  if (!m.ok) throw new Error(JSON.stringify(m.errors));
  const monday = (await runBacktest(m.request, config)).result;
  assert.equal([monday.data_quality!.crossed_ns, monday.data_quality!.phase_changes], [0, 0]);
});

test.run();
