// Order-book worker (simulation mode): the trading engine for every symbol. It consumes market
// data and execution reports from the shared rings only once the simulated clock reaches their
// receive time (so the engine never acts on data it could not have yet), and publishes orders,
// fills, latency samples, the feature vector for the inference worker and a state snapshot.
// A session roll or a restart arrives as an MD_RESET record: the engine is rebuilt around the
// shared portfolio and risk state, so position, P&L and the kill switch carry over.

import { parentPort, workerData } from 'node:worker_threads';
import { BID, ER_TS, EV_KIND, EV_PRICE, EV_RECV, EV_TS, LIQ_MAKER, MD_RESET } from '../src/core/events.ts';
import { RecordRing } from '../src/core/ring.ts';
import { hashSeed } from '../src/core/rng.ts';
import { seededLatency } from '../src/exchange/venue.ts';
import { MODEL_EVERY_NS } from '../src/ml/inference/predictor.ts';
import { Portfolio } from '../src/portfolio/portfolio.ts';
import { Seqlock } from '../src/shm/seqlock.ts';
import {
  CB_FAULT_FILL,
  CB_GEN_ACK,
  CB_HB_OB,
  CB_STOP,
  CB_WAKE_MD,
  CB_WAKE_OB,
  EV_WALL,
  FR_EXCH_TS,
  FR_FEE,
  FR_ID,
  FR_LIQ,
  FR_PNL,
  FR_POSITION,
  FR_PRICE,
  FR_QTY,
  FR_RECV_TS,
  FR_SENT_TS,
  FR_SESSION,
  FR_SIDE,
  FT_TS,
  LAT_SECONDS,
  LAT_STAGE,
  MAX_LOTS,
  PR_COUNT,
  PR_FIELDS,
  PR_TS,
  PR_VALUE,
  STAGE_BOOK_UPDATE,
  STAGE_TICK_TO_TRADE,
  type SymbolMemory,
} from '../src/runtime/layout.ts';
import { checkStallFault } from '../src/runtime/layout.ts';
import { FillJournal, type Recovery } from '../src/runtime/fill-journal.ts';
import { CT, writeSnapshot } from '../src/runtime/snapshot.ts';
import { latencyParams, riskLimits } from '../src/config/derive.ts';
import { quoteParams } from '../src/strategy/setup.ts';
import { loadStrategies } from '../src/strategy/load.ts';
import { configuredStrategy } from '../src/strategy/setup.ts';
import type { StrategyError } from '../src/trading/trader.ts';
import { simClock, specOf, type WorkerInit } from '../src/runtime/worker-config.ts';
import { setThreadTimerSlack, WORKER_TIMER_SLACK_NS } from '../src/runtime/timer-slack.ts';
import { BurstWakes, wakeMaxDeferMs } from '../src/runtime/burst-wake.ts';
import { wallMs } from '../src/runtime/wall-clock.ts';
import { Trader } from '../src/trading/trader.ts';
import { OrderPathWarmer } from '../src/trading/order-path-warmer.ts';

const init = workerData as WorkerInit;
setThreadTimerSlack(WORKER_TIMER_SLACK_NS);
const cfg = init.config;
const ctl = new Int32Array(init.layout.control);
const clock = simClock(init);
const SNAPSHOT_EVERY_MS = 50;
/** Engine thread restarts that trip the kill switch (docs/architecture.md, "Supervision"). */
const RESTART_KILL_LIMIT = 3;
const BOOK_SAMPLE_MASK = 15; // time one market event in 16
// A thread that spins (simulation.engine_idle spin or busy_poll) keeps its order path warm while
// it waits (OrderPathWarmer); one that blocks cannot without waking early, i.e. spinning.
const WARM = init.spinUs > 0;
// The strategy this thread runs: the config's, its files compiled here as in the main thread
// (the main thread checked them at start; a file changed since gives another hash, refused).
await loadStrategies(cfg.strategy.files);
const STRATEGY = configuredStrategy(cfg);
if (init.strategyHash !== undefined && STRATEGY.hash !== init.strategyHash) {
  throw new Error(
    `strategy '${STRATEGY.def.name}' changed on disk since the engine started (hash ${STRATEGY.hash.slice(0, 12)}, was ` +
      `${init.strategyHash.slice(0, 12)}): restart the engine to use the new version`,
  );
}

