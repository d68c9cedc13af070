// Tick-to-trade in one thread, with the model: the time from a market-data event entering
// Engine.onMarketData to the order decision leaving it (its order message(s) written to the
// outbound ring and published), for the events that produced an order message (a new order or
// a cancel). Measured with process.hrtime.bigint() around the call, on 1 event in SAMPLE_EVERY
// (the timer costs ~50-100 ns a read, so not every event is stamped); the timer's own cost
// (two back-to-back reads) is reported next to the figures, which include it.
//
// What one sample includes: the local book update, incremental features, markouts, the equity /
// risk check, the model (MlpPredictor, when due: every 10 ms of market time, so only some events
// run it; both kinds are reported apart), the market maker's decision, the risk check of the
// order, the order-table update and the message written to the ring. It excludes transport (no
// thread hop: see cross-thread.ts), the simulated exchange and the driver's merge of streams.
//
// The driver below is the backtest driver's merge (src/backtest/session.ts) with the engine in
// reach, over a recorded session, with the simulated exchange answering, so orders are acked,
// filled and cancelled as in a real session.

import { EV_RECV, EV_STRIDE, EV_TS, ER_STRIDE, ER_TS, OM_STRIDE, OM_TS } from '../src/core/events.ts';
import { RecordRing } from '../src/core/ring.ts';
import { hashSeed, Rng } from '../src/core/rng.ts';
import { FeeSchedule } from '../src/exchange/fees.ts';
import { LatencyModel } from '../src/exchange/latency.ts';
import { queueModelFromName } from '../src/exchange/queue-model.ts';
import { SimExchange } from '../src/exchange/sim-exchange.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { MlpPredictor } from '../src/ml/model.ts';
import type { SessionSpec } from '../src/backtest/session.ts';
import { ReplaySource } from '../src/backtest/replay-source.ts';
import { Engine } from '../src/trading/engine.ts';
import type { Recording } from './stream.ts';
import { loadavg, median, percentiles, type Percentiles } from './util.ts';

const SAMPLE_EVERY = 4;

export interface TickToTradeBench {
  events: number;
  sampledEvery: number;
  /** Samples of events that produced an order message, ns. */
  withOrder: Percentiles;
  /** ... of which the model ran on this event. */
  withOrderAndModel: Percentiles;
  /** ... of which the model did not run (its last prediction was recent enough). */
  withOrderNoModel: Percentiles;
  /** Every sampled event, order or not. */
  allEvents: Percentiles;
  timerOverheadNs: number;
  ordersSent: number;
  cancelsSent: number;
  predictions: number;
  modelVersion: string;
  includes: string;
  loadavg: number[];
}

interface Pipeline {
  engine: Engine;
  run(sample: boolean): void;
}

