// The measurement of sim-exchange-modify.test.ts's allocation check, run in a process of its own
// (warmer-gc-probe.ts says why: the suite's shared process gives the exchange's code other shapes
// and queue models). 1M modifies through a SimExchange: fewer contracts (kept place), more (to the
// back), a new price and back. Prints one JSON line.
//   node --import tsx test/helpers/modify-gc-probe.ts
import { measureAllocation } from './allocation.ts';
import {
  ASK,
  BID,
  ER_STRIDE,
  EV_KIND,
  EV_PRICE,
  EV_QTY,
  EV_SIDE,
  EV_STRIDE,
  EV_TS,
  FLAG_POST_ONLY,
  MD_ADD,
  OM_FLAGS,
  OM_ID,
  OM_MODIFY,
  OM_NEW,
  OM_PRICE,
  OM_QTY,
  OM_SIDE,
  OM_STRIDE,
  OM_TS,
  OM_TYPE,
} from '../../src/core/events.ts';
import { RecordRing } from '../../src/core/ring.ts';
import { Rng } from '../../src/core/rng.ts';
import { FeeSchedule } from '../../src/exchange/fees.ts';
import { SeededLatency } from '../../src/exchange/latency.ts';
import { PowerQueueModel } from '../../src/exchange/queue-model.ts';
import { SimExchange } from '../../src/exchange/sim-exchange.ts';

const ring = RecordRing.allocate(ER_STRIDE, 1024, false);
const ex = new SimExchange({
  fees: new FeeSchedule({ makerFee: 0.25, takerFee: 0.85, exchangeFee: 1.18 }),
  latency: new SeededLatency({ orderLatencyNs: 0, marketDataLatencyNs: 0, responseLatencyNs: 200_000, jitterNs: 20_000 }, new Rng(3)),
  queue: new PowerQueueModel(2),
  reports: ring,
});
const ev = new Float64Array(EV_STRIDE);
const level = (side: number, price: number, qty: number): void => {
  ev[EV_TS] = 1000;
  ev[EV_KIND] = MD_ADD;
  ev[EV_SIDE] = side;
  ev[EV_PRICE] = price;
  ev[EV_QTY] = qty;
  ex.onMarketEvent(ev, 0);
};
level(BID, 19999, 50);
level(BID, 19998, 40);
level(ASK, 20000, 30);
const om = new Float64Array(OM_STRIDE);
om[OM_TYPE] = OM_NEW;
om[OM_ID] = 1;
om[OM_SIDE] = BID;
om[OM_PRICE] = 19999;
om[OM_QTY] = 5;
om[OM_FLAGS] = FLAG_POST_ONLY;
ex.onOrderMessage(om, 0);
om[OM_TYPE] = OM_MODIFY;
// Totals 5 (back to 19999: a new price), 3 (fewer: kept), 6 (more: to the back), 6 at 19998 (a new price).
const qty = new Float64Array([5, 3, 6, 6]);
const px = new Float64Array([19999, 19999, 19999, 19998]);
const run = (n: number): void => {
  for (let i = 0; i < n; i++) {
    om[OM_TS] += 10;
    om[OM_QTY] = qty[i & 3];
    om[OM_PRICE] = px[i & 3];
    ex.onOrderMessage(om, 0);
    ring.advance(ring.available());
    ring.release();
  }
};
for (let k = 0; k < 500; k++) run(1000); // optimised first, in chunks so `run` itself is
await new Promise((r) => setTimeout(r, 100));
const m = await measureAllocation(
  () => {
    for (let k = 0; k < 1000; k++) run(1000);
  },
  { scavengeFirst: true, attempts: 3 },
);
process.stdout.write(`${JSON.stringify({ ...m, live: ex.liveOrders(), overflows: ex.reportOverflows })}\n`);
