// The simulated exchange's modify message (OM_MODIFY), CME's priority rules: fewer contracts at the
// same price keep the order's place, a new price or more contracts send it to the back of its
// (new) level; the cases every queue model shares (power, risk_averse, l3_fifo), fills after a
// modify at the place the rules give, in-flight mitigation (what filled counts against the new
// total), rejects that leave the order as it was, a crossing modify (post-only: refused; else it
// takes, after self-match prevention), and no allocation per modify.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runProbe, type Allocation } from '../../helpers/allocation.ts';
import {
  ASK,
  BID,
  CANCEL_MODIFY_FILLED,
  CANCEL_SELF_MATCH,
  ER_CANCELED,
  ER_EXCH_TS,
  ER_FILL,
  ER_ID,
  ER_LEAVES,
  ER_LIQ,
  ER_MODIFIED,
  ER_MODIFY_REJECT,
  ER_PRICE,
  ER_QTY,
  ER_REASON,
  ER_SENT,
  ER_STRIDE,
  ER_TS,
  ER_TYPE,
  EV_KIND,
  EV_PRICE,
  EV_QTY,
  EV_SIDE,
  EV_STRIDE,
  EV_TS,
  FLAG_POST_ONLY,
  LIQ_TAKER,
  MD_ADD,
  MD_TRADE,
  OM_FLAGS,
  OM_ID,
  OM_MODIFY,
  OM_NEW,
  OM_PRICE,
  OM_QTY,
  OM_SENT,
  OM_SIDE,
  OM_STRIDE,
  OM_TS,
  OM_TYPE,
  REJECT_BAD_ORDER,
  REJECT_POST_ONLY_CROSS,
  REJECT_UNKNOWN_ORDER,
} from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { Rng } from '../../../src/core/rng.ts';
import { FeeSchedule } from '../../../src/exchange/fees.ts';
import { L3FifoQueueModel, L3Tape } from '../../../src/exchange/l3-fifo-queue.ts';
import { SeededLatency } from '../../../src/exchange/latency.ts';
import { PowerQueueModel, RiskAverseQueueModel, type QueueModel } from '../../../src/exchange/queue-model.ts';
import { SimExchange } from '../../../src/exchange/sim-exchange.ts';

const RESP = 200_000;

interface Report {
  ts: number;
  exch: number;
  type: number;
  id: number;
  price: number;
  qty: number;
  leaves: number;
  liq: number;
  reason: number;
  sent: number;
}

/**
 * A SimExchange under one queue model. For l3_fifo the harness plays the MBO source's part: each
 * market event carries the queue priority of the market order it touches (an add: its own
 * sequence, so `market` returns it), written to the tape before the exchange reads the event.
 */
class Harness {
  readonly ring = RecordRing.allocate(ER_STRIDE, 1024, false);
  readonly tape = new L3Tape(1024);
  readonly ex: SimExchange;
  private readonly ev = new Float64Array(EV_STRIDE);
  private readonly om = new Float64Array(OM_STRIDE);
  private seq = -1;

  constructor(model: string) {
    const queue: QueueModel =
      model === 'power' ? new PowerQueueModel(2) : model === 'risk_averse' ? new RiskAverseQueueModel() : new L3FifoQueueModel(this.tape);
    this.ex = new SimExchange({
      fees: new FeeSchedule({ makerFee: 0.25, takerFee: 0.85, exchangeFee: 1.18 }),
      latency: new SeededLatency({ orderLatencyNs: 0, marketDataLatencyNs: 0, responseLatencyNs: RESP, jitterNs: 0 }, new Rng(1)),
      queue,
      reports: this.ring,
    });
  }

