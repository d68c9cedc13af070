// The backtest driver: one trading session on one thread, as a discrete-event loop over the
// engine core. Four time-ordered streams are merged by timestamp:
//   1. market events at the exchange (EV_TS)              -> SimExchange.onMarketEvent
//   2. order messages arriving at the exchange (OM_TS)    -> SimExchange.onOrderMessage
//   3. execution reports arriving at the engine (ER_TS)   -> Trader.onExecReport
//   4. market events arriving at the engine (EV_RECV)     -> Trader.onMarketData
// Each stream is FIFO (a message never overtakes an earlier one on the same link), so a merge of
// four heads replaces a priority queue. Ties go in the order above. The market stream does not
// depend on our orders (no market impact), so the generator fills a ring ahead of both readers.
// Without the model the engine keeps no book of its own (Trader's feed 'top'): the exchange's
// book has applied the same events in the same order, and the driver hands the engine the touch
// it had after each one (`tops`, beside the ring), so each event is applied to one book, not two.

import { EV_RECV, EV_STRIDE, EV_TS, ER_STRIDE, ER_TS, OM_STRIDE, OM_TS } from '../core/events.ts';
import { RecordRing } from '../core/ring.ts';
import { hashSeed } from '../core/rng.ts';
import { FifoLink } from '../exchange/fifo-link.ts';
import type { SimExchange } from '../exchange/sim-exchange.ts';
import { buildExchange, seededLatency } from '../exchange/venue.ts';
import { MarketGenerator } from '../market/generator.ts';
import { type ContractSpec, contractForRoot } from '../market/instruments.ts';
import { sessionNsToEpochMs } from '../market/calendar.ts';
import { touchMid } from '../book/dense-book.ts';
import type { MarketSource } from '../market/source.ts';
import { openReplaySource, ThreadedSource } from '../market/source-thread.ts';
import { qualityOf } from '../market/replay/quality.ts';
import type { L3Tape } from '../exchange/l3-fifo-queue.ts';
import { createPredictor } from '../ml/inference/mlp-simd.ts';
import type { Predictor } from '../ml/inference/predictor.ts';
import { OrderLog } from './order-log.ts';
import { runMarketOnly } from './session-market.ts';
import type { SessionResult, SessionSpec } from './session-spec.ts';
import { DrawdownPath, RISK_STATE_FIELDS, RiskManager } from '../risk/risk-manager.ts';
import type { StrategyDefinition } from '../strategy/port.ts';
import { strategyByName } from '../strategy/registry.ts';
import { Trader, StrategyError } from '../trading/trader.ts';

/** Observers of what crosses each link (tests, benchmarks), called as the record is delivered. */
export interface SessionTaps {
  marketData?: (d: Float64Array, off: number, engine: Trader) => void; // about to reach the engine
  marketDataDone?: (d: Float64Array, off: number, engine: Trader) => void; // the engine has handled it
  order?: (d: Float64Array, off: number) => void; // delivered to the exchange
  report?: (d: Float64Array, off: number) => void; // delivered to the engine
}

/**
 * The market ring of a session: it holds the events in flight (the exchange has them, the engine
 * not yet). When more are in flight than it holds, it doubles, up to maxCapacity records (48 bytes
 * each; beyond, the session fails with an error naming the settings).
 */
export const MARKET_RING = { capacity: 1 << 16, maxCapacity: 1 << 22 } as const;

export interface SessionHooks {
  /** Tests: another starting and largest size of the market ring (powers of two). */
  marketRing?: { capacity: number; maxCapacity: number };
  /** Market events from this source instead of a new MarketGenerator. */
  source?: MarketSource;
  taps?: SessionTaps;
  /** Overrides the predictor built from spec.model (undefined: build it from the spec). */
  predictor?: Predictor | null;
  /** Called about every million events with the fraction of the session done and the events so far. */
  onProgress?: (fraction: number, events: number) => void;
  /**
   * Tests: 'events' makes an engine without the model keep its own book (as with the model)
   * instead of being fed the exchange's touch; the results must be the same.
   */
  engineFeed?: 'events' | 'top';
  /**
   * The definition of spec.strategy, resolved by the caller (a pool thread loads a strategy file
   * first: src/strategy/load.ts); default: this process's registry, which must hold the same hash.
   */
  strategyDef?: StrategyDefinition;
}

