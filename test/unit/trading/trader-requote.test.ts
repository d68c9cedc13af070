// When the engine requotes after an execution report. An order's end can change the quotes only
// when the order was working (the one quoting its side): the exchange refused or cancelled it,
// and the side must be quoted again at once. The cancel confirmation of an order already
// replaced changes nothing the strategy decides from, so it sends nothing.
import { marketMakerSetup } from '../../../src/strategy/builtin/market-maker.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { latencyParams, riskLimits } from '../../../src/config/derive.ts';
import { quoteParams } from '../../../src/strategy/setup.ts';
import {
  ASK,
  BID,
  ER_ACK,
  ER_CANCELED,
  ER_ID,
  ER_LEAVES,
  ER_REJECT,
  ER_SIDE,
  ER_STRIDE,
  ER_TS,
  ER_TYPE,
  EV_STRIDE,
  MD_ADD,
  MD_CANCEL,
  OM_CANCEL,
  OM_ID,
  OM_NEW,
  OM_PRICE,
  OM_QTY,
  OM_SIDE,
  OM_STRIDE,
  OM_TYPE,
} from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { seededLatency } from '../../../src/exchange/venue.ts';
import { parseClock } from '../../../src/market/calendar.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { Trader } from '../../../src/trading/trader.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const config = shippedConfigNoModel();
const OPEN = parseClock('09:30')!;
const CLOSE = parseClock('16:00')!;
const MS = 1e6;

interface Msg {
  type: number;
  id: number;
  side: number;
  price: number;
  qty: number;
}

function setup() {
  const om = RecordRing.allocate(OM_STRIDE, 1024, false);
  const e = new Trader({
    spec: contractForRoot('ES'),
    initialCapital: config.trading.initial_capital,
    limits: riskLimits(config),
    strategy: marketMakerSetup(quoteParams(config)),
    latency: seededLatency(latencyParams(config), 7),
    orders: om,
    sessionStartNs: OPEN,
    sessionEndNs: CLOSE,
    flattenMinutes: config.strategy.flatten_minutes,
    predictor: null,
  });
  const ev = new Float64Array(EV_STRIDE);
  const market = (ts: number, kind: number, side: number, price: number, qty: number) => {
    ev.set([ts, kind, side, price, qty, ts]);
    e.onMarketData(ev, 0);
  };
  /** The order messages sent since the last call. */
  const sent = (): Msg[] => {
    const out: Msg[] = [];
    while (om.availableSameThread() > 0) {
      const o = om.peek();
      const d = om.data;
      out.push({ type: d[o + OM_TYPE], id: d[o + OM_ID], side: d[o + OM_SIDE], price: d[o + OM_PRICE], qty: d[o + OM_QTY] });
      om.advance(1);
      om.release();
    }
    return out;
  };
  const er = new Float64Array(ER_STRIDE);
  const report = (ts: number, type: number, m: Msg) => {
    er.fill(0);
    er[ER_TS] = ts;
    er[ER_TYPE] = type;
    er[ER_ID] = m.id;
    er[ER_SIDE] = m.side;
    er[ER_LEAVES] = type === ER_ACK ? m.qty : 0;
    e.onExecReport(er, 0);
  };
  // The opening book, then one event after the open: the engine quotes both sides.
  for (let k = 0; k < 5; k++) {
    market(OPEN, MD_ADD, BID, 20_000 - k, 40);
    market(OPEN, MD_ADD, ASK, 20_001 + k, 40);
  }
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  const opening = sent();
  for (const m of opening) report(OPEN + 2 * MS, ER_ACK, m);
  assert.equal(sent(), [], 'acks send nothing');
  return { e, market, sent, report, opening };
}

test('the engine quotes both sides after the open, one new order each', () => {
  const { opening } = setup();
  assert.equal(
    opening.map((m) => [m.type, m.side]),
    [
      [OM_NEW, BID],
      [OM_NEW, ASK],
    ],
  );
});

test('a working order the exchange refuses is replaced at once, on its side', () => {
  const { sent, report, opening } = setup();
  const bid = opening.find((m) => m.side === BID)!;
  report(OPEN + 3 * MS, ER_REJECT, bid);
  const after = sent();
  assert.equal(
    after.map((m) => [m.type, m.side]),
    [[OM_NEW, BID]],
    'the bid is quoted again, nothing else is sent',
  );
  assert.is(after[0].price, bid.price);
});

test('a working order the exchange cancels is replaced at once, on its side', () => {
  const { sent, report, opening } = setup();
  const ask = opening.find((m) => m.side === ASK)!;
  report(OPEN + 3 * MS, ER_CANCELED, ask);
  assert.equal(
    sent().map((m) => [m.type, m.side]),
    [[OM_NEW, ASK]],
  );
});

test('the cancel confirmation of an order already replaced sends nothing, and the new quotes stand', () => {
  const { market, sent, report, opening } = setup();
  // The touch moves: both sides are cancelled and quoted again.
  market(OPEN + 4 * MS, MD_CANCEL, BID, 20_000, 40);
  market(OPEN + 4 * MS, MD_CANCEL, ASK, 20_001, 40);
  const moved = sent();
  const cancels = moved.filter((m) => m.type === OM_CANCEL);
  const news = moved.filter((m) => m.type === OM_NEW);
  assert.equal(cancels.map((m) => m.id).sort(), opening.map((m) => m.id).sort(), 'both opening orders cancelled');
  assert.is(news.length, 2);
  for (const m of news) report(OPEN + 5 * MS, ER_ACK, m);
  for (const m of opening) report(OPEN + 6 * MS, ER_CANCELED, m);
  assert.equal(sent(), [], 'nothing sent on the confirmations');
  // The next event that changes nothing the strategy decides from sends nothing either.
  market(OPEN + 7 * MS, MD_ADD, BID, 19_990, 1);
  assert.equal(sent(), []);
});

test.run();
