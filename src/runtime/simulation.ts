// Simulation mode, main-thread side: allocates the shared memory, runs the market-data,
// order-book and inference workers over it, supervises them (heartbeats; a dead or stalled
// worker is logged, reported by /health and restarted), drains fills, alerts and latency
// samples, and answers the HTTP layer (RuntimeView) from the engine's shared snapshots.

import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import type pino from 'pino';
import type { EngineConfig } from '../config/schema.ts';
import { BID, LIQ_MAKER } from '../core/events.ts';
import { workerPath } from '../core/paths.ts';
import { RecordRing } from '../core/ring.ts';
import { sessionNsToEpochMs } from '../market/calendar.ts';
import { contractForRoot, parseSymbol, ticksToPrice, type ContractSpec } from '../market/instruments.ts';
import type { ModelFile } from '../ml/model.ts';
import { profitFactor, winRate } from '../portfolio/metrics.ts';
import type { Alert } from '../risk/alerts.ts';
import { KILL_REASONS } from '../risk/risk-manager.ts';
import { Seqlock } from '../shm/seqlock.ts';
import { ORD_LIVE, ORD_PENDING_CANCEL, ORD_PENDING_NEW } from '../trading/order-table.ts';
import type { SimClock } from './clock.ts';
import {
  allocateLayout,
  C_FAULT_STALL,
  C_GEN,
  C_STOP,
  C_WAKE_MD,
  C_WAKE_OB,
  FL_EXCH_TS,
  FL_FEE,
  FL_ID,
  FL_LIQ,
  FL_PNL,
  FL_POSITION,
  FL_PRICE,
  FL_QTY,
  FL_RECV_TS,
  FL_SENT_TS,
  FL_SESSION,
  FL_SIDE,
  HEARTBEAT_INDEX,
  LAT_SECONDS,
  LAT_STAGE,
  STAGE_NAMES,
  WORKER_NAMES,
  type SharedLayout,
  type WorkerName,
} from './layout.ts';
import { BOOK_LEVELS, S, SNAPSHOT_ORDERS } from './snapshot.ts';
import type { FillView, HealthView, LatencyStage, LatencySummary, MetricsSnapshot, RuntimeEvent, RuntimeView, SymbolState, WorkerStateName } from './view.ts';
import { riskLimits } from '../config/derive.ts';
import { simClock, type WorkerInit } from './worker-config.ts';

