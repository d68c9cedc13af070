// A session's market ring holds the events in flight: seen by the exchange, not yet by the
// engine. A long market-data latency on a busy market puts more of them in flight than the ring
// holds; the ring then grows, so that the exchange still reads its next event before the engine
// goes on. The result must not depend on the ring's size. (Before, a full ring let the driver hand
// the exchange orders ahead of earlier market events it had not read yet.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runSession } from '../../../src/backtest/session.ts';
import type { SessionSpec } from '../../../src/backtest/session-spec.ts';
import { EV_RECV, EV_STRIDE, EV_TS } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { L3Tape } from '../../../src/exchange/l3-fifo-queue.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

function longLatencySession(): SessionSpec {
  const c = shippedConfigNoModel();
  c.simulation.session_start = '09:30';
  c.simulation.session_end = '09:40';
  c.latency.market_data_latency_ns = 2_000_000_000; // 2 s: hundreds of events in flight
  const v = validateBacktestRequest({ symbol: 'ES' }, c);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return { ...sessionSpecs(v.request, c, false)[0], collectFills: true };
}

/** A result as text, every double exact (typed arrays as arrays, NaN kept: no quote then). */
const exact = (r: object) => JSON.stringify(r, (_k, v) => (v instanceof Float64Array ? Array.from(v, (x) => (x === x ? x : 'NaN')) : v));

/** Most events the exchange had read and the engine not yet, when the engine read one. */
function maxInFlight(ts: number[], recv: number[]): number {
  let most = 0;
  let seen = 0; // events with ts <= recv[j]: the exchange reads them first (ties go to it)
  for (let j = 0; j < recv.length; j++) {
    while (seen < ts.length && ts[seen] <= recv[j]) seen++;
    if (seen - j > most) most = seen - j;
  }
  return most;
}

test('a session whose events in flight outgrow its market ring gives the result of a ring that holds them all', () => {
  const spec = longLatencySession();
  const ts: number[] = [];
  const recv: number[] = [];
  const big = runSession(spec, {
    marketRing: { capacity: 1 << 20, maxCapacity: 1 << 20 },
    taps: {
      marketData: (d, off) => {
        ts.push(d[off + EV_TS]);
        recv.push(d[off + EV_RECV]);
      },
    },
  });
  const inFlight = maxInFlight(ts, recv);
  assert.ok(inFlight > 4 * 256, `the session must put more than 4 rings of 256 in flight, got ${inFlight}`);
  assert.ok(big.fills > 0, 'the session trades');
  const small = runSession(spec, { marketRing: { capacity: 256, maxCapacity: 1 << 20 } });
  assert.is(exact(small), exact(big));
});

test('beyond its largest size the ring fails the session with an error naming the settings to lower', () => {
  const spec = longLatencySession();
  assert.throws(
    () => runSession(spec, { marketRing: { capacity: 256, maxCapacity: 512 } }),
    (e: Error) =>
      /session ES \d{4}-\d{2}-\d{2}: more than 512 market events in flight at once/.test(e.message) &&
      e.message.includes('latency.market_data_latency_ns = 2000000000') &&
      e.message.includes('lower latency.market_data_latency_ns or simulation.activity'),
  );
});

test('RecordRing.grown keeps the unconsumed records at their sequence numbers, across the wrap', () => {
  const r = RecordRing.allocate(EV_STRIDE, 4, false);
  // sequences 0..5 written, 0..2 consumed: 3, 4, 5 unconsumed, 4 and 5 wrapped to slots 0 and 1
  for (let s = 0; s < 6; s++) {
    if (s >= 4) {
      r.advance();
      r.release();
    }
    r.data[r.claim() + EV_TS] = 100 + s;
    r.publish();
  }
  r.advance();
  r.release();
  assert.is(r.readSeq, 3);
  assert.is(r.free(), 1);
  const g = r.grown();
  assert.is(g.capacity, 8);
  assert.is(g.readSeq, 3);
  assert.is(g.writeSeq, 6);
  assert.is(g.availableSameThread(), 3);
  assert.is(g.free(), 5);
  for (let k = 0; k < 3; k++) assert.is(g.data[g.peekAt(k) + EV_TS], 103 + k);
  // both ends go on in the grown ring
  g.data[g.claim() + EV_TS] = 106;
  g.publish();
  const got: number[] = [];
  while (g.availableSameThread() > 0) {
    got.push(g.data[g.peek() + EV_TS]);
    g.advance();
  }
  g.release();
  assert.equal(got, [103, 104, 105, 106]);
  assert.is(g.free(), 8);
});

test('a ring shared between threads does not grow', () => {
  assert.throws(() => RecordRing.allocate(EV_STRIDE, 4, true).grown(), /shared between threads cannot grow/);
});

test('L3Tape.grow keeps the priorities of the sequences still in the ring', () => {
  const t = new L3Tape(4);
  for (let s = 0; s < 7; s++) t.set(s, 1000 + s); // 3..6 still held (slots 3, 0, 1, 2)
  t.grow(16, 3, 7);
  assert.is(t.mask, 15);
  for (let s = 3; s < 7; s++) {
    t.cur = s;
    assert.ok(t.aheadOf(1000 + s + 1), `sequence ${s} is ahead of a later order`);
    assert.not.ok(t.aheadOf(1000 + s), `sequence ${s} is not ahead of itself`);
  }
  assert.throws(() => t.grow(16, 0, 0), /larger power of two/);
});

test.run();
