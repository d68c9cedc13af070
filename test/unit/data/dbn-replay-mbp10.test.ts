// MBP-10 replay: after every F_LAST record the book the engine builds from our L2 events holds
// exactly the record's levels (top 10 per side), on the official fixtures (v1, v2, v3; plain and
// zstd) and on a book built in memory; trades take size off the resting side.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { ASK, BID, EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, MD_TRADE } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { DenseBook } from '../../../src/book/dense-book.ts';
import { DbnReader, FLAGS, RTYPE } from '../../../src/data/dbn/index.ts';
import { EventQueue } from '../../../src/market/replay/event-queue.ts';
import { MBP_LEVELS, Mbp10Book } from '../../../src/market/replay/mbp10-book.ts';

const F_LAST = FLAGS.F_LAST;

const FIXTURES = join(import.meta.dirname, '../../fixtures', 'dbn');
const ES_TICK_UNITS = 250_000_000; // 0.25 in units of 1e-9

/** The adapter feeding a DenseBook (the engine's book class) one record at a time. */
function harness() {
  const q = new EventQueue();
  const mbp = new Mbp10Book(q);
  const book = new DenseBook(4096);
  const ring = RecordRing.allocate(EV_STRIDE, 1024, false);
  const bp = new Float64Array(MBP_LEVELS), bs = new Float64Array(MBP_LEVELS), ap = new Float64Array(MBP_LEVELS), as = new Float64Array(MBP_LEVELS);
  const kinds: number[] = [];
  const apply = (ts: number, action: number, side: number, price: number, size: number, flags: number) => {
    q.ts = ts;
    mbp.apply(action, side, price, size, flags, bp, bs, ap, as);
    q.drainTo(ring, q.length, null, 0);
    while (ring.availableSameThread() > 0) {
      const o = ring.peek();
      const d = ring.data;
      kinds.push(d[o + EV_KIND]);
      book.apply(d[o + EV_KIND], d[o + EV_SIDE], d[o + EV_PRICE], d[o + EV_QTY]);
      ring.advance();
      ring.release();
    }
  };
  const top = (side: number) => {
    const p = new Float64Array(MBP_LEVELS), s = new Float64Array(MBP_LEVELS);
    const n = book.levels(side, MBP_LEVELS, p, s);
    return Array.from({ length: n }, (_, i) => [p[i], s[i]]);
  };
  const want = (px: Float64Array, sz: Float64Array) => {
    const out: number[][] = [];
    for (let i = 0; i < MBP_LEVELS && px[i] === px[i] && sz[i] > 0; i++) out.push([px[i], sz[i]]);
    return out;
  };
  return { bp, bs, ap, as, apply, top, want, kinds, mbp };
}

/** Replays a file record by record; returns how many F_LAST records were checked. */
function checkEveryRecord(file: string, tickUnits = ES_TICK_UNITS): number {
    const h = harness();
    const r = DbnReader.open(file);
    let checked = 0;
    for (let c = r.next(); c !== null; c = r.next()) {
      if (c.rtype !== RTYPE.MBP_10) continue;
      const tick = (x: number) => (x !== x ? Number.NaN : x / tickUnits);
      for (let i = 0; i < MBP_LEVELS; i++) {
        h.bp[i] = tick(c.bidPx(i));
        h.bs[i] = c.bidSz(i);
        h.ap[i] = tick(c.askPx(i));
        h.as[i] = c.askSz(i);
      }
      h.apply(c.tsEventRel, c.action, c.side, tick(c.price), c.size, c.flags);
      if ((c.flags & F_LAST) === 0) continue;
      assert.equal(h.top(BID), h.want(h.bp, h.bs), `record ${c.index}: bids`);
      assert.equal(h.top(ASK), h.want(h.ap, h.as), `record ${c.index}: asks`);
      checked++;
    }
    r.close();
    return checked;
}

for (const name of ['test_data.mbp-10.dbn', 'test_data.mbp-10.v1.dbn.zst', 'test_data.mbp-10.v2.dbn.zst', 'test_data.mbp-10.v3.dbn.zst']) {
  test(`${name}: after every F_LAST record the book's top 10 are the record's levels`, () => {
    assert.is(checkEveryRecord(join(FIXTURES, name)), 2); // both records of the fixture carry F_LAST
  });
}

test('a synthetic session exported as MBP-10: the book matches every record (trades included)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dbn-replay-mbp10-'));
  try {
    const file = join(dir, 'es.mbp-10.dbn.zst');
    const open = (9 * 60 + 30) * 60e9;
    const r = await exportSynthetic(file, [{ date: '2024-03-05', rawSymbol: 'ESH4', spec: contractForRoot('ES'), seed: 7, sessionStartNs: open, sessionEndNs: open + 120e9, activity: 1 }], {
      schema: 'mbp-10',
      marketDataLatencyNs: 50_000,
    });
    assert.ok(r.events > 10_000, `${r.events} events`);
    assert.is(checkEveryRecord(file), r.records);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('levels that leave the top 10 are cancelled, a trade takes size off the resting side first', () => {
  const h = harness();
  const T = 0x54, C = 0x43, A = 0x41, B = 0x42;
  const set = (bids: number[][], asks: number[][]) => {
    h.bp.fill(Number.NaN);
    h.bs.fill(0);
    h.ap.fill(Number.NaN);
    h.as.fill(0);
    bids.forEach(([p, s], i) => {
      h.bp[i] = p;
      h.bs[i] = s;
    });
    asks.forEach(([p, s], i) => {
      h.ap[i] = p;
      h.as[i] = s;
    });
  };
  set([[100, 5], [99, 7]], [[101, 4], [102, 6]]);
  h.apply(1, A, B, 100, 5, F_LAST);
  assert.equal(h.top(BID), [[100, 5], [99, 7]]);
  // a buy aggressor takes 3 at 101; this record shows the book before the fill's cancel
  h.apply(2, T, B, 101, 3, 0);
  assert.is(h.kinds.at(-1), MD_TRADE);
  assert.equal(h.top(ASK), [[101, 1], [102, 6]]);
  set([[100, 5], [99, 7]], [[101, 1], [102, 6]]);
  h.apply(2, C, A, 101, 3, F_LAST); // the cancel that follows settles it: nothing more to emit
  assert.equal(h.top(ASK), [[101, 1], [102, 6]]);
  set([[99, 7]], [[101, 1], [102, 6]]);
  h.apply(3, C, B, 100, 5, F_LAST);
  assert.equal(h.top(BID), [[99, 7]]);
  assert.is(h.mbp.tradesOffBook, 0);
});

test.run();
