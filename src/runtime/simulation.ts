// Simulation mode, main-thread side: allocates the shared memory, runs the market-data,
// order-book and inference workers over it, supervises them (heartbeats; a dead or stalled
// worker is logged, reported by /health and restarted), drains fills, alerts and latency
// samples, and answers the HTTP layer (RuntimeView) from the engine's shared snapshots.

import { configuredStrategy } from '../strategy/setup.ts';
import { idleSpinUs } from './idle-policy.ts';
import { wallMs } from './wall-clock.ts';
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import type pino from 'pino';
import type { EngineConfig } from '../config/schema.ts';
import { BID, LIQ_MAKER } from '../core/events.ts';
import { workerPath } from '../core/paths.ts';
import { RecordRing } from '../core/ring.ts';
import { sessionNsToEpochMs } from '../market/calendar.ts';
import { contractForRoot, parseSymbol, ticksToPrice, type ContractSpec } from '../market/instruments.ts';
import { configContracts } from '../config/contracts.ts';
import type { ModelFile } from '../ml/inference/model.ts';
import { profitFactor, winRate } from '../portfolio/metrics.ts';
import type { Alert } from '../risk/alerts.ts';
import { Seqlock } from '../shm/seqlock.ts';
import type { SimClock } from './clock.ts';
import {
  allocateLayout,
  CB_FAULT_FILL,
  CB_FAULT_STALL,
  CB_GEN,
  CB_STOP,
  CB_WAKE_MD,
  CB_WAKE_OB,
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
  HEARTBEAT_INDEX,
  LAT_SECONDS,
  LAT_STAGE,
  STAGE_NAMES,
  WORKER_NAMES,
  type SharedLayout,
  type WorkerName,
} from './layout.ts';
import { readSnapshot, S } from './snapshot.ts';
import type { FillView, HealthView, LatencyStage, LatencySummary, MetricsSnapshot, RuntimeEvent, RuntimeView, SymbolState, WorkerStateName } from './view.ts';
import { feeParams, riskLimits } from '../config/derive.ts';
import { feeScheduleView } from '../exchange/fees.ts';
import { simClock, type WorkerInit } from './worker-config.ts';

const STALL_MS = 3000; // a worker whose heartbeat has not moved for this long is stalled
const RESTART_DELAY_MS = 200;
// A new worker loads its bundle and compiles before its first beat: slow on a loaded machine.
const START_STALL_MS = 30_000;
const RECENT_FILLS = 200;
const RECENT_ALERTS = 100;
const LATENCY_WINDOW = 4096;
const LATENCY_PENDING_MAX = 100_000;

export interface ModelStatus {
  file: ModelFile | null;
  error: string | null;
}

export interface SimulationOptions {
  config: EngineConfig;
  logger: pino.Logger;
  /** The model of a root (ml/inference/model-store.ts: models/<ROOT>.json), asked once per traded root. */
  models: (root: string) => ModelStatus;
  /** Idle spin before the next input is due, µs (0: block, Infinity: busy-poll); default from `[simulation] engine_idle`. */
  spinUs?: number;
}

interface Supervised {
  name: WorkerName;
  worker: Worker | null;
  state: WorkerStateName;
  restarts: number;
  lastBeat: number;
  lastBeatChangeMs: number;
  lastError: string | null;
  expectedExit: boolean;
}

interface SymbolRuntime {
  symbol: string;
  root: string;
  spec: ContractSpec;
  /** The model of this symbol's root: the inference worker runs it for this symbol only. */
  model: ModelStatus;
  snapshot: Seqlock;
  snap: Float64Array;
  fills: RecordRing;
  latRings: RecordRing[];
  recentFills: FillView[];
  alerts: (Alert & { time: string })[];
  latency: { buf: Float64Array; n: number; next: number }[];
  rate: { t: number; events: number; perSec: number };
  otherDrops: RecordRing[];
}

export class SimulationRuntime implements RuntimeView {
  readonly symbols: readonly string[];
  readonly startedAtMs = Date.now();
  readonly clock: SimClock;
  private readonly layout: SharedLayout;
  private readonly ctl: Int32Array;
  private readonly originMs: number;
  private readonly cfg: EngineConfig;
  private readonly log: pino.Logger;
  /** The model of each symbol, in layout order (what the inference worker receives). */
  private readonly models: ModelStatus[];
  private readonly spinUs: number;
  private readonly sup = new Map<WorkerName, Supervised>();
  private readonly per: SymbolRuntime[];
  private readonly events = new EventEmitter();
  private readonly pending: { stage: LatencyStage; symbol: string; seconds: number }[] = [];
  private timers: NodeJS.Timeout[] = [];
  private stopping = false;

