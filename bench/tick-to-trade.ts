// Tick-to-trade in one thread, with the model: the time from a market-data event entering
// Trader.onMarketData to the order decision leaving it (its order message(s) written to the
// outbound ring and published), for the events that produced an order message (a new order or
// a cancel). Measured with process.hrtime.bigint() around the call, on 1 event in SAMPLE_EVERY
// (the timer costs ~50-100 ns a read, so not every event is stamped); the timer's own cost
// (two back-to-back reads) is reported next to the figures, which include it.
//
// What one sample includes: the local book update, incremental features, markouts, the equity /
// risk check, the model (createPredictor's, as the engine runs it: the SIMD kernel; when due:
// every 10 ms of market time, so only some events run it; both kinds are reported apart), the
// market maker's decision, the risk check of the order, the order-table update and the message written to the ring. It excludes transport (no
// thread hop: see cross-thread.ts), the simulated exchange and the driver's merge of streams.
//
// The driver below is the backtest driver's merge (src/backtest/session.ts) with the engine in
// reach, over a recorded session, with the simulated exchange answering, so orders are acked,
// filled and cancelled as in a real session.

import { createPredictor } from '../src/ml/inference/mlp-simd.ts';
import { runSession, type SessionTaps } from '../src/backtest/session.ts';
import type { SessionSpec } from '../src/backtest/session-spec.ts';
import { ReplaySource } from '../src/market/replay-source.ts';
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

type Samples = { ns: Float64Array; kind: Uint8Array; all: Float64Array; n: number; nAll: number };

/**
 * One backtest session over `rec` (the real driver, runSession), with Trader.onMarketData timed
 * on 1 event in SAMPLE_EVERY when `out` is given; returns the engine's counters.
 */
function session(
  spec: SessionSpec,
  rec: Recording,
  count: number,
  out: Samples | null,
): { ordersSent: number; cancelsSent: number; predictions: number; events: number } {
  if (!spec.model) throw new Error('tick-to-trade: the spec carries no model');
  let k = 0;
  let timing = false;
  let sent = 0;
  let preds = 0;
  let t0 = 0n;
  const taps: SessionTaps | undefined = out
    ? {
        marketData(_d, _off, e) {
          timing = (++k & (SAMPLE_EVERY - 1)) === 0;
          if (!timing) return;
          sent = e.ordersSent + e.cancelsSent;
          preds = e.predictions;
          t0 = process.hrtime.bigint();
        },
        marketDataDone(_d, _off, e) {
          if (!timing) return;
          const ns = Number(process.hrtime.bigint() - t0);
          if (out.nAll < out.all.length) out.all[out.nAll++] = ns;
          if (e.ordersSent + e.cancelsSent !== sent && out.n < out.ns.length) {
            out.kind[out.n] = e.predictions !== preds ? 1 : 0;
            out.ns[out.n++] = ns;
          }
        },
      }
    : undefined;
  const r = runSession(spec, { source: new ReplaySource(rec.events, count), predictor: createPredictor(spec.model), taps });
  return { ordersSent: r.ordersSent, cancelsSent: r.cancelsSent, predictions: r.predictions, events: r.eventsProcessed };
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
  session(spec, rec, Math.min(count, 500_000), null);
  const e = session(spec, rec, count, out);
  const withModel: number[] = [];
  const noModel: number[] = [];
  for (let i = 0; i < out.n; i++) (out.kind[i] === 1 ? withModel : noModel).push(out.ns[i]);
  return {
    events: e.events,
    sampledEvery: SAMPLE_EVERY,
    withOrder: percentiles(out.ns, out.n),
    withOrderAndModel: percentiles(withModel),
    withOrderNoModel: percentiles(noModel),
    allEvents: percentiles(out.all, out.nAll),
    timerOverheadNs: timerOverhead(),
    ordersSent: e.ordersSent,
    cancelsSent: e.cancelsSent,
    predictions: e.predictions,
    modelVersion: spec.model?.modelVersion ?? 'none',
    includes:
      'Trader.onMarketData: book update, features, markouts, equity/risk check, model when due (every 10 ms of market time), ' +
      'market-maker decision, order risk check, order table, order message(s) written and published to the outbound ring; ' +
      'excludes thread hops, the simulated exchange and the driver',
    loadavg: loadavg(),
  };
}