/** The definition a session names, from this process's registry (sync: a built-in, or a file loaded here). */
export function sessionStrategyDef(spec: SessionSpec): StrategyDefinition {
  const r = strategyByName(spec.strategy.name);
  if (!r) throw new Error(`session ${spec.root} ${spec.date}: strategy '${spec.strategy.name}' is not loaded in this process`);
  if (r.hash !== spec.strategy.hash)
    throw new Error(
      `session ${spec.root} ${spec.date}: strategy '${spec.strategy.name}' here (hash ${r.hash.slice(0, 12)}) is not the run's (hash ` +
        `${spec.strategy.hash.slice(0, 12)})`,
    );
  return r.def;
}

const GEN_BATCH = 4096;

/**
 * The predictor of a session: the spec's model when quote.useML, else none. useML without a
 * model is an error, never a silent fallback to trading without it.
 */
export function predictorForSpec(spec: SessionSpec): Predictor | null {
  if (!spec.useML) return null;
  if (!spec.model) throw new Error(`session ${spec.root} ${spec.date}: useML is set but the session spec carries no model`);
  return createPredictor(spec.model);
}

export function runSession(spec: SessionSpec, hooks: SessionHooks = {}): SessionResult {
  const contract = spec.contract ?? contractForRoot(spec.root);
  const md = RecordRing.allocate(EV_STRIDE, (hooks.marketRing ?? MARKET_RING).capacity, false);
  const om = RecordRing.allocate(OM_STRIDE, 1 << 10, false);
  const er = RecordRing.allocate(ER_STRIDE, 1 << 12, false);
  const gen: MarketSource = hooks.source ?? openMarket(spec, contract);
  try {
    if (spec.marketOnly) return runMarketOnly(spec, gen, md);
    return drive(spec, hooks, contract, gen, md, om, er);
  } catch (e) {
    if (e instanceof StrategyError) {
      throw new Error(
        `session ${spec.root} ${spec.date}: strategy ${e.strategy} threw in ${e.callback}() at exchange time ` +
          `${exchTime(spec.date, e.exchTs)}: ${e.cause instanceof Error ? e.cause.message : String(e.cause)}`,
        { cause: e.cause },
      );
    }
    throw e;
  } finally {
    gen.close?.();
  }
}

/** An exchange time (ns after New York midnight of `date`) as ISO 8601 UTC to the nanosecond, with the raw ns. */
function exchTime(date: string, ns: number): string {
  if (!(ns > 0)) return 'before the first market event';
  const ms = Math.floor(ns / 1e6);
  const iso = new Date(sessionNsToEpochMs(date, ms * 1e6)).toISOString().slice(0, 19);
  const sub = ns - Math.floor(ns / 1e9) * 1e9; // ns within the second
  return `${iso}.${String(sub).padStart(9, '0')}Z (${ns} ns after New York midnight)`;
}