/** One traded symbol of this thread: its rings, portfolio, journal and the Trader that trades it. */
class SymbolDriver {
  readonly mem: SymbolMemory;
  private readonly md: RecordRing;
  private readonly er: RecordRing;
  private readonly om: RecordRing;
  private readonly fills: RecordRing;
  private readonly lat: RecordRing;
  private readonly snapshot: Seqlock;
  private readonly features: Seqlock;
  private readonly prediction: Seqlock;
  private readonly portfolio: Portfolio;
  private readonly riskState: Float64Array;
  /** Books each report exactly once, across a crash of this thread. */
  private readonly journal: FillJournal;
  /** What this thread found of its predecessor's last booking. */
  private readonly recovery: Recovery;
  /** The fills ring's head before the booking in progress (the fault hook's test). */
  private fillsBefore = 0;
  /** Runs the order path on a shadow engine while this thread waits (only when it spins). */
  private readonly warmer: OrderPathWarmer | null;
  engine: Trader | null = null;
  private session = -1;
  private sessionStartNs = 0;
  /** The thread's counters (CT), in shared memory: a restarted thread continues them. */
  private readonly counters: Float64Array;
  /** CT.EVENTS..CT.SELF_MATCH before the current engine: earlier sessions and threads. */
  private readonly base: Float64Array;
  private fillsWritten = 0;
  private alertsPublished = 0;
  private predictionSeen = 0;
  private nextFeaturesTs = 0;
  private readonly pred = new Float64Array(PR_FIELDS);
  private readonly scratch = { prices: new Float64Array(15), sizes: new Float64Array(15) };
  private firstEngine = true;
  /** The strategy's error, once it threw (it is not run again). */
  private strategyFailed: StrategyError | null = null;
  /** Engine time of the oldest input received but not yet due (Infinity: none). */
  nextDue = Infinity;
  /** This symbol's inference wake among the burst's wakes. */
  private readonly inferenceWake: number;

  constructor(mem: SymbolMemory, inferenceWake: number) {
    this.mem = mem;
    this.inferenceWake = inferenceWake;
    this.md = new RecordRing(mem.md);
    this.er = new RecordRing(mem.er);
    this.om = new RecordRing(mem.om);
    this.fills = new RecordRing(mem.fills);
    this.lat = new RecordRing(mem.latEngine);
    this.snapshot = new Seqlock(mem.snapshot);
    this.features = new Seqlock(mem.features);
    this.prediction = new Seqlock(mem.prediction);
    const spec = specOf(mem.root, init.config);
    this.portfolio = new Portfolio(cfg.trading.initial_capital, spec.tickValue, MAX_LOTS, mem.portfolio);
    this.riskState = new Float64Array(mem.risk);
    this.counters = new Float64Array(mem.counters);
    this.base = this.counters.slice(0, CT.SELF_MATCH + 1);
    this.journal = new FillJournal(mem.journal, this.portfolio, [this.riskState, this.counters]);
    this.recovery = this.journal.recover(this.er, this.fills);
    this.warmer = WARM
      ? new OrderPathWarmer({
          spec,
          initialCapital: cfg.trading.initial_capital,
          limits: riskLimits(cfg),
          quote: quoteParams(cfg),
          latency: latencyParams(cfg),
          flattenMinutes: cfg.strategy.flatten_minutes,
        })
      : null;
  }

  /** Warms the order path (see OrderPathWarmer); only called when WARM. */
  warm(): void {
    this.warmer!.run();
  }

