// The synthetic export: the MBO file rebuilds the generator's L2 book level by level after every
// event (every F_LAST), trades fill the oldest orders first, the MBP-10 file's levels are the
// book's top 10 after every event, timestamps convert exactly, and encode -> decode is exact.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DenseBook } from '../../../src/book/dense-book.ts';
import { ASK, BID, EV_STRIDE, MD_ADD } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { DbnReader, DbnWriter, FLAGS, isMbo, isMbp, type MboMsg, type MbpMsg, UNDEF_PRICE } from '../../../src/data/dbn/index.ts';
import { newYorkDateOf, sessionNsToUnixNs, unixNsToSessionNs } from '../../../src/market/dbn-time.ts';
import { type ExportSession, exportMetadata, nanosPerTick, syntheticInstrumentId, writeSessions } from '../../../src/market/dbn-export/synthetic-export.ts';
import { GENERATOR_BOOK_CAPACITY, MarketGenerator } from '../../../src/market/generator.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { NEUTRAL_FLOW } from '../../../src/market/profiles.ts';

const ES = contractForRoot('ES');
const H = 3600e9;
const LATENCY = 50_000;
const EVENTS = 60_000;
// The neutral flow (adds, cancels and trades only) so that every queue keeps the order of its
// adds; the default flow's modifies (M records, with CME's priority rules) are checked in
// test/unit/market/market-flow.test.ts.
const SESSIONS: ExportSession[] = [
  { date: '2024-01-02', rawSymbol: 'ESH24', spec: ES, seed: 7, sessionStartNs: 9.5 * H, sessionEndNs: 16 * H, activity: 1, profile: NEUTRAL_FLOW },
  { date: '2024-01-03', rawSymbol: 'ESH24', spec: ES, seed: 7, sessionStartNs: 9.5 * H, sessionEndNs: 16 * H, activity: 1, profile: NEUTRAL_FLOW },
];

interface L2 {
  ts: number;
  kind: number;
  side: number;
  price: number;
  qty: number;
}

async function exportBytes(schema: 'mbo' | 'mbp-10'): Promise<{ bytes: Uint8Array; events: L2[] }> {
  const writer = await DbnWriter.toBytes(exportMetadata(SESSIONS, schema));
  const events: L2[] = [];
  writeSessions(writer, SESSIONS, { schema, marketDataLatencyNs: LATENCY, maxEventsPerSession: EVENTS, onEvent: (ts, kind, side, price, qty) => events.push({ ts, kind, side, price, qty }) });
  return { bytes: writer.close(), events };
}

const mbo = await exportBytes('mbo');
const mbp = await exportBytes('mbp-10');
const TICK = nanosPerTick(ES);
const ID = syntheticInstrumentId('ESH24');

/** The session date of the i-th L2 event (EVENTS per session). */
const dateOf = (i: number): string => SESSIONS[Math.floor(i / EVENTS)].date;

test('metadata: v3, SYNTH.GLBX, raw_symbol -> instrument_id mapping over both days', () => {
  const r = DbnReader.fromBytes(mbo.bytes);
  const m = r.metadata;
  assert.is(r.compressed, true);
  assert.is(m.version, 3);
  assert.is(m.dataset, 'SYNTH.GLBX');
  assert.is(m.schema, 'mbo');
  assert.is(m.stype_in, 'raw_symbol');
  assert.is(m.stype_out, 'instrument_id');
  assert.equal(m.symbols, ['ESH24']);
  assert.equal(m.mappings, [{ raw_symbol: 'ESH24', intervals: [{ start_date: '2024-01-02', end_date: '2024-01-04', symbol: String(ID) }] }]);
  assert.is(m.start, sessionNsToUnixNs('2024-01-02', 9.5 * H));
  assert.is(m.end, sessionNsToUnixNs('2024-01-03', 16 * H));
});