  constructor(o: SimulationOptions) {
    this.cfg = o.config;
    this.log = o.logger;
    this.spinUs = o.spinUs ?? idleSpinUs(o.config.simulation.engine_idle);
    const contracts = configContracts(o.config);
    const syms = o.config.trading.symbols.map((s) => {
      const ins = parseSymbol(s, 2024, contracts);
      return { symbol: s, root: ins.root };
    });
    this.symbols = syms.map((s) => s.symbol);
    const byRoot = new Map<string, ModelStatus>();
    for (const s of syms) if (!byRoot.has(s.root)) byRoot.set(s.root, o.models(s.root));
    this.layout = allocateLayout(syms);
    this.models = this.layout.symbols.map((m) => byRoot.get(m.root)!);
    this.ctl = new Int32Array(this.layout.control);
    this.originMs = wallMs();
    this.clock = simClock(this.init(0, 0));
    this.per = this.layout.symbols.map((m, i) => ({
      symbol: m.symbol,
      root: m.root,
      spec: contractForRoot(m.root, contracts),
      model: this.models[i],
      snapshot: new Seqlock(m.snapshot),
      snap: new Float64Array(S.SIZE),
      fills: new RecordRing(m.fills),
      latRings: [new RecordRing(m.latEngine), new RecordRing(m.latInference)],
      recentFills: [],
      alerts: [],
      latency: STAGE_NAMES.map(() => ({ buf: new Float64Array(LATENCY_WINDOW), n: 0, next: 0 })),
      rate: { t: Date.now(), events: 0, perSec: 0 },
      otherDrops: [new RecordRing(m.md), new RecordRing(m.om), new RecordRing(m.er)],
    }));
    this.events.setMaxListeners(0);
  }

  private init(generation: number, restarts: number): WorkerInit & { models: (ModelFile | null)[] } {
    return {
      layout: this.layout,
      config: this.cfg,
      originMs: this.originMs,
      generation,
      restarts,
      spinUs: this.spinUs,
      models: this.models.map((m) => m.file),
      strategyHash: configuredStrategy(this.cfg).hash,
    };
  }

  start(): void {
    for (const name of WORKER_NAMES) {
      // lastBeat starts at the counter's value, so a worker counts as running only once it has beaten.
      const lastBeat = Atomics.load(this.ctl, HEARTBEAT_INDEX[name]);
      this.sup.set(name, { name, worker: null, state: 'starting', restarts: 0, lastBeat, lastBeatChangeMs: Date.now(), lastError: null, expectedExit: false });
      this.spawn(name);
    }
    this.timers.push(setInterval(() => this.supervise(), 250));
    this.timers.push(setInterval(() => this.drain(), 50));
    const models = Object.fromEntries(this.per.map((p) => [p.symbol, p.model.file?.modelVersion ?? null]));
    this.log.info({ symbols: this.symbols, speed: this.cfg.simulation.speed, start_date: this.cfg.simulation.start_date, models }, 'simulation started');
    for (const p of this.per)
      if (!p.model.file) this.log.warn({ symbol: p.symbol, reason: p.model.error }, 'running without predictions for this symbol: no usable model');
  }

  private spawn(name: WorkerName): void {
    const s = this.sup.get(name)!;
    const generation = Atomics.load(this.ctl, CB_GEN);
    const w = new Worker(workerPath(name), { workerData: this.init(generation, s.restarts) });
    s.worker = w;
    s.expectedExit = false;
    s.lastBeatChangeMs = Date.now();
    s.state = s.restarts > 0 ? 'restarting' : 'starting';
    w.on('error', (err) => {
      s.lastError = err.message;
      this.log.error({ worker: name, err: { type: err.name, message: err.message } }, 'worker failed');
    });
    w.on('message', (m: { type: string; symbol: string; session: number; alert: Alert }) => {
      if (m.type === 'alert') this.onAlert(m.symbol, m.session, m.alert);
    });
    w.on('exit', (code) => {
      if (s.worker !== w) return;
      s.worker = null;
      if (this.stopping || s.expectedExit) {
        s.state = 'stopped';
        return;
      }
      s.state = 'dead';
      s.lastError ??= `exited with code ${code}`;
      this.log.error({ worker: name, code, restarts: s.restarts }, 'worker died; restarting');
      setTimeout(() => this.restart(name), RESTART_DELAY_MS);
    });
  }