function drive(
  spec: SessionSpec,
  hooks: SessionHooks,
  contract: ContractSpec,
  gen: MarketSource,
  ring: RecordRing,
  om: RecordRing,
  er: RecordRing,
): SessionResult {
  // --orders: the order log copies what crosses the order and report links (order-log.ts).
  const orderLog = spec.record?.orders ? new OrderLog() : null;
  const taps = orderLog ? withOrderLog(hooks.taps, orderLog) : (hooks.taps ?? null);
  // Separate seeded streams: the exchange side's jitter and the engine side's jitter.
  const tape = gen.tape ?? null;
  const exchange = buildExchange(spec.execution, er, hashSeed(`exchange|${spec.root}|${spec.date}`, spec.seed), tape);
  const enLatency = seededLatency(spec.execution.latency, hashSeed(`engine|${spec.root}|${spec.date}`, spec.seed));
  const mdLink = new FifoLink();
  // The session's portfolio starts at zero capital, so everything it computes is its P&L; the
  // account's equity (carry.capital + P&L) is only used by the drawdown check (see RiskManager).
  const path = new DrawdownPath();
  const riskState = RiskManager.initState(new Float64Array(RISK_STATE_FIELDS), spec.carry.capital, spec.carry.peak ?? -Infinity);
  const predictor = hooks.predictor !== undefined ? hooks.predictor : predictorForSpec(spec);
  const def = hooks.strategyDef ?? sessionStrategyDef(spec);
  // Without the model nothing in a session reads a feature but the strategy, nor the book below
  // the touch unless the strategy reads levels: then the engine is fed the exchange's touch.
  const featureScope = predictor === null && (def.features ?? 'volatility') === 'volatility' ? 'volatility' : 'all';
  const engine = new Trader({
    spec: contract,
    initialCapital: 0,
    riskState,
    drawdownPath: path,
    limits: spec.limits,
    strategy: { def, params: spec.strategy.params, seed: hashSeed(`strategy|${spec.root}|${spec.date}`, spec.seed) },
    latency: enLatency,
    orders: om,
    sessionStartNs: spec.sessionStartNs,
    sessionEndNs: spec.sessionEndNs,
    flattenMinutes: spec.flattenMinutes,
    predictor,
    sampleQuotes: spec.collectFills,
    featureScope,
    feed: featureScope === 'volatility' && def.book !== 'depth' ? (hooks.engineFeed ?? 'top') : 'events',
  });
  const fedTop = engine.feed === 'top';
  const xbook = exchange.book;

  let md = ring;
  let D = md.data;
  let mask = md.mask;
  // The exchange's touch after each event in flight: [2i] bid, [2i + 1] ask for ring slot i.
  let tops: Int32Array = new Int32Array(2 * md.capacity);
  const stride = md.stride;
  const maxRing = (hooks.marketRing ?? MARKET_RING).maxCapacity;
  const span = spec.sessionEndNs - spec.sessionStartNs;
  // The ring's cursors in locals on the per-event path (md's own are synced when it is refilled):
  // the engine's (events before it were handed to the engine), the exchange's (events before it
  // have their EV_RECV stamped) and the end of what is written.
  let rd = md.readSeq;
  let ex = rd;
  let wr = md.writeSeq;
  let nextProgress = 1 << 20;
  // The session's open mid: the first two-sided touch in `tops`, looked for where the ring is
  // refilled (every event from `scan` to the exchange's cursor still has its touch there), so
  // the per-event loop does not look.
  let openMid = Number.NaN;
  let scan = ex;
  // Quiet events (Trader.quietBounds) are counted here and handed over a run at a time
  // (takeQuiet): those from qFrom to rd. An event is quiet when its touch is the engine's
  // (qBid, qAsk) and its EV_TS < qb[0] and <= qb[1], as the engine gave them after its last
  // input. With taps that watch market events, each is handed over at once. (The bounds in a
  // typed array: hot-path rule 4.)
  const eager = taps !== null && (taps.marketData !== undefined || taps.marketDataDone !== undefined);
  const qb = new Float64Array([-Infinity, -Infinity]);
  let qBid = 0;
  let qAsk = 0;
  let qFrom = rd;
  // The strategy's next timer (engine time; Infinity: none), a fifth stream: after the others at a
  // tie. Read from the engine's slot into tT at each pass, as the other heads are, and again after
  // each input that reached the strategy or a tap (only those can arm a timer), so that the loop
  // over market events compares a local rather than loading the slot twice per event. (Not in a
  // local across passes, nor through a getter V8 does not inline here: either boxed the double at
  // every event; hot-path rule 4.)
  const tm = engine.nextTimer;

  // Each pass takes the earliest head; ties go in the stream order above (exchange market
  // event, order, report, engine market event). Handling a record changes only some heads: the
  // exchange's market events append to the reports (tEr) and stamp the engine's next market
  // event (tMd), never the orders (tOm); the engine's market events append to the orders only.
  // So market events at both ends are merged in an inner loop that refreshes only those heads,
  // and most events (no order or report in flight) never go back through the outer pass.
  for (;;) {
    if (ex === wr && !gen.done) {
      if (openMid !== openMid) {
        openMid = firstMid(tops, mask, scan, ex);
        scan = ex;
      }
      md.advance((rd - md.readSeq) | 0);
      md.release();
      if (md.free() === 0) {
        // Every event in the ring is in flight. The exchange's next one must be read before the
        // engine goes on (it may come first), so the ring grows: the events are needed, and
        // going on without them would hand the exchange orders ahead of earlier market events.
        const grown = growMarketRing(spec, md, tape, maxRing);
        tops = grownTops(tops, md, grown);
        md = grown;
        D = md.data;
        mask = md.mask;
      }
      const room = md.free();
      if (room > 0) gen.generate(md, room < GEN_BATCH ? room : GEN_BATCH);
      wr = md.writeSeq;
    }
    let tEx = ex !== wr ? D[(ex & mask) * stride + EV_TS] : Infinity;
    let tMd = rd !== ex ? D[(rd & mask) * stride + EV_RECV] : Infinity;
    if (tEx === Infinity && tMd === Infinity) break;
    let tOm = om.availableSameThread() > 0 ? om.data[om.peek() + OM_TS] : Infinity;
    let tEr = er.availableSameThread() > 0 ? er.data[er.peek() + ER_TS] : Infinity;
    let tT = tm[0];

    if (tT < tEx && tT < tOm && tT < tEr && tT < tMd) {
      engine.onTimer(); // at tT
      engine.quietBounds(qb); // a timer moves no touch: qBid and qAsk stand
    } else if (tOm < tEx && tOm <= tEr && tOm <= tMd) {
      if (taps?.order) taps.order(om.data, om.peek());
      exchange.onOrderMessage(om.data, om.peek());
      om.advance();
      om.release();
    } else if (tEr < tEx && tEr < tOm && tEr <= tMd) {
      if (taps?.report) taps.report(er.data, er.peek());
      engine.onExecReport(er.data, er.peek());
      engine.quietBounds(qb); // a report moves no touch: qBid and qAsk stand
      er.advance();
      er.release();
    } else {
      // Market events at the exchange and at the engine, until a message is due or the ring
      // needs refilling.
      for (;;) {
        if (tEx <= tMd) {
          if (tEx > tOm || tEx > tEr || tEx > tT) break;
          const off = (ex & mask) * stride;
          D[off + EV_RECV] = tEx + enLatency.marketData(D, off + EV_TS);
          mdLink.arrive(D, off + EV_RECV);
          if (tape !== null) tape.cur = ex;
          const reported = exchange.onMarketEvent(D, off);
          const t = (ex & mask) << 1;
          tops[t] = xbook.bestBid;
          tops[t + 1] = xbook.bestAsk;
          ex = (ex + 1) | 0;
          if (ex === wr) break;
          tEx = D[(ex & mask) * stride + EV_TS];
          if (tMd === Infinity) tMd = D[(rd & mask) * stride + EV_RECV];
          if (reported && tEr === Infinity) tEr = er.data[er.peek() + ER_TS];
        } else {
          if (tMd >= tOm || tMd >= tEr || tMd > tT) break;
          const off = (rd & mask) * stride;
          const t = (rd & mask) << 1;
          const ts = D[off + EV_TS];
          const quiet = tops[t] === qBid && tops[t + 1] === qAsk && ts < qb[0] && ts <= qb[1];
          if (quiet && !eager) rd = (rd + 1) | 0;
          else {
            if (rd !== qFrom) engine.takeQuiet((rd - qFrom) | 0, D, ((rd - 1) & mask) * stride);
            if (taps !== null && taps.marketData) taps.marketData(D, off, engine);
            if (quiet) engine.takeQuiet(1, D, off);
            else if (fedTop) engine.onMarketTop(D, off, tops[t], tops[t + 1]);
            else engine.onMarketData(D, off);
            if (taps !== null && taps.marketDataDone) taps.marketDataDone(D, off, engine);
            rd = (rd + 1) | 0;
            qFrom = rd;
            if (!quiet) {
              engine.quietBounds(qb);
              qBid = engine.bestBid;
              qAsk = engine.bestAsk;
              // A quiet event sends nothing: only the others can have appended an order.
              if (tOm === Infinity && om.availableSameThread() > 0) tOm = om.data[om.peek() + OM_TS];
            }
            tT = tm[0]; // the strategy, or a tap, may have armed a timer
            if (engine.eventsProcessed >= nextProgress) {
              nextProgress += 1 << 20;
              hooks.onProgress?.((engine.lastExchTs - spec.sessionStartNs) / span, engine.eventsProcessed);
            }
          }
          if (rd !== ex) tMd = D[(rd & mask) * stride + EV_RECV];
          else if (tEx === Infinity) break;
          else tMd = Infinity;
        }
      }
      // The quiet run so far, before anything else reaches the engine or the ring moves on.
      if (rd !== qFrom) {
        engine.takeQuiet((rd - qFrom) | 0, D, ((rd - 1) & mask) * stride);
        qFrom = rd;
      }
    }
  }
  try {
    engine.finish(spec.sessionEndNs);
  } catch (e) {
    throw new Error(`session ${spec.root} ${spec.date}: ${(e as Error).message}`);
  }
  if (openMid !== openMid) openMid = firstMid(tops, mask, scan, ex);
  const result = withQuality(sessionResult(spec, engine, exchange, path, openMid), gen, exchange, spec.sessionEndNs);
  // Only when asked: a result without them is byte for byte what it was (the pinned digests).
  if (orderLog) result.orderLog = orderLog.rows();
  if (spec.record?.quotePositions && spec.collectFills) result.quotePositions = engine.quotes.positions();
  return result;
}

