// A Trader driven by hand, as a driver would: market events in, the order messages it sent out,
// execution reports back. For tests of what the engine does with each input (no exchange).
import { DenseBook } from '../../src/book/dense-book.ts';
import { latencyParams, riskLimits } from '../../src/config/derive.ts';
import {
  ASK,
  BID,
  ER_ACK,
  ER_EXCH_TS,
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
  OM_FLAGS,
  OM_ID,
  OM_PRICE,
  OM_QTY,
  OM_SIDE,
  OM_STRIDE,
  OM_TYPE,
} from '../../src/core/events.ts';
import { RecordRing } from '../../src/core/ring.ts';
import { seededLatency } from '../../src/exchange/venue.ts';
import { parseClock } from '../../src/market/calendar.ts';
import { contractForRoot } from '../../src/market/instruments.ts';
import { Trader, type StrategySetup } from '../../src/trading/trader.ts';
import { shippedConfigNoModel } from './shipped-config.ts';

export const OPEN = parseClock('09:30')!;
export const CLOSE = parseClock('16:00')!;
export const MS = 1e6;

/** An order message the engine sent. */
export interface Msg {
  type: number;
  id: number;
  side: number;
  price: number;
  qty: number;
  flags: number;
}

export interface HarnessOptions {
  strategy: StrategySetup;
  /** 'events' (default): each event applied to the engine's own book; 'top': the driver's touch handed over (a backtest without the model). */
  feed?: 'events' | 'top';
  strategyErrors?: 'throw' | 'stop';
  initialCapital?: number;
  flattenMinutes?: number;
}

/** An ES engine from 09:30 to 16:00 on the shipped config without the model; nothing sent yet. */
export function traderHarness(o: HarnessOptions) {
  const config = shippedConfigNoModel();
  const om = RecordRing.allocate(OM_STRIDE, 1024, false);
  const fedTop = o.feed === 'top';
  const e = new Trader({
    spec: contractForRoot('ES'),
    initialCapital: o.initialCapital ?? config.trading.initial_capital,
    limits: riskLimits(config),
    strategy: o.strategy,
    latency: seededLatency(latencyParams(config), 7),
    orders: om,
    sessionStartNs: OPEN,
    sessionEndNs: CLOSE,
    flattenMinutes: o.flattenMinutes ?? config.strategy.flatten_minutes,
    predictor: null,
    strategyErrors: o.strategyErrors,
    ...(fedTop ? { featureScope: 'volatility' as const, feed: 'top' as const } : {}),
  });
  // Fed the touch, the driver's side keeps the book (the exchange's, in a backtest).
  const book = new DenseBook();
  const ev = new Float64Array(EV_STRIDE);
  const market = (ts: number, kind: number, side: number, price: number, qty: number) => {
    ev.set([ts, kind, side, price, qty, ts]);
    if (!fedTop) return e.onMarketData(ev, 0);
    book.apply(kind, side, price, qty);
    e.onMarketTop(ev, 0, book.bestBid, book.bestAsk);
  };
  /** The order messages sent since the last call. */
  const sent = (): Msg[] => {
    const out: Msg[] = [];
    while (om.availableSameThread() > 0) {
      const at = om.peek();
      const x = om.data;
      out.push({ type: x[at + OM_TYPE], id: x[at + OM_ID], side: x[at + OM_SIDE], price: x[at + OM_PRICE], qty: x[at + OM_QTY], flags: x[at + OM_FLAGS] });
      om.advance(1);
      om.release();
    }
    return out;
  };
  const er = new Float64Array(ER_STRIDE);
  /** A report about order `m` at `ts` (a fill of `fillQty` at its price). */
  const report = (ts: number, type: number, m: Msg, fillQty = 0) => {
    er.fill(0);
    er[ER_TS] = ts;
    er[ER_EXCH_TS] = ts;
    er[ER_TYPE] = type;
    er[ER_ID] = m.id;
    er[ER_SIDE] = m.side;
    er[ER_PRICE] = m.price;
    er[ER_QTY] = fillQty;
    er[ER_LEAVES] = type === ER_ACK ? m.qty : m.qty - fillQty;
    e.onExecReport(er, 0);
  };
  /** The opening book at 09:30: five levels a side, touch 20000 / 20001. */
  const openBook = () => {
    for (let k = 0; k < 5; k++) {
      market(OPEN, MD_ADD, BID, 20_000 - k, 40);
      market(OPEN, MD_ADD, ASK, 20_001 + k, 40);
    }
  };
  return { e, market, sent, report, openBook };
}