  /** One market event; `prio`: the priority of the market order it touches (default: this event's, for an add). */
  market(ts: number, kind: number, side: number, price: number, qty: number, prio = -1): number {
    this.seq++;
    this.tape.set(this.seq, prio < 0 ? this.seq : prio);
    this.tape.cur = this.seq;
    const e = this.ev;
    e[EV_TS] = ts;
    e[EV_KIND] = kind;
    e[EV_SIDE] = side;
    e[EV_PRICE] = price;
    e[EV_QTY] = qty;
    this.ex.onMarketEvent(e, 0);
    return this.seq;
  }

  msg(ts: number, type: number, id: number, side: number, price: number, qty: number, flags = 0): void {
    const m = this.om;
    m[OM_TS] = ts;
    m[OM_SENT] = ts - 1000;
    m[OM_TYPE] = type;
    m[OM_ID] = id;
    m[OM_SIDE] = side;
    m[OM_PRICE] = price;
    m[OM_QTY] = qty;
    m[OM_FLAGS] = flags;
    this.ex.onOrderMessage(m, 0);
  }

  modify(ts: number, id: number, side: number, price: number, total: number): void {
    this.msg(ts, OM_MODIFY, id, side, price, total);
  }

  drain(): Report[] {
    const out: Report[] = [];
    const d = this.ring.data;
    while (this.ring.available() > 0) {
      const o = this.ring.peek();
      out.push({
        ts: d[o + ER_TS],
        exch: d[o + ER_EXCH_TS],
        type: d[o + ER_TYPE],
        id: d[o + ER_ID],
        price: d[o + ER_PRICE],
        qty: d[o + ER_QTY],
        leaves: d[o + ER_LEAVES],
        liq: d[o + ER_LIQ],
        reason: d[o + ER_REASON],
        sent: d[o + ER_SENT],
      });
      this.ring.advance();
    }
    this.ring.release();
    return out;
  }

  /** Bids 19999:50 (one market order, returned), 19998:40; asks 20000:30, 20001:20. */
  seedBook(): number {
    const a = this.market(1_000, MD_ADD, BID, 19999, 50);
    this.market(1_000, MD_ADD, BID, 19998, 40);
    this.market(1_000, MD_ADD, ASK, 20000, 30);
    this.market(1_000, MD_ADD, ASK, 20001, 20);
    return a;
  }
}

const MODELS = ['power', 'risk_averse', 'l3_fifo'];