/** A recorded session's result gets its data-quality counters, the exchange's among them. */
function withQuality(r: SessionResult, gen: MarketSource, x: SimExchange, endNs: number): SessionResult {
  const counts = gen.qualityCounts?.();
  if (!counts) return r;
  const q = qualityOf(counts);
  q.crossed_ns = x.crossedNsAt(endNs);
  q.phase_changes = x.phaseChanges;
  return { ...r, dataQuality: q };
}

function openMarket(spec: SessionSpec, contract: ContractSpec): MarketSource {
  const start = spec.sessionStartNs;
  const end = spec.sessionEndNs;
  if (spec.replay) return openReplaySource(spec.replay, start, end);
  if (spec.generatorThread)
    return new ThreadedSource(
      { kind: 'synthetic', root: spec.root, contract: spec.contract, date: spec.date, seed: spec.seed, activity: spec.activity },
      start,
      end,
    );
  return new MarketGenerator(contract, spec.date, spec.seed, { sessionStartNs: start, sessionEndNs: end, activity: spec.activity });
}

function growMarketRing(spec: SessionSpec, md: RecordRing, tape: L3Tape | null, maxRing: number): RecordRing {
  if (md.capacity * 2 > maxRing) {
    throw new Error(
      `session ${spec.root} ${spec.date}: more than ${md.capacity} market events in flight at once (seen by the exchange, not yet by the engine, ` +
        `within latency.market_data_latency_ns = ${spec.execution.latency.marketDataLatencyNs}); a backtest holds at most ${md.capacity}: ` +
        `lower latency.market_data_latency_ns or simulation.activity`,
    );
  }
  const grown = md.grown();
  if (tape !== null && tape.mask + 1 < grown.capacity) tape.grow(grown.capacity, grown.readSeq, grown.writeSeq);
  return grown;
}