  /** A new engine for session k (a session roll, or this thread's first engine after a restart). */
  private startEngine(k: number): void {
    const old = this.engine;
    if (old) this.addTotals(old);
    const { startNs, endNs } = clock.sessionBounds(k);
    const seed = hashSeed(`live-engine|${this.mem.symbol}|${init.generation}|${k}`, cfg.simulation.seed);
    const e = new Trader({
      spec: specOf(this.mem.root, init.config),
      initialCapital: cfg.trading.initial_capital,
      limits: riskLimits(cfg),
      strategy: {
        def: STRATEGY.def,
        params: STRATEGY.params,
        seed: hashSeed(`live-strategy|${this.mem.symbol}|${init.generation}|${k}`, cfg.simulation.seed),
        state: new Float64Array(this.mem.strategyState, 0, STRATEGY.def.stateSlots ?? 0),
      },
      // A strategy that throws stops quoting (its orders cancelled, a STRATEGY_ERROR alert); the engine and the API stay up.
      strategyErrors: 'stop',
      latency: seededLatency(latencyParams(cfg), seed),
      orders: this.om,
      sessionStartNs: startNs,
      sessionEndNs: endNs,
      flattenMinutes: cfg.strategy.flatten_minutes,
      predictor: null, // predictions come from the inference worker
      portfolio: this.portfolio,
      riskState: this.riskState,
      day: k,
      openingMarkTicks: old ? old.markTicks : NaN,
      // Ids unique per generation and session: never reuse an id the exchange may still know.
      firstOrderId: init.generation * 1e9 + k * 1e6 + 1,
    });
    // A strategy that failed stays stopped for the rest of this thread's life (a new session does not retry it).
    if (this.strategyFailed !== null) e.failed = this.strategyFailed;
    else if (old?.failed) e.failed = this.strategyFailed = old.failed;
    if (this.firstEngine && init.generation > 0) {
      const now = clock.nowNs(wallMs());
      const booking =
        this.recovery === 'clean'
          ? ''
          : this.recovery === 'rolled back'
            ? '; a fill being booked when an engine thread died was rolled back and is booked again'
            : '; a fill booked when an engine thread died was published';
      e.alert(
        now,
        'critical',
        'ENGINE_RESTART',
        `engine thread restarted (restart ${init.restarts}); its open orders were cancelled at the exchange${booking}`,
        init.restarts,
        RESTART_KILL_LIMIT,
      );
      this.journal.reported();
      // At the restart's simulated time; trips once (the state is shared): later restarts do not repeat it.
      if (init.restarts >= RESTART_KILL_LIMIT) e.kill(now, 'ENGINE_RESTARTS', `${init.restarts} engine thread restarts`);
    }
    this.firstEngine = false;
    this.engine = e;
    this.session = k;
    this.sessionStartNs = startNs;
    this.alertsPublished = 0;
    this.fillsWritten = 0;
    this.nextFeaturesTs = 0;
  }

  private addTotals(e: Trader): void {
    this.storeTotals(e);
    this.base.set(this.counters.subarray(0, CT.SELF_MATCH + 1));
  }

  /** The engine's counts on top of the base, into the shared counters. */
  private storeTotals(e: Trader): void {
    const c = this.counters;
    const b = this.base;
    c[CT.EVENTS] = b[CT.EVENTS] + e.eventsProcessed;
    c[CT.ORDERS] = b[CT.ORDERS] + e.ordersSent;
    c[CT.CANCELS] = b[CT.CANCELS] + e.cancelsSent;
    c[CT.REJECTS] = b[CT.REJECTS] + e.rejects;
    c[CT.RISK_REJECTS] = b[CT.RISK_REJECTS] + e.risk.rejected;
    c[CT.BLOCKED_REQUOTES] = b[CT.BLOCKED_REQUOTES] + e.risk.blockedRequotes;
    c[CT.SELF_MATCH] = b[CT.SELF_MATCH] + e.selfMatchCancels;
  }