for (const model of MODELS) {
  test(`${model}: fewer contracts at the same price keep the place; the fills after it come where it stood`, () => {
    const h = new Harness(model);
    const a = h.seedBook();
    h.msg(2_000, OM_NEW, 1, BID, 19999, 5, FLAG_POST_ONLY);
    assert.is(h.ex.orderFront(1), 50);
    h.market(3_000, MD_TRADE, BID, 19999, 30, a); // 30 of the order ahead trade
    assert.is(h.ex.orderFront(1), 20);
    const b = h.market(4_000, MD_ADD, BID, 19999, 10); // joins behind us
    h.drain();
    h.modify(5_000, 1, BID, 19999, 2);
    const r = h.drain();
    assert.equal(
      r.map((x) => [x.type, x.id, x.price, x.leaves, x.sent]),
      [[ER_MODIFIED, 1, 19999, 2, 4_000]],
    );
    assert.is(r[0].exch, 5_000);
    assert.is(r[0].ts, 5_000 + RESP, 'the report goes back through the response latency');
    assert.is(h.ex.orderFront(1), 20, 'the queue ahead is what it was');
    assert.is(h.ex.orderLeaves(1), 2);
    // The rest of the order ahead trades, then the order behind: FIFO reaches us first.
    h.market(6_000, MD_TRADE, BID, 19999, 20, a);
    assert.equal(h.drain(), [], 'not reached while the order ahead trades');
    h.market(7_000, MD_TRADE, BID, 19999, 4, b);
    const f = h.drain();
    assert.equal(
      f.map((x) => [x.type, x.qty, x.leaves]),
      [[ER_FILL, 2, 0]],
      'the 2 left fill, no more',
    );
    assert.is(h.ex.liveOrders(), 0);
  });

  test(`${model}: a new price loses the place, and going back does not bring it back`, () => {
    const h = new Harness(model);
    h.seedBook();
    h.msg(2_000, OM_NEW, 1, BID, 19999, 5, FLAG_POST_ONLY);
    h.market(3_000, MD_TRADE, BID, 19999, 30, 0);
    assert.is(h.ex.orderFront(1), 20);
    h.drain();
    h.modify(4_000, 1, BID, 19998, 5);
    assert.equal(
      h.drain().map((x) => [x.type, x.price, x.leaves, x.sent]),
      [[ER_MODIFIED, 19998, 5, 3_000]],
    );
    assert.is(h.ex.orderFront(1), 40, 'the back of the new level');
    h.modify(5_000, 1, BID, 19999, 5);
    assert.is(h.ex.orderFront(1), 20, 'the back of the old level: all of its 20 ahead');
    assert.is(h.ex.liveOrders(), 1);
  });

  test(`${model}: more contracts at the same price lose the place; fills then come after everything that was ahead`, () => {
    const h = new Harness(model);
    const a = h.seedBook();
    h.msg(2_000, OM_NEW, 1, BID, 19999, 5, FLAG_POST_ONLY);
    h.market(3_000, MD_TRADE, BID, 19999, 30, a);
    const b = h.market(4_000, MD_ADD, BID, 19999, 10); // behind us, until the modify
    assert.is(h.ex.orderFront(1), 20);
    h.drain();
    h.modify(5_000, 1, BID, 19999, 8);
    assert.equal(
      h.drain().map((x) => [x.type, x.leaves]),
      [[ER_MODIFIED, 8]],
    );
    assert.is(h.ex.orderFront(1), 30, 'behind the 20 of the first order and the 10 that joined before the modify');
    const c = h.market(6_000, MD_ADD, BID, 19999, 7); // joins behind us now
    h.market(7_000, MD_TRADE, BID, 19999, 20, a);
    h.market(8_000, MD_TRADE, BID, 19999, 10, b);
    assert.equal(h.drain(), [], 'both orders ahead trade before us');
    assert.is(h.ex.orderFront(1), 0);
    h.market(9_000, MD_TRADE, BID, 19999, 3, c);
    assert.equal(
      h.drain().map((x) => [x.type, x.qty, x.leaves]),
      [[ER_FILL, 3, 5]],
    );
  });

  test(`${model}: a modify down to what has filled cancels the order (in-flight mitigation); down to more keeps the place`, () => {
    const h = new Harness(model);
    h.seedBook();
    h.msg(2_000, OM_NEW, 1, BID, 19997, 6, FLAG_POST_ONLY); // an empty level: nothing ahead
    const behind = h.market(3_000, MD_ADD, BID, 19997, 4);
    h.drain();
    h.market(4_000, MD_TRADE, BID, 19997, 2, behind); // the order behind us trades: FIFO reaches us first
    assert.equal(
      h.drain().map((x) => [x.type, x.qty, x.leaves]),
      [[ER_FILL, 2, 4]],
    );
    h.modify(5_000, 1, BID, 19997, 5); // total 5, 2 filled: 3 work on, at the front
    assert.equal(
      h.drain().map((x) => [x.type, x.leaves]),
      [[ER_MODIFIED, 3]],
    );
    assert.is(h.ex.orderFront(1), 0);
    h.modify(6_000, 1, BID, 19997, 2); // total 2: all of it has filled
    assert.equal(
      h.drain().map((x) => [x.type, x.id, x.leaves, x.reason, x.sent]),
      [[ER_CANCELED, 1, 3, CANCEL_MODIFY_FILLED, 5_000]],
    );
    assert.is(h.ex.liveOrders(), 0);
  });
}