const STALL_MS = 3000; // a worker whose heartbeat has not moved for this long is stalled
const RESTART_DELAY_MS = 200;
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
  model: ModelStatus;
  /** Idle spin before blocking, µs (default 50). */
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
  private readonly model: ModelStatus;
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
    this.model = o.model;
    this.spinUs = o.spinUs ?? 50;
    const syms = o.config.trading.symbols.map((s) => {
      const ins = parseSymbol(s);
      return { symbol: s, root: ins.root };
    });
    this.symbols = syms.map((s) => s.symbol);
    this.layout = allocateLayout(syms);
    this.ctl = new Int32Array(this.layout.control);
    this.originMs = performance.timeOrigin + performance.now();
    this.clock = simClock(this.init(0, 0));
    this.per = this.layout.symbols.map((m) => ({
      symbol: m.symbol,
      root: m.root,
      spec: contractForRoot(m.root),
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

  private init(generation: number, restarts: number): WorkerInit & { model: ModelFile | null } {
    return { layout: this.layout, config: this.cfg, originMs: this.originMs, generation, restarts, spinUs: this.spinUs, model: this.model.file };
  }

  start(): void {
    for (const name of WORKER_NAMES) {
      this.sup.set(name, { name, worker: null, state: 'starting', restarts: 0, lastBeat: -1, lastBeatChangeMs: Date.now(), lastError: null, expectedExit: false });
      this.spawn(name);
    }
    this.timers.push(setInterval(() => this.supervise(), 250));
    this.timers.push(setInterval(() => this.drain(), 50));
    this.log.info({ symbols: this.symbols, speed: this.cfg.simulation.speed, start_date: this.cfg.simulation.start_date, model: this.model.file?.modelVersion ?? null }, 'simulation started');
    if (!this.model.file) this.log.warn({ reason: this.model.error }, 'running without predictions: no usable model');
  }

  private spawn(name: WorkerName): void {
    const s = this.sup.get(name)!;
    const generation = Atomics.load(this.ctl, C_GEN);
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
    if (name === 'order-book' || name === 'market-data') Atomics.add(this.ctl, C_GEN, 1);
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
      } else if (s.worker && s.state === 'running' && now - s.lastBeatChangeMs > STALL_MS) {
        s.state = 'stalled';
        s.lastError = `no heartbeat for ${now - s.lastBeatChangeMs} ms`;
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
        const ev = p.snap[S.EVENTS];
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
      time: this.isoAt(d[off + FL_SESSION], d[off + FL_EXCH_TS]),
      side: d[off + FL_SIDE] === BID ? 'buy' : 'sell',
      price: ticksToPrice(d[off + FL_PRICE], p.spec.tickSize),
      qty: d[off + FL_QTY],
      liquidity: d[off + FL_LIQ] === LIQ_MAKER ? 'maker' : 'taker',
      fee: round(d[off + FL_FEE], 2),
      pnl: round(d[off + FL_PNL], 2),
      position: d[off + FL_POSITION],
      order_id: d[off + FL_ID],
      latency_us: round((d[off + FL_RECV_TS] - d[off + FL_SENT_TS]) / 1000, 1),
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
    const s = p.snap;
    p.snapshot.read(s);
    const spec = p.spec;
    const px = (t: number) => (Number.isFinite(t) ? ticksToPrice(t, spec.tickSize) : null);
    const valid = s[S.VALID] === 1;
    const session = valid ? s[S.SESSION] : 0;
    const L = BOOK_LEVELS;
    const levels = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ price: px(s[base + i])!, size: s[base + L + i] }));
    const bids = valid ? levels(S.LEVELS, s[S.BID_N]) : [];
    const asks = valid ? levels(S.LEVELS + 2 * L, s[S.ASK_N]) : [];
    const bb = valid ? s[S.BEST_BID] : NaN;
    const ba = valid ? s[S.BEST_ASK] : NaN;
    const orders = [];
    for (let k = 0; valid && k < s[S.ORDER_N] && k < SNAPSHOT_ORDERS; k++) {
      const b = S.ORDER_FIELDS + 6 * k;
      const st = s[b + 5];
      orders.push({
        id: s[b],
        side: s[b + 1] === BID ? ('buy' as const) : ('sell' as const),
        price: px(s[b + 2])!,
        qty: s[b + 3],
        leaves: s[b + 4],
        state: st === ORD_PENDING_NEW ? ('pending_new' as const) : st === ORD_LIVE ? ('live' as const) : st === ORD_PENDING_CANCEL ? ('pending_cancel' as const) : ('live' as const),
      });
    }
    const limits = riskLimits(this.cfg);
    const trades = { count: s[S.TRADES], wins: s[S.WINS], losses: s[S.LOSSES], grossWin: s[S.GROSS_WIN], grossLoss: s[S.GROSS_LOSS] };
    const cap = this.cfg.trading.initial_capital;
    const killed = s[S.KILLED] === 1;
    const hasSignal = valid && Number.isFinite(s[S.SIGNAL]) && s[S.SIGNAL_TS] >= 0;
    const ringDrops = this.ringDrops(p);
    const mid = Number.isFinite(bb) && Number.isFinite(ba) ? (bb + ba) / 2 : NaN;
    return {
      symbol: p.symbol,
      root: p.root,
      session_date: this.clock.date(session),
      sim_time: valid ? this.isoAt(session, s[S.NOW]) : this.isoAt(0, this.clock.sessionBounds(0).startNs),
      book: {
        bids,
        asks,
        best_bid: px(bb),
        best_ask: px(ba),
        spread: Number.isFinite(bb) && Number.isFinite(ba) ? round((ba - bb) * spec.tickSize, 10) : null,
        mid: Number.isFinite(mid) ? round(mid * spec.tickSize, 10) : null,
        microprice: valid && Number.isFinite(s[S.MICRO]) && s[S.MICRO] > 0 ? round(s[S.MICRO] * spec.tickSize, 6) : null,
        our_orders: orders,
      },
      position: {
        contracts: valid ? s[S.POSITION] : 0,
        avg_price: valid && Number.isFinite(s[S.AVG_PRICE]) ? round(s[S.AVG_PRICE] * spec.tickSize, 6) : null,
        realized_pnl: round(s[S.REALIZED], 2),
        unrealized_pnl: round(s[S.UNREALIZED], 2),
        fees_paid: round(s[S.FEES], 2),
        equity: valid ? round(s[S.EQUITY], 2) : cap,
        total_pnl: valid ? round(s[S.EQUITY] - cap, 2) : 0,
        drawdown_pct: round(s[S.DRAWDOWN] * 100, 4),
        daily_pnl: valid ? round(-s[S.DAILY_LOSS], 2) : 0,
      },
      stats: {
        fills: s[S.FILLS],
        volume: s[S.VOLUME],
        total_trades: trades.count,
        win_rate: round(winRate(trades), 4),
        profit_factor: profitFactor(trades) === null ? null : round(profitFactor(trades)!, 4),
        sharpe_ratio: round(s[S.SHARPE], 4),
        max_drawdown_pct: round(s[S.MAX_DD_PCT], 4),
      },
      recent_trades: p.recentFills.slice(0, 50),
      latency: {
        tick_to_trade: summarize(p.latency[0]),
        book_update: summarize(p.latency[1]),
        inference: summarize(p.latency[2]),
      },
      prediction: hasSignal
        ? {
            value_ticks: round(s[S.SIGNAL], 4),
            horizon_ms: (this.model.file?.horizonNs ?? 0) / 1e6,
            age_ms: round((s[S.NOW] - s[S.SIGNAL_TS]) / 1e6, 3),
            model_version: this.model.file?.modelVersion ?? 'unknown',
          }
        : null,
      model: { loaded: this.model.file !== null, version: this.model.file?.modelVersion ?? null, error: this.model.error },
      risk: {
        limits: {
          position_limit: limits.positionLimit,
          max_order_size: limits.maxOrderSize,
          max_drawdown_pct: limits.maxDrawdownFrac * 100,
          max_daily_loss: limits.maxDailyLoss,
          kill_switch_enabled: limits.killSwitchEnabled,
        },
        utilisation: {
          position: round(Math.abs(s[S.POSITION]) / limits.positionLimit, 4),
          drawdown: round(s[S.DRAWDOWN] / limits.maxDrawdownFrac, 4),
          daily_loss: round(Math.max(0, valid ? s[S.DAILY_LOSS] : 0) / limits.maxDailyLoss, 4),
        },
        kill_switch: { active: killed, reason: killed ? (KILL_REASONS[s[S.KILL_REASON]] ?? 'OTHER') : null, time: killed ? this.isoAt(session, s[S.KILL_TS]) : null },
        alerts: p.alerts.slice(),
      },
      counters: {
        events: s[S.EVENTS],
        events_per_sec: round(p.rate.perSec, 1),
        orders: s[S.ORDERS],
        cancels: s[S.CANCELS],
        rejects: s[S.REJECTS],
        ring_drops: ringDrops,
        uptime_s: round((Date.now() - this.startedAtMs) / 1000, 1),
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
      const s = p.snap;
      p.snapshot.read(s);
      return {
        symbol: p.symbol,
        events: s[S.EVENTS],
        orders: s[S.ORDERS],
        cancels: s[S.CANCELS],
        rejects: s[S.REJECTS],
        fillsBuyMaker: s[S.FILLS_BUY_MAKER],
        fillsBuyTaker: s[S.FILLS_BUY_TAKER],
        fillsSellMaker: s[S.FILLS_SELL_MAKER],
        fillsSellTaker: s[S.FILLS_SELL_TAKER],
        position: s[S.POSITION],
        realizedPnl: s[S.REALIZED],
        unrealizedPnl: s[S.UNREALIZED],
        feesPaid: s[S.FEES],
        equity: s[S.VALID] === 1 ? s[S.EQUITY] : this.cfg.trading.initial_capital,
        drawdownRatio: s[S.DRAWDOWN],
        killSwitch: s[S.KILLED] === 1,
        ringDrops: this.ringDrops(p),
        predictions: s[S.PREDICTIONS],
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

  /** Test hook: 'kill' terminates a worker as a crash would; 'stall' makes it stop heartbeating. */
  injectFault(name: WorkerName, kind: 'kill' | 'stall'): void {
    const s = this.sup.get(name);
    if (!s?.worker) throw new Error(`worker ${name} is not running`);
    if (kind === 'kill') void s.worker.terminate();
    else Atomics.store(this.ctl, C_FAULT_STALL, WORKER_NAMES.indexOf(name) + 1);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    Atomics.store(this.ctl, C_STOP, 1);
    Atomics.notify(this.ctl, C_WAKE_MD);
    Atomics.notify(this.ctl, C_WAKE_OB);
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

function round(x: number, d: number): number {
  const k = 10 ** d;
  return Math.round(x * k) / k;
}

function summarize(w: { buf: Float64Array; n: number }): LatencySummary {
  if (w.n === 0) return { count: 0, p50_us: null, p90_us: null, p99_us: null, max_us: null };
  const a = Float64Array.from(w.buf.subarray(0, w.n)).sort();
  const q = (p: number) => round(a[Math.min(a.length - 1, Math.floor(p * a.length))] * 1e6, 2);
  return { count: w.n, p50_us: q(0.5), p90_us: q(0.9), p99_us: q(0.99), max_us: round(a[a.length - 1] * 1e6, 2) };
}