  /** Processes every input due by `now` in time order; returns how many. */
  pump(now: number): number {
    const md = this.md;
    const er = this.er;
    let n = 0;
    let booked = false;
    for (;;) {
      const tMd = md.available() > 0 ? md.data[md.peek() + EV_RECV] : Infinity;
      // Reports wait until there is an engine to book them (after a restart, the snapshot first).
      const tEr = this.engine !== null && er.available() > 0 ? er.data[er.peek() + ER_TS] : Infinity;
      // The strategy's timers, on the engine's clock, after market data and reports at a tie (as in a backtest).
      const tTm = this.engine !== null ? this.engine.nextTimerAt : Infinity;
      this.nextDue = tEr < tMd ? tEr : tMd;
      if (tTm < this.nextDue) this.nextDue = tTm;
      if (tTm < tEr && tTm < tMd) {
        if (tTm > now) break;
        const e = this.engine!;
        const sent = e.ordersSent + e.cancelsSent;
        e.onTimer();
        booked = true;
        if (e.ordersSent + e.cancelsSent !== sent) askMdWake(wallMs());
      } else if (tEr <= tMd) {
        if (tEr > now) break;
        const e = this.engine!;
        const sent = e.ordersSent + e.cancelsSent;
        this.fillsBefore = this.fills.writeSeq;
        this.journal.book(er, this.fills, this.applyReport, this.fault);
        booked = true;
        if (e.ordersSent + e.cancelsSent !== sent) askMdWake(wallMs());
      } else {
        if (tMd > now) break;
        const off = md.peek();
        const d = md.data;
        if (d[off + EV_KIND] === MD_RESET) {
          this.startEngine(d[off + EV_PRICE]);
        } else {
          const e = this.engine;
          // Events of an earlier session still in flight at a roll are not this engine's.
          if (e !== null && d[off + EV_TS] >= this.sessionStartNs) this.onMarket(e, d, off);
        }
        md.advance();
        n++;
      }
    }
    if (n > 0) md.release();
    const e = this.engine;
    if (e !== null && n > 0) this.exchangeWithInference(e);
    if (e !== null && (n > 0 || booked)) this.storeTotals(e);
    return n;
  }

  private onMarket(e: Trader, d: Float64Array, off: number): void {
    const sent = e.ordersSent + e.cancelsSent;
    const t0 = wallMs();
    e.onMarketData(d, off);
    if (e.ordersSent + e.cancelsSent !== sent) {
      // Tick-to-trade: from the moment this thread could first act on the event (published by
      // the market-data thread and due at its receive time) to the order message published.
      const after = wallMs();
      const due = clock.wallMsAt(d[off + EV_RECV], this.session);
      const from = d[off + EV_WALL] > due ? d[off + EV_WALL] : due;
      this.sample(STAGE_TICK_TO_TRADE, (after - from) / 1000);
      askMdWake(after);
    } else if ((e.eventsProcessed & BOOK_SAMPLE_MASK) === 0) {
      this.sample(STAGE_BOOK_UPDATE, (wallMs() - t0) / 1000);
    }
  }

  private sample(stage: number, seconds: number): void {
    const off = this.lat.claim();
    if (off < 0) {
      this.lat.countDrop();
      return;
    }
    this.lat.data[off + LAT_STAGE] = stage;
    this.lat.data[off + LAT_SECONDS] = seconds;
    this.lat.publish();
  }

  /** The journal's booking step: the engine books the report at the head of the er ring. */
  private readonly applyReport = (): void => {
    const e = this.engine!;
    e.onExecReport(this.er.data, this.er.peek());
    this.writeFills(e);
  };

  /** Test hook (injectFault 'crash-mid-fill'): the thread dies at the requested step of a booking that filled. */
  private readonly fault = (step: number): void => {
    if (Atomics.load(ctl, CB_FAULT_FILL) !== step || this.fills.writeSeq === this.fillsBefore) return;
    Atomics.store(ctl, CB_FAULT_FILL, 0);
    process.exit(70);
  };

  /** Writes the engine's new fills into the fills ring, unpublished (and counts them by side and liquidity). */
  private writeFills(e: Trader): void {
    const log = e.fills;
    while (this.fillsWritten < log.length) {
      const i = this.fillsWritten++;
      const side = log.get('side', i);
      const maker = log.get('liq', i) === LIQ_MAKER;
      this.counters[side === BID ? (maker ? CT.BUY_MAKER : CT.BUY_TAKER) : maker ? CT.SELL_MAKER : CT.SELL_TAKER]++;
      const off = this.fills.claim();
      if (off < 0) {
        this.fills.countDrop();
        continue;
      }
      const f = this.fills.data;
      f[off + FR_EXCH_TS] = log.get('exchTs', i);
      f[off + FR_RECV_TS] = log.get('recvTs', i);
      f[off + FR_SENT_TS] = log.get('sentTs', i);
      f[off + FR_ID] = log.get('orderId', i);
      f[off + FR_SIDE] = side;
      f[off + FR_PRICE] = log.get('price', i);
      f[off + FR_QTY] = log.get('qty', i);
      f[off + FR_LIQ] = log.get('liq', i);
      f[off + FR_FEE] = log.get('fee', i);
      f[off + FR_POSITION] = log.get('position', i);
      f[off + FR_PNL] = log.get('tradePnl', i);
      f[off + FR_SESSION] = this.session;
    }
  }

