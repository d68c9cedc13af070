// The strategy port's replace() through the engine and the simulated exchange: it sends one modify
// (OM_MODIFY) and the order keeps its id; fewer contracts at the same price keep its queue place,
// a new price or more contracts lose it; fills in flight count against the new quantity
// (in-flight mitigation); the engine's open quantity is the most the order may still fill until
// the exchange answers; refusals here (kill switch, risk limits, reduce-only, a quote() order)
// and at the exchange (post-only that would cross) leave the order as it was. In a backtest
// session, and from the CLI with the breakout example, the order log records the modifies and
// their confirmations.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OL_KIND, OL_QTY, OL_STRIDE, ORDER_EVENTS } from '../../../src/backtest/order-log.ts';
import { sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { ReplaySource, recordMarket } from '../../../src/market/replay-source.ts';
import { runSession } from '../../../src/backtest/session.ts';
import { latencyParams, riskLimits } from '../../../src/config/derive.ts';
import { ASK, BID, ER_STRIDE, EV_STRIDE, MD_ADD, MD_TRADE, OM_MODIFY, OM_STRIDE, OM_TYPE } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { Rng } from '../../../src/core/rng.ts';
import { FeeSchedule } from '../../../src/exchange/fees.ts';
import { SeededLatency } from '../../../src/exchange/latency.ts';
import { PowerQueueModel } from '../../../src/exchange/queue-model.ts';
import { SimExchange } from '../../../src/exchange/sim-exchange.ts';
import { seededLatency } from '../../../src/exchange/venue.ts';
import { parseClock } from '../../../src/market/calendar.ts';
import { MarketGenerator } from '../../../src/market/generator.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { defaults } from '../../../src/strategy/params.ts';
import {
  FLAG_POST_ONLY,
  ORDER_ACK,
  ORDER_CANCELED,
  ORDER_FILL,
  ORDER_MODIFIED,
  ORDER_MODIFY_REJECT,
  OS_LIVE,
  OS_NONE,
  OS_PENDING_MODIFY,
  type StrategyDefinition,
} from '../../../src/strategy/port.ts';
import { Trader } from '../../../src/trading/trader.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { ROOT, runCli, tempDir, writeConfig } from '../../helpers/cli.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const config = shippedConfigNoModel();
const OPEN = parseClock('09:30')!;
const CLOSE = parseClock('16:00')!;
const MS = 1e6;

/** An engine (strategy: imperative orders only) wired to a SimExchange; messages and reports are handed over when `pump` is called. */
function wired(events: [number, number, number][]) {
  const def: StrategyDefinition = {
    name: 'replacer',
    version: '0',
    description: 'test',
    wakes: 'book',
    levels: 0,
    params: {},
    create: () => ({ onOrder: (_c, ev) => void events.push([ev.type, ev.price, ev.leaves]) }),
  };
  const om = RecordRing.allocate(OM_STRIDE, 1024, false);
  const e = new Trader({
    spec: contractForRoot('ES'),
    initialCapital: 1_000_000,
    limits: riskLimits(config),
    strategy: { def, params: defaults(def.params) },
    latency: seededLatency(latencyParams(config), 7),
    orders: om,
    sessionStartNs: OPEN,
    sessionEndNs: CLOSE,
    flattenMinutes: 5,
  });
  const er = RecordRing.allocate(ER_STRIDE, 1024, false);
  const ex = new SimExchange({
    fees: new FeeSchedule({ makerFee: 0.25, takerFee: 0.85, exchangeFee: 1.18 }),
    latency: new SeededLatency({ orderLatencyNs: 0, marketDataLatencyNs: 0, responseLatencyNs: 0, jitterNs: 0 }, new Rng(1)),
    queue: new PowerQueueModel(2),
    reports: er,
  });
  const ev = new Float64Array(EV_STRIDE);
  const sent: number[] = [];
  /** Order messages to the exchange (in order), then, with `reports`, its reports to the engine. */
  const pump = (reports = true) => {
    while (om.availableSameThread() > 0) {
      const o = om.peek();
      sent.push(om.data[o + OM_TYPE]);
      ex.onOrderMessage(om.data, o);
      om.advance(1);
      om.release();
    }
    if (!reports) return;
    while (er.available() > 0) {
      e.onExecReport(er.data, er.peek());
      er.advance(1);
      er.release();
    }
  };
  const market = (ts: number, kind: number, side: number, price: number, qty: number) => {
    ev.set([ts, kind, side, price, qty, ts]);
    ex.onMarketEvent(ev, 0);
    e.onMarketData(ev, 0);
  };
  for (let k = 0; k < 5; k++) {
    market(OPEN, MD_ADD, BID, 20_000 - k, 40);
    market(OPEN, MD_ADD, ASK, 20_001 + k, 40);
  }
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  return { e, ex, market, pump, sent };
}

test('replace: one modify, the same id; fewer contracts keep the queue place, more or a new price lose it', () => {
  const events: [number, number, number][] = [];
  const { e, ex, market, pump, sent } = wired(events);
  const c = e.ctx;
  const id = c.send(BID, 20_000, 5, FLAG_POST_ONLY);
  pump();
  events.length = 0; // the ack
  assert.is(ex.orderFront(id), 40);
  market(OPEN + 2 * MS, MD_TRADE, BID, 20_000, 30);
  assert.is(ex.orderFront(id), 10);
  market(OPEN + 3 * MS, MD_ADD, BID, 20_000, 7); // behind us
  sent.length = 0;
  assert.is(c.replace(id, 20_000, 2), id, 'the order keeps its id');
  assert.is(c.orderState(id), OS_PENDING_MODIFY);
  assert.is(c.openBuyQty, 5, 'until the exchange answers, the most it may still fill');
  pump();
  assert.equal(sent, [OM_MODIFY], 'one message, no cancel');
  assert.is(c.orderState(id), OS_LIVE);
  assert.is(c.orderLeaves(id), 2);
  assert.is(c.openBuyQty, 2);
  assert.is(ex.orderFront(id), 10, 'fewer contracts at the same price: the place is kept');
  assert.is(c.replace(id, 20_000, 4), id);
  assert.is(c.openBuyQty, 4, 'more contracts count at once');
  pump();
  assert.is(ex.orderFront(id), 17, 'more contracts: behind the 7 that had joined behind it');
  assert.is(c.replace(id, 19_999, 4), id);
  pump();
  assert.is(ex.orderFront(id), 40, 'a new price: the back of that level');
  assert.is(e.om.orders.price[e.om.orders.find(id)], 19_999);
  assert.equal(events, [
    [ORDER_MODIFIED, 20_000, 2],
    [ORDER_MODIFIED, 20_000, 4],
    [ORDER_MODIFIED, 19_999, 4],
  ]);
});

test('replace: a fill in flight counts against the new quantity; the order never fills more than asked from the call on', () => {
  const events: [number, number, number][] = [];
  const { e, ex, market, pump } = wired(events);
  const c = e.ctx;
  const id = c.send(BID, 19_995, 4, FLAG_POST_ONLY); // an empty level: first in the queue
  pump();
  market(OPEN + 2 * MS, MD_TRADE, BID, 19_995, 3); // fills 3 at the exchange; the report is not yet delivered
  assert.is(c.replace(id, 19_995, 3), id, 'the engine, not knowing of the fill, asks for 3 more');
  pump(false);
  assert.is(ex.liveOrders(), 0, 'the 3 asked for had filled before the modify arrived: the order is cancelled, not worked on');
  pump();
  assert.is(e.portfolio.position, 3, 'never more than the 3 asked for');
  assert.is(c.orderState(id), OS_NONE, 'the order has ended');
  assert.is(c.openBuyQty, 0);
  assert.equal(
    events.map((x) => x[0]),
    [ORDER_ACK, ORDER_FILL, ORDER_CANCELED],
  );
});

test('replace refused here leaves the order as it was: kill switch, risk limit, unknown id; refused by the exchange (post-only would cross): works on', () => {
  const events: [number, number, number][] = [];
  const { e, ex, pump } = wired(events);
  const c = e.ctx;
  const id = c.send(BID, 20_000, 2, FLAG_POST_ONLY);
  pump();
  const limits = riskLimits(config);
  assert.is(c.replace(id, 20_000, limits.maxOrderSize + 1), 0, 'above the order size limit');
  assert.is(c.replace(id + 1000, 20_000, 1), 0, 'unknown id');
  assert.is(c.replace(id, 20_001, 2), id, 'sent: the engine does not judge the cross, the exchange does');
  pump();
  assert.equal(events.at(-1), [ORDER_MODIFY_REJECT, 20_000, 2]);
  assert.is(c.orderState(id), OS_LIVE);
  assert.is(e.om.orders.price[e.om.orders.find(id)], 20_000, 'the confirmed price again');
  assert.is(c.openBuyQty, 2);
  assert.is(ex.orderFront(id), 40, 'still at its place');
  e.kill(OPEN + 5 * MS, 'TEST', 'test');
  assert.is(c.replace(id, 20_000, 1), 0, 'nothing after the kill switch');
});

test('replace in the reduce-only window: more contracts or a new price only as far as they reduce the position; fewer at the same price always', () => {
  const events: [number, number, number][] = [];
  const { e, market, pump } = wired(events);
  const c = e.ctx;
  const id = c.send(BID, 19_998, 3, FLAG_POST_ONLY);
  pump();
  market(CLOSE - 4 * 60_000 * MS, MD_ADD, BID, 19_990, 1); // within flatten_minutes = 5 of the close
  assert.ok(c.reduceOnly);
  assert.is(c.replace(id, 19_997, 3), 0, 'a new price on a buy with no short position to reduce');
  assert.is(c.replace(id, 19_998, 4), 0, 'more contracts, the same');
  assert.is(c.replace(id, 19_998, 1), id, 'fewer contracts at the same price only lower the risk');
  pump();
  assert.is(c.orderLeaves(id), 1);
});

test('a backtest session: replace() sends modifies, the order log records them and their confirmations', () => {
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02' }, config);
  if (!v.ok) throw new Error('request');
  const spec = sessionSpecs(v.request, config, false)[0];
  // 60,000 events from 10:30: half a minute of market (from the open, seconds of its spike).
  const rec = recordMarket(
    new MarketGenerator(contractForRoot('ES'), spec.date, spec.seed, {
      sessionStartNs: spec.sessionStartNs + 3600e9,
      sessionEndNs: spec.sessionEndNs,
      activity: 1,
    }),
    RecordRing.allocate(EV_STRIDE, 1 << 16, false),
    60_000,
  );
  let modified = 0;
  // One bid at the touch; every 200 ms one contract fewer (the place kept), back to 5 when at 1.
  const shrinker: StrategyDefinition = {
    name: 'shrinker',
    version: '0',
    description: 'test',
    wakes: 'touch',
    levels: 0,
    params: {},
    create: (_p, ctx) => {
      let id = 0;
      let qty = 5;
      ctx.wakeEvery(200 * MS, 0);
      return {
        onTimer(k) {
          if (id === 0 || k.orderState(id) === OS_NONE) {
            id = k.send(BID, k.bestBid, (qty = 5), FLAG_POST_ONLY);
            return;
          }
          if (k.orderState(id) !== OS_LIVE) return;
          qty = qty > 1 ? qty - 1 : 5;
          k.replace(id, k.bestBid, qty);
        },
        onOrder(_k, ev) {
          if (ev.type === ORDER_MODIFIED) modified++;
        },
      };
    },
  };
  const r = runSession(
    { ...spec, record: { ...spec.record, orders: true }, strategy: { name: 'shrinker', version: '0', hash: 'x', params: {}, file: null } },
    { source: new ReplaySource(rec.events, rec.count), strategyDef: shrinker },
  );
  const log = r.orderLog!;
  const kinds = new Map<string, number>();
  for (let o = 0; o < log.length; o += OL_STRIDE) {
    const k = ORDER_EVENTS[log[o + OL_KIND]];
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
    if (k === 'modify') assert.ok(log[o + OL_QTY] >= 1, 'a modify row carries the new total');
  }
  console.log('  order log:', JSON.stringify(Object.fromEntries(kinds)));
  assert.ok((kinds.get('modify') ?? 0) > 20, `modifies: ${kinds.get('modify')}`);
  const n = (k: string) => kinds.get(k) ?? 0;
  // Each modify is answered: confirmed, refused, or (filled meanwhile) cancelled; the session's end cancels too.
  assert.ok(n('modified') + n('modify_reject') + n('canceled') >= n('modify'), 'every modify answered');
  assert.is(kinds.get('modified'), modified, 'each confirmation reached the strategy');
  assert.ok(!kinds.has(''), 'every row has a kind');
});

test('the CLI: the breakout example moves its take-profit with modifies, and --orders lists them with their confirmations', () => {
  ensureBuilt();
  const cfg = writeConfig('[simulation]\nsession_start = "09:30"\nsession_end = "10:30"\n');
  const csv = join(tempDir(), 'orders.csv');
  const file = join(ROOT, 'examples', 'strategies', 'breakout-taker.ts');
  const r = runCli([
    '--backtest',
    '--config',
    cfg,
    '--strategy-file',
    file,
    '--strategy',
    'breakout_taker',
    '--start',
    '2024-01-02',
    '--end',
    '2024-01-03',
    '--json',
    '--orders',
    csv,
  ]);
  assert.is(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  const [head, ...lines] = readFileSync(csv, 'utf8').trimEnd().split('\n');
  const names = head.split(',');
  const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i], v])));
  const n = (e: string) => rows.filter((x) => x.event === e).length;
  assert.ok(n('modify') > 10, `modifies: ${n('modify')}`);
  assert.is(n('modified') + n('modify_reject') <= n('modify'), true);
  assert.ok(n('modified') > 0);
  assert.is(n('send'), result.orders_sent, 'a modify is not a new order');
  assert.is(n('cancel'), result.cancels_sent, 'nor a cancel');
  // A modified order keeps its id: every modify names an order sent before it.
  const sentIds = new Set<string>();
  for (const x of rows) {
    if (x.event === 'send') sentIds.add(x.order_id);
    if (x.event === 'modify') assert.ok(sentIds.has(x.order_id), `modify of order ${x.order_id}, never sent`);
  }
});

test.run();