/** The backtest driver over `rec`, with onMarketData timed on sampled events when `sample`. */
function pipeline(spec: SessionSpec, rec: Recording, count: number, out: { ns: Float64Array; kind: Uint8Array; all: Float64Array; n: number; nAll: number }): Pipeline {
  const contract = contractForRoot(spec.root);
  const md = RecordRing.allocate(EV_STRIDE, 1 << 16, false);
  const om = RecordRing.allocate(OM_STRIDE, 1 << 10, false);
  const er = RecordRing.allocate(ER_STRIDE, 1 << 12, false);
  const gen = new ReplaySource(rec.events, count);
  const exLatency = new LatencyModel(spec.latency, new Rng(hashSeed(`exchange|${spec.root}|${spec.date}`, spec.seed)));
  const enLatency = new LatencyModel(spec.latency, new Rng(hashSeed(`engine|${spec.root}|${spec.date}`, spec.seed)));
  const exchange = new SimExchange({ fees: new FeeSchedule(spec.fees), latency: exLatency, queue: queueModelFromName(spec.queueModel as 'power' | 'risk_averse', spec.queuePower), reports: er });
  if (!spec.model) throw new Error('tick-to-trade: the spec carries no model');
  const engine = new Engine({
    spec: contract,
    initialCapital: spec.initialCapital,
    limits: spec.limits,
    quote: spec.quote,
    latency: enLatency,
    orders: om,
    sessionStartNs: spec.sessionStartNs,
    sessionEndNs: spec.sessionEndNs,
    flattenMinutes: spec.flattenMinutes,
    predictor: new MlpPredictor(spec.model),
  });
  const run = (sample: boolean): void => {
    const D = md.data;
    const mask = md.mask;
    const stride = md.stride;
    let ex = md.readSeq;
    let lastRecv = 0;
    let k = 0;
    for (;;) {
      if (ex === md.writeSeq && !gen.done) {
        md.release();
        const room = md.free();
        if (room > 0) gen.generate(md, room < 4096 ? room : 4096);
      }
      const tEx = ex !== md.writeSeq ? D[(ex & mask) * stride + EV_TS] : Infinity;
      const tMd = md.readSeq !== ex ? D[md.peek() + EV_RECV] : Infinity;
      if (tEx === Infinity && tMd === Infinity) break;
      const tOm = om.available() > 0 ? om.data[om.peek() + OM_TS] : Infinity;
      const tEr = er.available() > 0 ? er.data[er.peek() + ER_TS] : Infinity;
      if (tEx <= tOm && tEx <= tEr && tEx <= tMd) {
        const off = (ex & mask) * stride;
        let recv = D[off + EV_TS] + enLatency.marketData();
        if (recv < lastRecv) recv = lastRecv;
        lastRecv = recv;
        D[off + EV_RECV] = recv;
        exchange.onMarketEvent(D, off);
        ex = (ex + 1) | 0;
      } else if (tOm <= tEr && tOm <= tMd) {
        exchange.onOrderMessage(om.data, om.peek());
        om.advance();
        om.release();
      } else if (tEr <= tMd) {
        engine.onExecReport(er.data, er.peek());
        er.advance();
        er.release();
      } else {
        if (sample && (++k & (SAMPLE_EVERY - 1)) === 0) {
          const sent = engine.ordersSent + engine.cancelsSent;
          const preds = engine.predictions;
          const t0 = process.hrtime.bigint();
          engine.onMarketData(D, md.peek());
          const t1 = process.hrtime.bigint();
          const ns = Number(t1 - t0);
          if (out.nAll < out.all.length) out.all[out.nAll++] = ns;
          if (engine.ordersSent + engine.cancelsSent !== sent && out.n < out.ns.length) {
            out.kind[out.n] = engine.predictions !== preds ? 1 : 0;
            out.ns[out.n++] = ns;
          }
        } else engine.onMarketData(D, md.peek());
        md.advance();
      }
    }
  };
  return { engine, run };
}

function timerOverhead(): number {
  const xs: number[] = [];
  for (let r = 0; r < 5; r++) {
    let acc = 0;
    const N = 100_000;
    for (let i = 0; i < N; i++) {
      const a = process.hrtime.bigint();
      const b = process.hrtime.bigint();
      acc += Number(b - a);
    }
    xs.push(acc / N);
  }
  return median(xs);
}

export function benchTickToTrade(spec: SessionSpec, rec: Recording, o: { events: number }): TickToTradeBench {
  const count = Math.min(o.events, rec.count);
  const cap = Math.ceil(count / SAMPLE_EVERY) + 1;
  const out = { ns: new Float64Array(cap), kind: new Uint8Array(cap), all: new Float64Array(cap), n: 0, nAll: 0 };
  // Warm-up: the same session through another engine, so the measured one runs optimised code.
  pipeline(spec, rec, Math.min(count, 500_000), out).run(false);
  const p = pipeline(spec, rec, count, out);
  p.run(true);
  const withModel: number[] = [];
  const noModel: number[] = [];
  for (let i = 0; i < out.n; i++) (out.kind[i] === 1 ? withModel : noModel).push(out.ns[i]);
  const e = p.engine;
  return {
    events: e.eventsProcessed,
    sampledEvery: SAMPLE_EVERY,
    withOrder: percentiles(out.ns, out.n),
    withOrderAndModel: percentiles(withModel),
    withOrderNoModel: percentiles(noModel),
    allEvents: percentiles(out.all, out.nAll),
    timerOverheadNs: timerOverhead(),
    ordersSent: e.ordersSent,
    cancelsSent: e.cancelsSent,
    predictions: e.predictions,
    modelVersion: e.predictor?.version ?? 'none',
    includes:
      'Engine.onMarketData: book update, features, markouts, equity/risk check, model when due (every 10 ms of market time), ' +
      'market-maker decision, order risk check, order table, order message(s) written and published to the outbound ring; ' +
      'excludes thread hops, the simulated exchange and the driver',
    loadavg: loadavg(),
  };
}
