// OrderPathWarmer: the engine thread's warm-up of its order path while idle (workers/order-book.ts).
// It must exercise the order path (cancels and new orders on every run), never touch the real
// engine (same orders, ids and latencies with or without warm-up runs in between), stay bounded
// (a new shadow before the synthetic session ends) and allocate nothing per run.
import { marketMakerSetup } from '../../../src/strategy/builtin/market-maker.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Allocation, runProbe } from '../../helpers/allocation.ts';
import {
  ER_ACK,
  ER_CANCELED,
  ER_ID,
  ER_LEAVES,
  ER_STRIDE,
  ER_TS,
  ER_TYPE,
  EV_RECV,
  EV_STRIDE,
  OM_ID,
  OM_NEW,
  OM_QTY,
  OM_STRIDE,
  OM_TYPE,
} from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { latencyParams, riskLimits } from '../../../src/config/derive.ts';
import { quoteParams } from '../../../src/strategy/setup.ts';
import { seededLatency } from '../../../src/exchange/venue.ts';
import { parseClock } from '../../../src/market/calendar.ts';
import { MarketGenerator } from '../../../src/market/generator.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { Trader } from '../../../src/trading/trader.ts';
import { OrderPathWarmer, type WarmerOptions } from '../../../src/trading/order-path-warmer.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const config = shippedConfigNoModel();
const ES = contractForRoot('ES');
const OPEN = parseClock('09:30')!;
const CLOSE = parseClock('16:00')!;
const SLICE = parseClock('10:30')!;

function options(extra: Partial<WarmerOptions> = {}): WarmerOptions {
  return {
    spec: ES,
    initialCapital: config.trading.initial_capital,
    limits: riskLimits(config),
    quote: quoteParams(config),
    latency: latencyParams(config),
    flattenMinutes: config.strategy.flatten_minutes,
    ...extra,
  };
}

test('every run sends cancels and new orders through the shadow engine, none refused', () => {
  const w = new OrderPathWarmer(options());
  const e = w.engine;
  for (let i = 0; i < 1000; i++) {
    const orders = e.ordersSent;
    const cancels = e.cancelsSent;
    w.run();
    assert.ok(e.ordersSent > orders, `run ${i}: no new order`);
    assert.ok(e.cancelsSent > cancels, `run ${i}: no cancel`);
  }
  assert.is(e.rejects, 0);
  assert.is(e.risk.rejected, 0);
  assert.is(e.risk.killed, false);
  assert.is(e.fills.length, 0);
  assert.is(w.shadows, 1);
});

test('a shadow is replaced before its synthetic session ends, so its memory stays bounded', () => {
  // 10 minutes, the last 5 of them flattening: ~75,000 runs of 4 ms each quote.
  const w = new OrderPathWarmer(options({ sessionNs: 10 * 60e9, flattenMinutes: 5 }));
  const first = w.engine;
  for (let i = 0; i < 200_000; i++) w.run();
  assert.ok(w.shadows >= 3, `shadows built: ${w.shadows}`);
  assert.ok(w.engine !== first);
  // The current shadow still trades (it is not in its flattening window) and its equity curve
  // holds at most the samples of one short session.
  const orders = w.engine.ordersSent;
  w.run();
  assert.ok(w.engine.ordersSent > orders || w.shadows >= 4);
  assert.ok(w.engine.equity.length <= 11, `equity samples ${w.engine.equity.length}`);
});

/** The order messages a real engine sends over a generated slice of a session, with `between` run after every event. */
function ordersOf(between: () => void): number[] {
  // A slice from 10:30, past the opening spike's densest minutes, where 60,000 events span
  // enough of the market's moves for hundreds of requotes.
  const gen = new MarketGenerator(ES, '2024-01-03', 11, { sessionStartNs: SLICE, sessionEndNs: CLOSE });
  const md = RecordRing.allocate(EV_STRIDE, 4096, false);
  const om = RecordRing.allocate(OM_STRIDE, 1 << 16, false);
  const e = new Trader({
    spec: ES,
    initialCapital: config.trading.initial_capital,
    limits: riskLimits(config),
    strategy: marketMakerSetup(quoteParams(config)),
    latency: seededLatency(latencyParams(config), 99),
    orders: om,
    sessionStartNs: OPEN,
    sessionEndNs: CLOSE,
    flattenMinutes: config.strategy.flatten_minutes,
    predictor: null,
  });
  const out: number[] = [];
  const er = new Float64Array(ER_STRIDE);
  // Each message recorded, then acknowledged or its cancel confirmed (no fills), so the engine
  // keeps requoting as the market moves.
  const answer = (ts: number) => {
    while (om.availableSameThread() > 0) {
      const off = om.peek();
      for (let k = 0; k < OM_STRIDE; k++) out.push(om.data[off + k]);
      er[ER_TS] = ts;
      er[ER_TYPE] = om.data[off + OM_TYPE] === OM_NEW ? ER_ACK : ER_CANCELED;
      er[ER_ID] = om.data[off + OM_ID];
      er[ER_LEAVES] = om.data[off + OM_QTY];
      om.advance(1);
      om.release();
      e.onExecReport(er, 0);
    }
  };
  let events = 0;
  while (events < 60_000) {
    const n = gen.generate(md, 1024);
    for (let i = 0; i < n; i++) {
      const off = md.peek();
      e.onMarketData(md.data, off);
      answer(md.data[off + EV_RECV]);
      md.advance(1);
      between();
    }
    md.release();
    events += n;
  }
  return out;
}

test('the real engine sends the same orders, ids and latencies with warm-up runs between its events', () => {
  const plain = ordersOf(() => {});
  const w = new OrderPathWarmer(options());
  const warmed = ordersOf(() => w.run());
  assert.ok(plain.length / OM_STRIDE > 500, `order messages: ${plain.length / OM_STRIDE}`);
  assert.ok(w.engine.ordersSent > 50_000, 'the warmer ran');
  assert.equal(warmed, plain);
});

test('a run allocates nothing (measured in a process of its own, see the probe)', async () => {
  const m = await runProbe<Allocation & { orders: number }>('test/helpers/warmer-gc-probe.ts');
  assert.ok(m.orders > 150_000, `orders sent by the shadow: ${m.orders}`);
  assert.is(m.gcs, 0, `garbage collections during 100,000 runs: ${JSON.stringify(m)}`);
});

test.run();