test('MBO: the L2 book rebuilt from the orders equals the generator\'s at every F_LAST; fills FIFO, cancels LIFO', () => {
  assert.is(mbo.events.length, 2 * EVENTS);
  const levels = new Map<number, number>(); // from MBO records: price * 2 + side -> size
  const ref = new Map<number, number>(); // from the generator's L2 events
  const queues = new Map<number, bigint[]>(); // resting order ids per level, oldest first
  const sizes = new Map<bigint, number>();
  const touched = new Set<number>();
  let e = 0; // L2 events matched so far
  let pendingFills: bigint[] = [];
  let frontQueue: bigint[] = [];
  let inTrade = false;
  let resets = 0;
  for (const r of DbnReader.fromBytes(mbo.bytes).records()) {
    assert.ok(isMbo(r));
    const m = r as MboMsg;
    assert.is(m.hd.instrument_id, ID);
    assert.is(m.ts_recv - m.hd.ts_event, BigInt(LATENCY));
    if (m.action === 'R') {
      resets++;
      levels.clear();
      ref.clear();
      queues.clear();
      assert.is(m.price, UNDEF_PRICE);
      continue;
    }
    const side = m.side === 'B' ? BID : ASK;
    const price = Number(m.price) / TICK;
    const k = price * 2 + side;
    if (m.action === 'A') {
      levels.set(k, (levels.get(k) ?? 0) + m.size);
      queues.set(k, [...(queues.get(k) ?? []), m.order_id]);
      sizes.set(m.order_id, m.size);
    } else if (m.action === 'F') {
      pendingFills.push(m.order_id);
    } else if (m.action === 'C') {
      // A plain cancel (no trade in this event) takes the newest order of the level (LIFO).
      if (!inTrade) assert.is(m.order_id, (queues.get(k) ?? []).at(-1), `event ${e}: cancel not of the newest order`);
      levels.set(k, (levels.get(k) ?? 0) - m.size);
      const left = (sizes.get(m.order_id) ?? 0) - m.size;
      assert.ok(left >= 0, `cancel of ${m.size} from order ${m.order_id} holding ${sizes.get(m.order_id)}`);
      sizes.set(m.order_id, left);
      if (left === 0) queues.set(k, (queues.get(k) ?? []).filter((id) => id !== m.order_id));
    } else {
      assert.is(m.action, 'T');
      assert.is(m.order_id, 0n);
      // The resting side is the aggressor's opposite: its queue before the fills.
      frontQueue = [...(queues.get(price * 2 + (side === BID ? ASK : BID)) ?? [])];
      inTrade = true;
    }
    touched.add(k);
    if (!(m.flags & FLAGS.F_LAST)) continue;
    // End of one L2 event: apply it to the reference and compare every level either side touched.
    const ev = mbo.events[e];
    assert.is(m.hd.ts_event, sessionNsToUnixNs(dateOf(e), ev.ts), `event ${e} ts_event`);
    assert.is(m.sequence, (e % EVENTS) + 1);
    const rk = ev.price * 2 + ev.side;
    ref.set(rk, (ref.get(rk) ?? 0) + (ev.kind === MD_ADD ? ev.qty : -ev.qty));
    touched.add(rk);
    for (const t of touched) assert.is(levels.get(t) ?? 0, ref.get(t) ?? 0, `event ${e}, level ${t}`);
    touched.clear();
    inTrade = false;
    // Fills hit the oldest orders of the level first (FIFO).
    if (pendingFills.length) {
      assert.equal(pendingFills, frontQueue.slice(0, pendingFills.length), `event ${e}: fills not at the front of the queue`);
      pendingFills = [];
    }
    e++;
  }
  assert.is(e, mbo.events.length);
  assert.is(resets, 2);
  // And the final book equals the generator's own DenseBook after the same events.
  const gen = new MarketGenerator(ES, SESSIONS[1].date, SESSIONS[1].seed, { sessionStartNs: 9.5 * H, sessionEndNs: 16 * H, activity: 1, profile: NEUTRAL_FLOW });
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 12, false);
  for (let n = 0; n < EVENTS; ) {
    const got = gen.generate(ring, Math.min(ring.free(), EVENTS - n));
    ring.advance(got);
    ring.release();
    n += got;
  }
  const prices = new Float64Array(GENERATOR_BOOK_CAPACITY);
  const qty = new Float64Array(GENERATOR_BOOK_CAPACITY);
  for (const side of [BID, ASK]) {
    const n = gen.book.levels(side, GENERATOR_BOOK_CAPACITY, prices, qty);
    const mine = [...levels].filter(([k, v]) => k % 2 === side && v > 0).length;
    assert.is(mine, n);
    for (let i = 0; i < n; i++) assert.is(levels.get(prices[i] * 2 + side), qty[i]);
  }
});