  private restart(name: WorkerName): void {
    if (this.stopping) return;
    const s = this.sup.get(name)!;
    s.restarts++;
    // A new engine thread (or a new exchange thread, which also takes a fresh engine) starts a
    // new order-book generation: the exchange cancels the old engine's orders and resends the book.
    if (name === 'order-book' || name === 'market-data') Atomics.add(this.ctl, CB_GEN, 1);
    if (name === 'market-data') {
      const ob = this.sup.get('order-book')!;
      if (ob.worker) {
        ob.expectedExit = true;
        ob.state = 'restarting';
        void ob.worker.terminate().then(() => {
          ob.restarts++;
          this.spawn('order-book');
        });
      }
    }
    this.spawn(name);
    this.log.warn({ worker: name, restarts: s.restarts }, 'worker restarted');
  }

  private supervise(): void {
    const now = Date.now();
    for (const s of this.sup.values()) {
      const beat = Atomics.load(this.ctl, HEARTBEAT_INDEX[s.name]);
      if (beat !== s.lastBeat) {
        s.lastBeat = beat;
        s.lastBeatChangeMs = now;
        if (s.worker && (s.state === 'starting' || s.state === 'restarting' || s.state === 'stalled')) s.state = 'running';
      } else if (
        s.worker &&
        (s.state === 'running'
          ? now - s.lastBeatChangeMs > STALL_MS
          : (s.state === 'starting' || s.state === 'restarting') && now - s.lastBeatChangeMs > START_STALL_MS)
      ) {
        const why = s.state === 'running' ? `no heartbeat for ${now - s.lastBeatChangeMs} ms` : `no first heartbeat ${now - s.lastBeatChangeMs} ms after start`;
        s.state = 'stalled';
        s.lastError = why;
        this.log.error({ worker: s.name, silent_ms: now - s.lastBeatChangeMs }, 'worker stalled; terminating it');
        void s.worker.terminate(); // its exit handler restarts it
      }
    }
  }

  // ------------------------------------------------------------------ draining

  private drain(): void {
    for (const p of this.per) {
      const r = p.fills;
      let n = r.available();
      while (n-- > 0) {
        const off = r.peek();
        const f = this.fillView(p, r.data, off);
        r.advance();
        p.recentFills.unshift(f);
        if (p.recentFills.length > RECENT_FILLS) p.recentFills.pop();
        this.events.emit('event', { type: 'fill', fill: f } satisfies RuntimeEvent);
      }
      r.release();
      for (const ring of p.latRings) {
        let k = ring.available();
        while (k-- > 0) {
          const off = ring.peek();
          const stage = ring.data[off + LAT_STAGE];
          const sec = ring.data[off + LAT_SECONDS];
          ring.advance();
          const w = p.latency[stage];
          w.buf[w.next] = sec;
          w.next = (w.next + 1) % LATENCY_WINDOW;
          if (w.n < LATENCY_WINDOW) w.n++;
          if (this.pending.length < LATENCY_PENDING_MAX) this.pending.push({ stage: STAGE_NAMES[stage], symbol: p.symbol, seconds: sec });
        }
        ring.release();
      }
      const t = Date.now();
      if (t - p.rate.t >= 1000) {
        p.snapshot.read(p.snap);
        const ev = readSnapshot(p.snap).events;
        p.rate.perSec = ((ev - p.rate.events) * 1000) / (t - p.rate.t);
        p.rate.events = ev;
        p.rate.t = t;
      }
    }
  }

  private isoAt(session: number, ns: number): string {
    const date = this.clock.date(session);
    return new Date(sessionNsToEpochMs(date, ns - this.clock.dayOffsetNs(session))).toISOString();
  }

  private fillView(p: SymbolRuntime, d: Float64Array, off: number): FillView {
    return {
      symbol: p.symbol,
      time: this.isoAt(d[off + FR_SESSION], d[off + FR_EXCH_TS]),
      side: d[off + FR_SIDE] === BID ? 'buy' : 'sell',
      price: ticksToPrice(d[off + FR_PRICE], p.spec.tickSize),
      qty: d[off + FR_QTY],
      liquidity: d[off + FR_LIQ] === LIQ_MAKER ? 'maker' : 'taker',
      fee: d[off + FR_FEE],
      pnl: d[off + FR_PNL],
      position: d[off + FR_POSITION],
      order_id: d[off + FR_ID],
      order_to_fill_us: (d[off + FR_RECV_TS] - d[off + FR_SENT_TS]) / 1000,
    };
  }

