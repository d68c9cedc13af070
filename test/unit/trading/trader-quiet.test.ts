// When an engine fed the touch is quiet (Trader.quietBounds: the driver may take the next events
// that leave the touch where it is a run at a time). A requote that settles is quiet at once; an
// acknowledgement keeps a quiet engine quiet unless the strategy listens to its orders; markouts
// falling due inside a quiet run resolve at the run's mid. trader-top-feed.test.ts shows over
// whole sessions that none of this changes a result; this file shows the states themselves.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DenseBook } from '../../../src/book/dense-book.ts';
import { latencyParams, riskLimits } from '../../../src/config/derive.ts';
import {
  ASK,
  BID,
  ER_ACK,
  ER_EXCH_TS,
  ER_FILL,
  ER_ID,
  ER_LEAVES,
  ER_PRICE,
  ER_QTY,
  ER_SIDE,
  ER_STRIDE,
  ER_TS,
  ER_TYPE,
  EV_STRIDE,
  MD_ADD,
  OM_ID,
  OM_PRICE,
  OM_QTY,
  OM_SIDE,
  OM_STRIDE,
} from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { seededLatency } from '../../../src/exchange/venue.ts';
import { parseClock } from '../../../src/market/calendar.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { marketMaker, marketMakerSetup } from '../../../src/strategy/builtin/market-maker.ts';
import type { StrategyDefinition } from '../../../src/strategy/port.ts';
import { quoteParams } from '../../../src/strategy/setup.ts';
import { Trader } from '../../../src/trading/trader.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const config = shippedConfigNoModel();
const OPEN = parseClock('09:30')!;
const CLOSE = parseClock('16:00')!;
const MS = 1e6;

interface Msg {
  id: number;
  side: number;
  price: number;
  qty: number;
}

function setup(def: StrategyDefinition = marketMaker) {
  const om = RecordRing.allocate(OM_STRIDE, 1024, false);
  const e = new Trader({
    spec: contractForRoot('ES'),
    initialCapital: config.trading.initial_capital,
    limits: riskLimits(config),
    strategy: { ...marketMakerSetup(quoteParams(config)), def },
    latency: seededLatency(latencyParams(config), 7),
    orders: om,
    sessionStartNs: OPEN,
    sessionEndNs: CLOSE,
    flattenMinutes: config.strategy.flatten_minutes,
    predictor: null,
    featureScope: 'volatility',
    feed: 'top',
  });
  // The driver's side: the exchange's book gives the touch handed over with each event.
  const book = new DenseBook();
  const ev = new Float64Array(EV_STRIDE);
  const market = (ts: number, kind: number, side: number, price: number, qty: number) => {
    ev.set([ts, kind, side, price, qty, ts]);
    book.apply(kind, side, price, qty);
    e.onMarketTop(ev, 0, book.bestBid, book.bestAsk);
  };
  const quietRun = (n: number, ts: number) => {
    ev.set([ts, MD_ADD, BID, book.bestBid - 3, 1, ts]);
    e.takeQuiet(n, ev, 0);
  };
  const sent = (): Msg[] => {
    const out: Msg[] = [];
    while (om.availableSameThread() > 0) {
      const o = om.peek();
      const d = om.data;
      out.push({ id: d[o + OM_ID], side: d[o + OM_SIDE], price: d[o + OM_PRICE], qty: d[o + OM_QTY] });
      om.advance(1);
      om.release();
    }
    return out;
  };
  const er = new Float64Array(ER_STRIDE);
  const report = (ts: number, type: number, m: Msg, qty = 0) => {
    er.fill(0);
    er[ER_TS] = ts;
    er[ER_EXCH_TS] = ts;
    er[ER_TYPE] = type;
    er[ER_ID] = m.id;
    er[ER_SIDE] = m.side;
    er[ER_PRICE] = m.price;
    er[ER_QTY] = qty;
    er[ER_LEAVES] = m.qty - qty;
    e.onExecReport(er, 0);
  };
  const bounds = new Float64Array(2);
  const quiet = () => {
    e.quietBounds(bounds);
    return bounds[0] > -Infinity;
  };
  for (let k = 0; k < 5; k++) {
    market(OPEN, MD_ADD, BID, 20_000 - k, 40);
    market(OPEN, MD_ADD, ASK, 20_001 + k, 40);
  }
  return { e, market, quietRun, sent, report, quiet };
}

test('the event whose requote settles leaves the engine quiet at once', () => {
  const { market, sent, quiet } = setup();
  assert.not.ok(quiet(), 'not before it quotes');
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  assert.is(sent().length, 2, 'it quotes both sides');
  assert.ok(quiet(), 'quiet from the quoting event on');
});

test('an acknowledgement keeps a quiet engine quiet; a fill makes it quote again', () => {
  const { market, sent, report, quiet } = setup();
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  const [bid, ask] = sent();
  report(OPEN + 2 * MS, ER_ACK, bid);
  report(OPEN + 2 * MS, ER_ACK, ask);
  assert.ok(quiet(), 'still quiet after both acknowledgements');
  report(OPEN + 3 * MS, ER_FILL, bid, 1);
  const after = sent();
  assert.ok(after.length > 0, 'the fill moves the position: the engine quotes again');
});

test('a strategy that listens to its orders is asked again after each of them', () => {
  const heard: number[] = [];
  const listening: StrategyDefinition = {
    ...marketMaker,
    create: (p, ctx) => {
      const s = marketMaker.create(p, ctx);
      s.onOrder = (_c, ev) => {
        heard.push(ev.type);
      };
      return s;
    },
  };
  const { market, sent, report, quiet } = setup(listening);
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  const [bid] = sent();
  assert.ok(quiet());
  report(OPEN + 2 * MS, ER_ACK, bid);
  assert.is(heard.length, 1, 'told of the acknowledgement');
  assert.not.ok(quiet(), 'not quiet: the strategy may have acted on it');
});

test('markouts falling due inside a quiet run resolve at its mid', () => {
  const { e, market, quietRun, sent, report, quiet } = setup();
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  const [bid, ask] = sent();
  report(OPEN + 2 * MS, ER_ACK, bid);
  report(OPEN + 2 * MS, ER_ACK, ask);
  report(OPEN + 3 * MS, ER_FILL, bid, 1);
  sent();
  // The next event leaves the touch where it was; the engine is quiet from it on.
  market(OPEN + 4 * MS, MD_ADD, BID, 19_989, 1);
  assert.ok(quiet());
  const before = e.markouts.sums();
  assert.equal(before.qty, [0, 0, 0, 0], 'nothing measured yet');
  // A run of quiet events past the first horizon (100 ms after the fill's exchange time).
  quietRun(50, OPEN + 200 * MS);
  const after = e.markouts.sums();
  assert.equal(after.qty, [1, 0, 0, 0], 'the 100 ms markout, once');
  // Bought at the bid (20,000) and marked at the run's mid (20,000.5): half a tick.
  assert.is(after.sumTicks[0], 0.5);
  assert.ok(quiet(), 'the run stays quiet');
});

test.run();