  /** Feature vector out to the inference worker; its latest prediction in. */
  private exchangeWithInference(e: Trader): void {
    if (e.lastExchTs >= this.nextFeaturesTs && e.features.ready) {
      const s = this.features;
      s.beginWrite();
      s.data.set(e.features.values);
      s.data[FT_TS] = e.lastExchTs;
      s.endWriteQuiet();
      wakes.ask(this.inferenceWake, wallMs());
      this.nextFeaturesTs = e.lastExchTs + MODEL_EVERY_NS; // the feature vector, and so the model, as in a backtest
    }
    const v = this.prediction.version;
    if (v !== this.predictionSeen && (v & 1) === 0) {
      this.predictionSeen = this.prediction.read(this.pred);
      e.setPrediction(this.pred[PR_VALUE], this.pred[PR_TS], this.pred[PR_COUNT]);
    }
  }

  /** Wakes the inference worker if it sleeps on this symbol's feature slot. */
  wakeInference(): void {
    this.features.wakeReaders();
  }

  /** Snapshot for the main thread, and alerts as messages (rare, so postMessage is fine). */
  publish(): void {
    const e = this.engine;
    if (!e) return;
    const s = this.snapshot; // the counters are current: pump() stores them after any input
    s.beginWrite();
    writeSnapshot(s.data, e, this.session, this.counters, this.scratch);
    s.endWrite();
    if (e.alertCount > this.alertsPublished) {
      const fresh = e.alertsSince(this.alertsPublished);
      this.alertsPublished = e.alertCount;
      for (const a of fresh) parentPort?.postMessage({ type: 'alert', symbol: this.mem.symbol, session: this.session, alert: a });
    }
  }
}

// The engine thread's wakes of the market-data thread (after orders) and of the inference worker
// (after a feature vector), sent once a burst of inputs is over (src/runtime/burst-wake.ts says why).
const WAKE_MD = 0; // then one inference wake per symbol
const wakes = new BurstWakes(1 + init.layout.symbols.length, wakeMaxDeferMs(cfg.latency.order_latency_ns, clock.speed), (target) => {
  if (target === WAKE_MD) Atomics.notify(ctl, CB_WAKE_MD);
  else drivers[target - 1].wakeInference();
});

/** Orders are in the ring (at wall ms `wallNow`): the market-data thread sees the bumped word at once, and its wake goes with the burst's. */
function askMdWake(wallNow: number): void {
  Atomics.add(ctl, CB_WAKE_MD, 1);
  wakes.ask(WAKE_MD, wallNow);
}

const drivers = init.layout.symbols.map((m, i) => new SymbolDriver(m, WAKE_MD + 1 + i));

// A restarted engine waits until the market-data thread has cancelled its predecessor's orders
// and queued a book snapshot for it.
while (Atomics.load(ctl, CB_GEN_ACK) < init.generation && Atomics.load(ctl, CB_STOP) === 0) {
  Atomics.add(ctl, CB_HB_OB, 1);
  Atomics.wait(ctl, CB_GEN_ACK, Atomics.load(ctl, CB_GEN_ACK), 20);
}