  private onAlert(symbol: string, session: number, alert: Alert): void {
    const p = this.per.find((x) => x.symbol === symbol);
    if (!p) return;
    const a = { ...alert, time: this.isoAt(session, alert.ts) };
    p.alerts.push(a);
    if (p.alerts.length > RECENT_ALERTS) p.alerts.shift();
    (alert.severity === 'critical' ? this.log.error : this.log.warn).call(this.log, { symbol, code: alert.code }, alert.message);
    this.events.emit('event', { type: 'alert', symbol, alert: a } satisfies RuntimeEvent);
  }

  // ------------------------------------------------------------------ RuntimeView

  health(): HealthView {
    const now = Date.now();
    const workers = [...this.sup.values()].map((s) => ({
      name: s.name,
      state: s.state,
      heartbeatAgeMs: now - s.lastBeatChangeMs,
      restarts: s.restarts,
      lastError: s.lastError,
    }));
    return { healthy: workers.every((w) => w.state === 'running'), workers };
  }

  state(symbol: string): SymbolState | null {
    const p = this.per.find((x) => x.symbol === symbol);
    if (!p) return null;
    p.snapshot.read(p.snap);
    const s = readSnapshot(p.snap);
    const spec = p.spec;
    // Prices leave ticks here, exactly (ticksToPrice divides by ticks per point); every figure
    // keeps full float64 precision: only the dashboard rounds, for people.
    const px = (t: number) => (Number.isFinite(t) ? ticksToPrice(t, spec.tickSize) : null);
    const valid = s.valid;
    const session = valid ? s.session : 0;
    const level = (l: { ticks: number; size: number }) => ({ price: px(l.ticks)!, size: l.size });
    const bb = valid ? s.bestBid : NaN;
    const ba = valid ? s.bestAsk : NaN;
    const limits = riskLimits(this.cfg);
    const cap = this.cfg.trading.initial_capital;
    const hasSignal = valid && Number.isFinite(s.signal) && s.signalTs >= 0;
    const pf = profitFactor(s.trades);
    return {
      symbol: p.symbol,
      root: p.root,
      tick_size: p.spec.tickSize,
      point_value: p.spec.pointValue,
      session_date: this.clock.date(session),
      sim_time: valid ? this.isoAt(session, s.now) : this.isoAt(0, this.clock.sessionBounds(0).startNs),
      book: {
        bids: valid ? s.bids.map(level) : [],
        asks: valid ? s.asks.map(level) : [],
        best_bid: px(bb),
        best_ask: px(ba),
        spread: Number.isFinite(bb) && Number.isFinite(ba) ? px(ba - bb) : null,
        mid: Number.isFinite(bb) && Number.isFinite(ba) ? px((bb + ba) / 2) : null,
        microprice: valid && Number.isFinite(s.micro) && s.micro > 0 ? px(s.micro) : null,
        our_orders: valid ? s.ourOrders.map((o) => ({ id: o.id, side: o.side, price: px(o.ticks)!, qty: o.qty, leaves: o.leaves, state: o.state })) : [],
      },
      position: {
        contracts: valid ? s.position : 0,
        avg_price: valid ? px(s.avgPrice) : null,
        realized_pnl_gross: s.realized,
        fees: s.fees,
        realized_pnl_net: s.realized - s.fees,
        unrealized_pnl: s.unrealized,
        equity: valid ? s.equity : cap,
        total_pnl: valid ? s.equity - cap : 0,
        drawdown_pct: s.drawdown * 100,
        daily_pnl: valid ? -s.dailyLoss : 0,
      },
      fee_schedule: feeScheduleView(feeParams(this.cfg, p.root)),
      stats: {
        fills: s.fills,
        volume: s.volume,
        total_trades: s.trades.count,
        win_rate: winRate(s.trades),
        profit_factor: pf,
        sharpe_ratio: Number.isNaN(s.sharpe) ? null : s.sharpe,
        max_drawdown_pct: s.maxDrawdownPct,
      },
      recent_trades: p.recentFills.slice(0, 50),
      latency: {
        tick_to_trade: summarize(p.latency[0]),
        book_update: summarize(p.latency[1]),
        inference: summarize(p.latency[2]),
      },
      prediction: hasSignal
        ? {
            value_ticks: s.signal,
            horizon_ms: (p.model.file?.horizonNs ?? 0) / 1e6,
            age_ms: (s.now - s.signalTs) / 1e6,
            model_version: p.model.file?.modelVersion ?? 'unknown',
          }
        : null,
      model: {
        loaded: p.model.file !== null,
        version: p.model.file?.modelVersion ?? null,
        error: p.model.error,
        used_in_quotes: this.cfg.strategy.use_ml && p.model.file !== null,
      },
      risk: {
        limits: {
          position_limit: limits.positionLimit,
          max_order_size: limits.maxOrderSize,
          max_drawdown_pct: limits.maxDrawdownFrac * 100,
          max_daily_loss: limits.maxDailyLoss,
          kill_switch_enabled: limits.killSwitchEnabled,
        },
        utilisation: {
          position: Math.abs(s.position) / limits.positionLimit,
          drawdown: s.drawdown / limits.maxDrawdownFrac,
          daily_loss: Math.max(0, valid ? s.dailyLoss : 0) / limits.maxDailyLoss,
        },
        kill_switch: { active: s.killed, reason: s.killReason, time: s.killed ? this.isoAt(session, s.killTs) : null },
        alerts: p.alerts.slice(),
      },
      counters: {
        events: s.events,
        events_per_sec: p.rate.perSec,
        orders: s.orders,
        cancels: s.cancels,
        rejects: s.rejects,
        risk_rejects: s.riskRejects,
        blocked_requotes: s.blockedRequotes,
        self_match_prevented: s.selfMatch,
        ring_drops: this.ringDrops(p),
        uptime_s: (Date.now() - this.startedAtMs) / 1000,
      },
    };
  }