/** The touches of the events in flight, at their slots in the grown ring (as RecordRing.grown moves them). */
/** The caller's taps, if any, with the order log's on the order and report links. */
function withOrderLog(t: SessionTaps | undefined, log: OrderLog): SessionTaps {
  const order = t?.order;
  const report = t?.report;
  return {
    ...t,
    order: (d, off) => {
      order?.(d, off);
      log.message(d, off);
    },
    report: (d, off) => {
      report?.(d, off);
      log.report(d, off);
    },
  };
}

function grownTops(tops: Int32Array, from: RecordRing, to: RecordRing): Int32Array {
  const out = new Int32Array(2 * to.capacity);
  for (let s = from.readSeq; s !== from.writeSeq; s = (s + 1) | 0) {
    out[(s & to.mask) << 1] = tops[(s & from.mask) << 1];
    out[((s & to.mask) << 1) + 1] = tops[((s & from.mask) << 1) + 1];
  }
  return out;
}

/** The mid of the first two-sided touch of ring slots from..to (NaN: none). */
function firstMid(tops: Int32Array, mask: number, from: number, to: number): number {
  for (let s = from; s !== to; s = (s + 1) | 0) {
    const m = touchMid(tops[(s & mask) << 1], tops[((s & mask) << 1) + 1]);
    if (m === m) return m;
  }
  return Number.NaN;
}

function sessionResult(spec: SessionSpec, e: Trader, x: SimExchange, path: DrawdownPath, openMid: number): SessionResult {
  const p = e.portfolio;
  const mark = e.markTicks;
  return {
    date: spec.date,
    carryIn: { ...spec.carry },
    eventsProcessed: e.eventsProcessed,
    ordersSent: e.ordersSent,
    cancelsSent: e.cancelsSent,
    rejects: e.rejects,
    cancelRejects: e.cancelRejects,
    riskRejects: e.risk.rejected,
    blockedRequotes: e.risk.blockedRequotes,
    selfMatchPrevented: x.selfMatchPrevented,
    fills: p.fills,
    zeroAheadFills: x.zeroAheadFills,
    volume: p.volume,
    feesPaid: p.feesPaid,
    realizedPnl: p.realizedPnl,
    unrealizedPnl: p.position === 0 ? 0 : p.unrealized(mark),
    finalPosition: p.position,
    maxAbsPosition: p.maxAbsPosition,
    finalMidTicks: mark,
    openMidTicks: openMid,
    trades: { ...p.trades },
    markouts: e.markouts.sums(),
    pnlTimes: Array.from(e.equity.timesView()),
    pnlValues: Array.from(e.equity.valuesView()),
    maxDrawdownFrac: e.risk.maxDrawdownFrac,
    drawdownPath: path.toJSON(),
    killSwitch: { tripped: e.risk.killed, reason: e.risk.killReason, ts: e.risk.killTs, pnl: e.risk.killValue },
    alerts: e.risk.alerts.items.slice(),
    predictions: e.predictions,
    fillColumns: spec.collectFills ? e.fills.columns() : null,
    quotes: spec.collectFills ? e.quotes.series() : null,
  };
}
