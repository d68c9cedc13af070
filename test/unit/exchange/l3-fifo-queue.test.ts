import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ASK,
  BID,
  EV_STRIDE,
  MD_ADD,
  MD_CANCEL,
  MD_TRADE,
  OM_NEW,
  OM_STRIDE,
  OM_ID,
  OM_PRICE,
  OM_QTY,
  OM_SIDE,
  OM_TS,
  OM_TYPE,
  ER_STRIDE,
  ER_TYPE,
  ER_FILL,
  ER_QTY,
} from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { L3FifoQueueModel, L3Tape } from '../../../src/exchange/l3-fifo-queue.ts';
import { queueModelFromName } from '../../../src/exchange/queue-model-factory.ts';
import { buildExchange } from '../../../src/exchange/venue.ts';
import { EventQueue } from '../../../src/market/replay/event-queue.ts';
import { FLAGS } from '../../../src/data/dbn/index.ts';
import { MboBook } from '../../../src/market/replay/mbo-book.ts';

const F_LAST = FLAGS.F_LAST;

const A = 0x41,
  C = 0x43,
  M = 0x4d,
  F = 0x46,
  B = 0x42;

test('l3_fifo needs an MBO tape: a clear error without one', () => {
  assert.throws(() => queueModelFromName('l3_fifo', 2), /l3_fifo.*order-level market data \(MBO\)/);
  assert.is(queueModelFromName('l3_fifo', 2, new L3Tape(16)).name, 'l3_fifo');
});

test('l3_fifo model: cancels ahead advance us, cancels and adds behind do not, a fill behind reaches us', () => {
  const tape = new L3Tape(16);
  const m = new L3FifoQueueModel(tape);
  const fronts = new Float64Array(4);
  tape.cur = 4; // events 0..4 processed: orders with priority <= 4 are ahead of one joining now
  m.onNewOrder(fronts, 0, 10);
  assert.is(fronts[0], 10);
  tape.cur = 5;
  tape.set(5, 2); // cancel of 3 from an order added at event 2 (ahead)
  m.onDepthChange(fronts, 0, 13, 10);
  assert.is(fronts[0], 7);
  tape.cur = 6;
  tape.set(6, 5); // cancel of an order added at event 5: joined after us
  m.onDepthChange(fronts, 0, 10, 6);
  assert.is(fronts[0], 6); // only clamped to the level's size
  tape.cur = 7;
  tape.set(7, 1); // fill of 4 of an order ahead
  m.onTrade(fronts, 0, 4);
  assert.is(m.filled(fronts, 0), 0);
  assert.is(fronts[0], 2);
  tape.cur = 8;
  tape.set(8, 6); // fill of 3 of an order behind us: FIFO matching reached us first
  m.onTrade(fronts, 0, 3);
  assert.is(m.filled(fronts, 0), 3);
});

// An MBO stream built in memory, replayed through the MBO book and a real SimExchange.
function replay(records: [number, number, number, number, number, number][], order: { at: number; side: 0 | 1; price: number; qty: number }) {
  const q = new EventQueue();
  const book = new MboBook(q, true);
  for (const [ts, act, side, price, size, id] of records) {
    q.ts = ts;
    book.apply(act, side, price, size, 0, id, F_LAST);
  }
  const md = RecordRing.allocate(EV_STRIDE, 64, false);
  const tape = new L3Tape(64);
  q.drainTo(md, 64, tape, 0);
  const er = RecordRing.allocate(ER_STRIDE, 64, false);
  const x = buildExchange(
    {
      latency: { orderLatencyNs: 0, marketDataLatencyNs: 0, responseLatencyNs: 0, jitterNs: 0 },
      fees: { root: 'ES', source: 'fees', makerFee: 0, takerFee: 0, exchangeFee: 0 },
      queueModel: 'l3_fifo',
      queuePower: 2,
    },
    er,
    1,
    tape,
  );
  const om = new Float64Array(OM_STRIDE);
  let fills = 0;
  for (let seq = 0; seq < md.availableSameThread(); seq++) {
    if (seq === order.at) {
      om[OM_TS] = md.data[seq * EV_STRIDE];
      om[OM_TYPE] = OM_NEW;
      om[OM_ID] = 1;
      om[OM_SIDE] = order.side;
      om[OM_PRICE] = order.price;
      om[OM_QTY] = order.qty;
      x.onOrderMessage(om, 0);
    }
    tape.cur = seq;
    x.onMarketEvent(md.data, seq * EV_STRIDE);
  }
  while (er.availableSameThread() > 0) {
    const o = er.peek();
    if (er.data[o + ER_TYPE] === ER_FILL) fills += er.data[o + ER_QTY];
    er.advance();
  }
  return { fills, front: x.orderFront(1), book };
}