const lastSnapshot = new Float64Array(1); // wall ms of the last snapshot published
// Idle policy (simulation.engine_idle): spinUs 0 blocks in Atomics.wait; spinUs > 0 sleeps until
// spinUs before the next input is due and spins the rest; Infinity (busy_poll) never sleeps.
// A spinning thread (WARM) wakes WARM_LEAD_MS earlier to warm the order path once before each
// input, and again every WARM_EVERY_MS of a longer spin, but never within WARM_MIN_MS of the due
// time (a run takes ~2 µs warm, up to ~20 µs cold).
const WARM_LEAD_MS = WARM ? 0.05 : 0;
const WARM_EVERY_MS = 1;
const WARM_MIN_MS = 0.03;
// A spin returns to step() at least this often: heartbeat, snapshots and the stop flag.
const MAX_SPIN_MS = 1;
const warmAt = new Float64Array([-Infinity]); // wall ms of the last warm-up; -Infinity once an input was handled

/** Engine time of the earliest input received and not yet due, over every symbol (Infinity: none). */
function nextDue(): number {
  let due = drivers[0].nextDue;
  for (let i = 1; i < drivers.length; i++) due = Math.min(due, drivers[i].nextDue);
  return due;
}

/** Sends the wakes asked for unless the next input is due within the burst window (and they have not waited too long). */
function flushWakes(): void {
  const t = wallMs();
  wakes.flush((nextDue() - clock.nowNs(t)) / 1e6 / clock.speed, t);
}

/**
 * One pass of the engine thread: every input due, a snapshot when one is due, and when idle,
 * the wait for the next input. A function per pass rather than module top-level code, which V8
 * compiles only by on-stack replacement.
 */
function step(): void {
  Atomics.add(ctl, CB_HB_OB, 1);
  checkStallFault(ctl, 'order-book');
  // Read before looking at the rings: input published after this read makes the wait return at once.
  const seen = Atomics.load(ctl, CB_WAKE_OB);
  const wallNow = wallMs();
  const now = clock.nowNs(wallNow);
  let work = 0;
  for (let i = 0; i < drivers.length; i++) work += drivers[i].pump(now);
  if (wakes.waiting) flushWakes();
  if (wallNow - lastSnapshot[0] >= SNAPSHOT_EVERY_MS) {
    lastSnapshot[0] = wallNow;
    for (let i = 0; i < drivers.length; i++) drivers[i].publish();
  }
  if (work > 0) {
    warmAt[0] = -Infinity;
    return;
  }
  // Idle. The market-data thread publishes events ahead of their receive time, so the next
  // input is usually already here, not yet due: sleep until spinUs (and the warm-up's lead)
  // before it is due (a timed wait wakes some 25 µs late even with this thread's 1 ns timer
  // slack), then spin to it, warming the order path, so that the engine is running with its
  // order path in the caches when the input is due. With nothing pending, spin-poll for new
  // input (an execution report) for spinUs, then block until a producer wakes us.
  const due = nextDue();
  const untilDueMs = (due - now) / 1e6 / clock.speed;
  const spinMs = init.spinUs / 1000;
  if (untilDueMs <= spinMs + WARM_LEAD_MS) {
    // The spin runs here rather than through step(): a pass per spin would read the rings, the
    // clock and the snapshot timer millions of times a second.
    const dueWall = wallNow + untilDueMs;
    const spinEnd = Math.min(dueWall, wallNow + MAX_SPIN_MS);
    while (Atomics.load(ctl, CB_WAKE_OB) === seen) {
      const t = wallMs();
      if (t >= spinEnd) return;
      if (WARM && t - warmAt[0] >= WARM_EVERY_MS && dueWall - t >= WARM_MIN_MS) {
        for (let i = 0; i < drivers.length; i++) drivers[i].warm();
        warmAt[0] = t;
      }
    }
    return;
  }
  if (due === Infinity) {
    const spinUntil = wallMs() + spinMs;
    while (Atomics.load(ctl, CB_WAKE_OB) === seen && wallMs() < spinUntil) {
      /* spin-poll */
    }
  }
  wakes.sendAll(); // never sleep on a wake not sent
  if (Atomics.load(ctl, CB_WAKE_OB) === seen) Atomics.wait(ctl, CB_WAKE_OB, seen, Math.min(5, untilDueMs - spinMs - WARM_LEAD_MS));
}

while (Atomics.load(ctl, CB_STOP) === 0) step();
for (const t of drivers) t.publish();