  private ringDrops(p: SymbolRuntime): number {
    let d = p.fills.drops;
    for (const r of p.latRings) d += r.drops;
    for (const r of p.otherDrops) d += r.drops;
    return d;
  }

  metrics(): MetricsSnapshot[] {
    return this.per.map((p) => {
      p.snapshot.read(p.snap);
      const s = readSnapshot(p.snap);
      return {
        symbol: p.symbol,
        events: s.events,
        orders: s.orders,
        cancels: s.cancels,
        rejects: s.rejects,
        fillsBuyMaker: s.fillCounts.buyMaker,
        fillsBuyTaker: s.fillCounts.buyTaker,
        fillsSellMaker: s.fillCounts.sellMaker,
        fillsSellTaker: s.fillCounts.sellTaker,
        position: s.position,
        realizedPnl: s.realized,
        unrealizedPnl: s.unrealized,
        feesPaid: s.fees,
        equity: s.valid ? s.equity : this.cfg.trading.initial_capital,
        drawdownRatio: s.drawdown,
        killSwitch: s.killed,
        ringDrops: this.ringDrops(p),
        predictions: s.predictions,
      };
    });
  }

  drainLatency(observe: (stage: LatencyStage, symbol: string, seconds: number) => void): void {
    const items = this.pending.splice(0, this.pending.length);
    for (const x of items) observe(x.stage, x.symbol, x.seconds);
  }

  subscribe(listener: (ev: RuntimeEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  // ------------------------------------------------------------------ control

  /**
   * Test hook: 'kill' terminates a worker as a crash would; 'stall' makes it stop heartbeating;
   * 'crash-mid-fill' makes the engine thread die at `step` (1-3, see FillJournal.book) of booking
   * its next fill.
   */
  injectFault(name: WorkerName, kind: 'kill' | 'stall' | 'crash-mid-fill', step = 1): void {
    const s = this.sup.get(name);
    if (!s?.worker) throw new Error(`worker ${name} is not running`);
    if (kind === 'kill') void s.worker.terminate();
    else if (kind === 'stall') Atomics.store(this.ctl, CB_FAULT_STALL, WORKER_NAMES.indexOf(name) + 1);
    else if (name === 'order-book') Atomics.store(this.ctl, CB_FAULT_FILL, step);
    else throw new Error(`only the order-book worker books fills, not ${name}`);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    Atomics.store(this.ctl, CB_STOP, 1);
    Atomics.notify(this.ctl, CB_WAKE_MD);
    Atomics.notify(this.ctl, CB_WAKE_OB);
    for (const p of this.layout.symbols) Atomics.notify(new Int32Array(p.features.ctl), 0);
    const exits = [...this.sup.values()].map(async (s) => {
      const w = s.worker;
      if (!w) return;
      const done = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 2000).unref());
      if ((await Promise.race([done, timeout])) === 'timeout') await w.terminate();
    });
    await Promise.all(exits);
    this.drain();
  }
}

function summarize(w: { buf: Float64Array; n: number }): LatencySummary {
  if (w.n === 0) return { count: 0, p50_us: null, p90_us: null, p99_us: null, max_us: null };
  const a = Float64Array.from(w.buf.subarray(0, w.n)).sort();
  const q = (p: number) => a[Math.min(a.length - 1, Math.floor(p * a.length))] * 1e6;
  return { count: w.n, p50_us: q(0.5), p90_us: q(0.9), p99_us: q(0.99), max_us: a[a.length - 1] * 1e6 };
}