test('MBO + l3_fifo through the exchange: joins behind resting orders, a cancel behind does not move it', () => {
  const r = replay(
    [
      [1, A, B, 100, 5, 11],
      [2, A, B, 100, 3, 12],
      [3, A, B, 100, 4, 13], // joins after our order (placed before event 2 -> before this add)
      [4, C, B, 100, 4, 13], // behind us: no move
      [5, C, B, 100, 5, 11], // ahead: 3 left ahead
    ],
    { at: 2, side: BID, price: 100, qty: 2 },
  );
  assert.is(r.front, 3);
  assert.is(r.fills, 0);
});

test('MBO fills: the fill of an order ahead advances us, its follow-up cancel is not counted twice; a fill behind fills us', () => {
  const r = replay(
    [
      [1, A, B, 100, 5, 11],
      [2, A, B, 100, 3, 12],
      [3, F, B, 100, 5, 11],
      [3, C, B, 100, 5, 11], // the fill leaving the book: no second move
      [4, F, B, 100, 2, 12], // order 12 joined after us: we trade first
      [4, C, B, 100, 2, 12],
    ],
    { at: 1, side: BID, price: 100, qty: 2 },
  );
  assert.is(r.fills, 2);
});

test('MBO modifies: up loses priority (moves behind us), down keeps it; unknown cancels and fills are counted and skipped', () => {
  const r = replay(
    [
      [1, A, B, 100, 5, 11],
      [2, A, B, 100, 4, 12],
      [3, M, B, 100, 6, 11], // modify up: 11 goes behind us (ahead: 4 of order 12)
      [4, M, B, 100, 3, 12], // modify down: keeps priority, 3 ahead
      [5, C, B, 100, 7, 99], // never seen
      [6, F, B, 100, 1, 98],
    ],
    { at: 2, side: BID, price: 100, qty: 1 },
  );
  assert.is(r.front, 3);
  assert.equal(r.book.counts, { unknownCancels: 1, unknownFills: 1, unknownModifies: 0, duplicateAdds: 0 });
  assert.is(r.book.levelSize(BID, 100), 9);
});

test("MBO book without perOrder merges one event's changes at a level into one L2 event", () => {
  const q = new EventQueue();
  const book = new MboBook(q, false);
  // one record at time ts (the book takes its time from the queue)
  const at = (ts: number) => {
    q.ts = ts;
    return book;
  };
  at(1).apply(A, B, 100, 5, 0, 1, F_LAST);
  at(1).apply(A, B, 100, 2, 0, 2, F_LAST);
  at(2).apply(C, B, 100, 2, 0, 2, 0);
  at(2).apply(C, B, 100, 1, 0, 1, F_LAST);
  at(3).apply(F, B, 100, 4, 0, 1, 0);
  at(3).apply(C, B, 100, 4, 0, 1, F_LAST);
  assert.is(q.length, 4);
  const md = RecordRing.allocate(EV_STRIDE, 8, false);
  q.drainTo(md, 8, null, 0);
  const ev = [...Array(4)].map((_, i) => Array.from(md.data.subarray(i * EV_STRIDE, i * EV_STRIDE + 5)));
  assert.equal(ev, [
    [1, MD_ADD, BID, 100, 5],
    [1, MD_ADD, BID, 100, 2],
    [2, MD_CANCEL, BID, 100, 3],
    [3, MD_TRADE, BID, 100, 4],
  ]);
  assert.is(ASK, 1);
});

test.run();
