// No continuous matching while the market book is crossed or locked (recorded data's pre-open):
// our orders rest, nothing fills them, a NEW takes nothing; when the book uncrosses, an order of
// ours at or through the new opposite touch fills there (the opening auction), the others rest.
// The time crossed or locked and the phase changes are counted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ASK,
  BID,
  ER_ACK,
  ER_CANCELED,
  ER_EXCH_TS,
  ER_FILL,
  ER_ID,
  ER_LIQ,
  ER_PRICE,
  ER_QTY,
  ER_STRIDE,
  ER_TYPE,
  EV_KIND,
  EV_PRICE,
  EV_QTY,
  EV_SIDE,
  EV_STRIDE,
  EV_TS,
  FLAG_IOC,
  LIQ_MAKER,
  MD_ADD,
  MD_CANCEL,
  MD_TRADE,
  OM_FLAGS,
  OM_ID,
  OM_NEW,
  OM_PRICE,
  OM_QTY,
  OM_SENT,
  OM_SIDE,
  OM_STRIDE,
  OM_TS,
  OM_TYPE,
} from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { Rng } from '../../../src/core/rng.ts';
import { FeeSchedule } from '../../../src/exchange/fees.ts';
import { SeededLatency } from '../../../src/exchange/latency.ts';
import { PowerQueueModel } from '../../../src/exchange/queue-model.ts';
import { SimExchange } from '../../../src/exchange/sim-exchange.ts';

interface Report {
  type: number;
  id: number;
  price: number;
  qty: number;
  exch: number;
  liq: number;
}

class Harness {
  readonly ring = RecordRing.allocate(ER_STRIDE, 1024, false);
  readonly ex = new SimExchange({
    fees: new FeeSchedule({ makerFee: 0.25, takerFee: 0.85, exchangeFee: 1.18 }),
    latency: new SeededLatency({ orderLatencyNs: 0, marketDataLatencyNs: 0, responseLatencyNs: 1000, jitterNs: 0 }, new Rng(1)),
    queue: new PowerQueueModel(2),
    reports: this.ring,
  });
  private readonly ev = new Float64Array(EV_STRIDE);
  private readonly om = new Float64Array(OM_STRIDE);

  md(ts: number, kind: number, side: number, price: number, qty: number): void {
    const e = this.ev;
    e[EV_TS] = ts;
    e[EV_KIND] = kind;
    e[EV_SIDE] = side;
    e[EV_PRICE] = price;
    e[EV_QTY] = qty;
    this.ex.onMarketEvent(e, 0);
  }

  order(ts: number, id: number, side: number, price: number, qty: number, flags = 0): void {
    const m = this.om;
    m[OM_TS] = ts;
    m[OM_SENT] = ts;
    m[OM_TYPE] = OM_NEW;
    m[OM_ID] = id;
    m[OM_SIDE] = side;
    m[OM_PRICE] = price;
    m[OM_QTY] = qty;
    m[OM_FLAGS] = flags;
    this.ex.onOrderMessage(m, 0);
  }

  drain(): Report[] {
    const out: Report[] = [];
    const d = this.ring.data;
    while (this.ring.available() > 0) {
      const o = this.ring.peek();
      out.push({ type: d[o + ER_TYPE], id: d[o + ER_ID], price: d[o + ER_PRICE], qty: d[o + ER_QTY], exch: d[o + ER_EXCH_TS], liq: d[o + ER_LIQ] });
      this.ring.advance();
    }
    this.ring.release();
    return out;
  }
}

const fills = (r: Report[]) => r.filter((x) => x.type === ER_FILL);

/** Bid 100 x 5, ask 105 x 5 (a wide continuous market), our buy of 2 at 102 resting. */
function wideBookWithOurBuy(): Harness {
  const h = new Harness();
  h.md(1, MD_ADD, BID, 100, 5);
  h.md(2, MD_ADD, ASK, 105, 5);
  h.order(10, 1, BID, 102, 2);
  assert.equal(
    h.drain().map((r) => r.type),
    [ER_ACK],
  );
  return h;
}

test('continuous market: an ask added through our resting buy fills it at its own price (unchanged)', () => {
  const h = wideBookWithOurBuy();
  h.md(20, MD_ADD, ASK, 101, 3);
  const f = fills(h.drain());
  assert.equal(
    f.map((r) => [r.price, r.qty, r.exch]),
    [[102, 2, 20]],
  );
  assert.is(h.ex.halted, false);
  assert.is(h.ex.phaseChanges, 0);
});

test('crossed book: nothing fills our buy; at the uncross it fills at the new best ask, as maker', () => {
  const h = wideBookWithOurBuy();
  h.md(20, MD_ADD, BID, 106, 1); // pre-open: a bid through the ask, nothing trades
  assert.is(h.ex.halted, true);
  h.md(30, MD_ADD, ASK, 101, 3); // an ask through our buy: no continuous matching
  h.md(40, MD_TRADE, ASK, 101, 1); // a print through our price: still nothing
  assert.equal(fills(h.drain()), [], 'no fill while crossed');
  h.md(50, MD_CANCEL, BID, 106, 1); // the opening: bid 100, ask 101
  assert.is(h.ex.halted, false);
  const f = fills(h.drain());
  assert.equal(
    f.map((r) => [r.id, r.price, r.qty, r.exch, r.liq]),
    [[1, 101, 2, 50, LIQ_MAKER]],
  );
  assert.is(h.ex.phaseChanges, 2);
  assert.is(h.ex.crossedNsAt(1000), 30, 'crossed from 20 to 50');
});

test('an order not through the opening touch keeps resting after the uncross, and fills later as usual', () => {
  const h = wideBookWithOurBuy();
  h.md(20, MD_ADD, ASK, 100, 1); // locked at 100: halted
  assert.is(h.ex.halted, true);
  h.md(30, MD_ADD, ASK, 103, 2);
  h.md(40, MD_CANCEL, ASK, 100, 1); // bid 100, ask 103: continuous again; our 102 is not through 103
  assert.is(h.ex.halted, false);
  assert.equal(fills(h.drain()), []);
  assert.is(h.ex.crossedNsAt(100), 20);
  h.md(60, MD_ADD, ASK, 102, 1);
  assert.equal(
    fills(h.drain()).map((r) => [r.price, r.qty]),
    [[102, 2]],
  );
});

test('a crossed book at the end counts its time up to the end; a NEW takes nothing while halted (IOC cancelled)', () => {
  const h = wideBookWithOurBuy();
  h.md(20, MD_ADD, BID, 105, 1); // locked at 105
  h.order(30, 2, BID, 105, 1, FLAG_IOC);
  const r = h.drain();
  assert.equal(
    r.map((x) => x.type),
    [ER_ACK, ER_CANCELED],
  );
  assert.is(h.ex.crossedNsAt(120), 100);
});

test('a one-sided book is no phase change', () => {
  const h = new Harness();
  h.md(1, MD_ADD, BID, 100, 5);
  h.md(2, MD_ADD, BID, 101, 5);
  assert.is(h.ex.halted, false);
  assert.is(h.ex.phaseChanges, 0);
});

test.run();