test('MBP-10: every record is F_LAST and carries the book\'s top 10 after its event', () => {
  const book = new DenseBook(GENERATOR_BOOK_CAPACITY);
  const px = new Float64Array(10);
  const sz = new Float64Array(10);
  let e = 0;
  for (const r of DbnReader.fromBytes(mbp.bytes).records()) {
    assert.ok(isMbp(r));
    const m = r as MbpMsg;
    assert.is(m.levels.length, 10);
    assert.ok(m.flags & FLAGS.F_LAST);
    if (m.action === 'R') {
      book.clear();
      assert.ok(m.levels.every((l) => l.bid_px === UNDEF_PRICE && l.ask_px === UNDEF_PRICE && l.bid_sz === 0 && l.ask_sz === 0));
      continue;
    }
    const ev = mbp.events[e];
    book.apply(ev.kind, ev.side, ev.price, ev.qty);
    assert.is(m.hd.ts_event, sessionNsToUnixNs(dateOf(e), ev.ts));
    assert.is(m.price, BigInt(ev.price * TICK));
    assert.is(m.size, ev.qty);
    assert.is(m.action, ev.kind === MD_ADD ? 'A' : ev.kind === 2 ? 'C' : 'T');
    for (const side of [BID, ASK]) {
      const n = book.levels(side, 10, px, sz);
      m.levels.forEach((l, i) => {
        const [p, s, c] = side === BID ? [l.bid_px, l.bid_sz, l.bid_ct] : [l.ask_px, l.ask_sz, l.ask_ct];
        assert.is(p, i < n ? BigInt(px[i] * TICK) : UNDEF_PRICE, `event ${e} side ${side} level ${i}`);
        assert.is(s, i < n ? sz[i] : 0);
        assert.ok(i < n ? c >= 1 && c <= s : c === 0);
      });
    }
    e++;
  }
  assert.is(e, mbp.events.length);
});

test('encode -> decode is exact for exported and official records, and byte-exact for the v3 fixture', async () => {
  const fixture = readFileSync(new URL('../../fixtures/dbn/test_data.mbo.v3.dbn', import.meta.url));
  for (const [bytes, compress] of [[mbo.bytes, true], [mbp.bytes, true], [fixture, false]] as const) {
    const reader = DbnReader.fromBytes(bytes);
    const records = [...reader.records()].slice(0, 20_000);
    const writer = await DbnWriter.toBytes(reader.metadata, { compress });
    for (const r of records) writer.write(r);
    const again = DbnReader.fromBytes(writer.close());
    assert.equal(again.metadata, reader.metadata);
    assert.equal([...again.records()], records);
  }
  const reader = DbnReader.fromBytes(fixture);
  const writer = await DbnWriter.toBytes(reader.metadata, { compress: false });
  for (const r of reader.records()) writer.write(r);
  assert.equal(Buffer.from(writer.close()), fixture);
});

test('time: engine ns after New York midnight <-> UNIX ns, winter and summer offsets, exact', () => {
  assert.is(sessionNsToUnixNs('2024-01-02', 9.5 * H), BigInt(Date.parse('2024-01-02T14:30:00Z')) * 1_000_000n);
  assert.is(sessionNsToUnixNs('2024-07-01', 9.5 * H + 123_456_789), BigInt(Date.parse('2024-07-01T13:30:00Z')) * 1_000_000n + 123_456_789n);
  for (const [date, ns] of [['2024-01-02', 34_200_000_000_001], ['2024-07-01', 57_599_999_999_999], ['2024-03-11', 0]] as const) {
    const unix = sessionNsToUnixNs(date, ns);
    assert.is(unixNsToSessionNs(date, unix), ns);
    assert.is(newYorkDateOf(unix), date);
  }
  // 23:30 New York on Jan 2 is already Jan 3 in UTC.
  assert.is(newYorkDateOf(sessionNsToUnixNs('2024-01-02', 23.5 * H)), '2024-01-02');
  assert.throws(() => sessionNsToUnixNs('2024-01-02', 1.5), /not an integer/);
});

test.run();