test('rejects: an unknown or ended order, the other side, a bad size or price; a rejected modify leaves the order as it was', () => {
  const h = new Harness('power');
  h.seedBook();
  h.msg(2_000, OM_NEW, 1, BID, 19999, 5, FLAG_POST_ONLY);
  h.drain();
  h.modify(3_000, 99, BID, 19999, 5);
  h.modify(3_000, 1, ASK, 19999, 5);
  h.modify(3_000, 1, BID, 19999, 0);
  h.modify(3_000, 1, BID, 19999, 2.5);
  h.modify(3_000, 1, BID, 19998.5, 5);
  h.modify(3_000, 1, BID, 20000, 5); // post-only, would cross the ask
  assert.equal(
    h.drain().map((x) => [x.type, x.reason, x.price, x.leaves]),
    [
      [ER_MODIFY_REJECT, REJECT_UNKNOWN_ORDER, 19999, 0],
      [ER_MODIFY_REJECT, REJECT_BAD_ORDER, 19999, 5],
      [ER_MODIFY_REJECT, REJECT_BAD_ORDER, 19999, 5],
      [ER_MODIFY_REJECT, REJECT_BAD_ORDER, 19999, 5],
      [ER_MODIFY_REJECT, REJECT_BAD_ORDER, 19999, 5],
      [ER_MODIFY_REJECT, REJECT_POST_ONLY_CROSS, 19999, 5],
    ],
  );
  assert.is(h.ex.orderFront(1), 50, 'still at its place');
  assert.is(h.ex.orderLeaves(1), 5);
  h.msg(4_000, OM_NEW, 2, BID, 19998, 1, FLAG_POST_ONLY);
  h.market(5_000, MD_TRADE, BID, 19997, 1); // through both: filled, ended
  h.drain();
  h.modify(6_000, 2, BID, 19998, 3);
  assert.equal(
    h.drain().map((x) => [x.type, x.reason]),
    [[ER_MODIFY_REJECT, REJECT_UNKNOWN_ORDER]],
  );
});

test('a limit order (not post-only) modified through the touch takes as a NEW would, after self-match prevention, and rests the rest', () => {
  const h = new Harness('power');
  h.seedBook();
  h.msg(2_000, OM_NEW, 7, ASK, 20000, 2, FLAG_POST_ONLY); // ours, at the best ask
  h.msg(2_000, OM_NEW, 1, BID, 19998, 4); // a plain limit order
  h.drain();
  h.modify(3_000, 1, BID, 20000, 40);
  const r = h.drain();
  assert.equal(
    r.map((x) => [x.type, x.id, x.price, x.qty, x.leaves, x.reason]),
    [
      [ER_MODIFIED, 1, 20000, 0, 40, 0],
      [ER_CANCELED, 7, 20000, 0, 2, CANCEL_SELF_MATCH],
      [ER_FILL, 1, 20000, 30, 10, 0],
    ],
  );
  assert.is(r[2].liq, LIQ_TAKER);
  assert.is(h.ex.orderLeaves(1), 10, 'the rest works at 20000');
  assert.is(h.ex.orderFront(1), 0, 'an empty bid level: nothing ahead');
  assert.is(h.ex.selfMatchPrevented, 1);
});

test('no allocation: 1M modifies (down, up, new price) through the exchange, in a process of its own', async () => {
  // In a process of its own (test/helpers/modify-gc-probe.ts says why); a second one if the first
  // measured while V8 was still optimising on a busy machine (code that allocates per modify does
  // so in every process).
  let m: (Allocation & { live: number; overflows: number }) | null = null;
  for (let k = 0; k < 2 && (m === null || m.gcs > 0 || m.heapGrowth >= 1 << 20); k++) m = await runProbe('test/helpers/modify-gc-probe.ts');
  assert.is(m!.live, 1);
  assert.is(m!.overflows, 0);
  assert.ok(m!.heapGrowth < 1 << 20, `heap grew by ${m!.heapGrowth} bytes over 1M modifies`);
  assert.is(m!.gcs, 0, `${m!.gcs} garbage collections during 1M modifies`);
});

test.run();
