// A synthetic RuntimeView for the HTTP tests: no worker runtime behind it.
// Everything is a deterministic function of the elapsed time (no randomness): the mid follows a
// sum of sines on the tick grid, counters grow with time, fills can be injected with emitFill().

import { feeParams } from '../../src/config/derive.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { feeScheduleView } from '../../src/exchange/fees.ts';
import { CONTRACTS, type ContractSpec, parseSymbol } from '../../src/market/instruments.ts';
import type { Alert } from '../../src/risk/alerts.ts';
import type { FillView, HealthView, LatencyStage, MetricsSnapshot, RuntimeEvent, RuntimeView, SymbolState, WorkerHealth } from '../../src/runtime/view.ts';

/** The fees of an empty config: the flat [fees] table for every root. */
const DEFAULTS = defaultConfig();

/** The contract of a month-coded symbol (ESH24); ES for a symbol it cannot parse. */
function contractOf(symbol: string): ContractSpec {
  try {
    return parseSymbol(symbol);
  } catch {
    return CONTRACTS.ES;
  }
}

export interface FakeRuntimeOptions {
  symbols?: string[];
  now?: () => number;
  /** Extra recent trades per state (to make state frames larger, e.g. for slow-client tests). */
  recentTrades?: number;
}

export class FakeRuntime implements RuntimeView {
  readonly symbols: readonly string[];
  readonly startedAtMs: number;
  healthy = true;
  workerStates: WorkerHealth[];
  /** Calls of each method, for tests. */
  readonly calls = { state: 0, metrics: 0, drainLatency: 0 };
  private readonly listeners = new Set<(ev: RuntimeEvent) => void>();
  private readonly now: () => number;
  private readonly fills = new Map<string, FillView[]>();
  private readonly position = new Map<string, number>();
  private readonly recentTrades: number;
  private orderId = 0;
  private fillCount = 0;

  constructor(opts: FakeRuntimeOptions = {}) {
    this.symbols = opts.symbols ?? ['ESH24', 'NQH24'];
    this.now = opts.now ?? Date.now;
    this.startedAtMs = this.now();
    this.recentTrades = opts.recentTrades ?? 0;
    this.workerStates = ['market-data', 'order-book', 'inference'].map((name) => ({ name, state: 'running', heartbeatAgeMs: 3, restarts: 0, lastError: null }));
  }

  private elapsedS(): number {
    return (this.now() - this.startedAtMs) / 1000;
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  health(): HealthView {
    const workers = this.workerStates.map((w) => ({ ...w, state: this.healthy ? w.state : w.name === 'order-book' ? ('stalled' as const) : w.state }));
    return { healthy: this.healthy, workers };
  }

  private mid(symbol: string): number {
    const { tickSize: tick, typicalLow: base } = contractOf(symbol);
    const t = this.elapsedS();
    const raw = base + 20 * tick * Math.sin(t / 7) + 6 * tick * Math.sin(t * 1.3);
    return Math.round(raw / tick) * tick;
  }

  state(symbol: string): SymbolState | null {
    if (!this.symbols.includes(symbol)) return null;
    this.calls.state++;
    const spec = contractOf(symbol);
    const root = spec.root;
    const t = this.elapsedS();
    const bid = this.mid(symbol);
    const ask = bid + spec.tickSize;
    const level = (i: number, p: number) => ({ price: Math.round(p / spec.tickSize) * spec.tickSize, size: 200 + ((i * 37 + Math.floor(t * 10)) % 150) });
    const bids = Array.from({ length: 15 }, (_, i) => level(i, bid - i * spec.tickSize));
    const asks = Array.from({ length: 15 }, (_, i) => level(i + 3, ask + i * spec.tickSize));
    const position = this.position.get(symbol) ?? 0;
    const realized = Math.round(t * 12.5 * 100) / 100;
    const fees = Math.round(this.fillCount * 1.43 * 100) / 100;
    const unrealized = position * spec.tickValue;
    const equity = 1_000_000 + realized + unrealized - fees;
    const recent = [...(this.fills.get(symbol) ?? [])];
    for (let i = 0; i < this.recentTrades; i++) recent.push(this.makeFill(symbol, i % 2 === 0 ? 'buy' : 'sell', bid, i));
    const lat = (base: number) => ({ count: Math.floor(t * 100), p50_us: base, p90_us: base * 2, p99_us: base * 4, max_us: base * 9 });
    const alerts: (Alert & { time: string })[] = [
      { ts: 1, severity: 'info', code: 'SESSION_OPEN', message: 'session opened', value: 0, limit: 0, time: new Date(this.startedAtMs).toISOString() },
    ];
    return {
      symbol,
      root,
      tick_size: spec.tickSize,
      point_value: spec.pointValue,
      session_date: '2024-01-02',
      sim_time: new Date(Date.UTC(2024, 0, 2, 14, 30) + t * 1000).toISOString(),
      book: {
        bids,
        asks,
        best_bid: bid,
        best_ask: ask,
        spread: spec.tickSize,
        mid: bid + spec.tickSize / 2,
        microprice: bid + spec.tickSize * 0.4,
        our_orders: [
          { id: 1, side: 'buy', price: bid, qty: 1, leaves: 1, state: 'live' },
          { id: 2, side: 'sell', price: ask, qty: 1, leaves: 1, state: 'pending_new' },
        ],
      },
      position: {
        contracts: position,
        avg_price: position === 0 ? null : bid,
        realized_pnl_gross: realized,
        fees,
        realized_pnl_net: realized - fees,
        unrealized_pnl: unrealized,
        equity,
        total_pnl: equity - 1_000_000,
        drawdown_pct: 0.1,
        daily_pnl: equity - 1_000_000,
      },
      fee_schedule: feeScheduleView(feeParams(DEFAULTS, root)),
      stats: {
        fills: this.fillCount,
        volume: this.fillCount,
        total_trades: Math.floor(this.fillCount / 2),
        win_rate: 0.5,
        profit_factor: null,
        sharpe_ratio: 1.2,
        max_drawdown_pct: 0.3,
      },
      recent_trades: recent,
      latency: { tick_to_trade: lat(12), book_update: lat(0.2), inference: lat(35) },
      prediction: { value_ticks: Math.sin(t), horizon_ms: 1000, age_ms: 20, model_version: 'fake-1' },
      model: { loaded: true, version: 'fake-1', error: null, used_in_quotes: false },
      risk: {
        limits: { position_limit: 50, max_order_size: 10, max_drawdown_pct: 6, max_daily_loss: 100_000, kill_switch_enabled: true },
        utilisation: { position: Math.abs(position) / 50, drawdown: 0.1 / 6, daily_loss: 0 },
        kill_switch: { active: false, reason: null, time: null },
        alerts,
      },
      counters: {
        events: Math.floor(t * 5000),
        events_per_sec: 5000,
        orders: Math.floor(t * 40),
        cancels: Math.floor(t * 35),
        rejects: 0,
        risk_rejects: 0,
        blocked_requotes: 0,
        self_match_prevented: 0,
        ring_drops: 0,
        uptime_s: Math.floor(t),
      },
    };
  }

  metrics(): MetricsSnapshot[] {
    this.calls.metrics++;
    const t = this.elapsedS();
    return this.symbols.map((symbol, i) => ({
      symbol,
      events: Math.floor(t * 5000) + i,
      orders: Math.floor(t * 40),
      cancels: Math.floor(t * 35),
      rejects: Math.floor(t / 10),
      fillsBuyMaker: Math.floor(t * 3),
      fillsBuyTaker: Math.floor(t / 2),
      fillsSellMaker: Math.floor(t * 3),
      fillsSellTaker: Math.floor(t / 3),
      position: this.position.get(symbol) ?? 0,
      realizedPnl: t * 12.5,
      unrealizedPnl: -25,
      feesPaid: t * 2.5,
      equity: 1_000_000 + t * 10,
      drawdownRatio: 0.001,
      killSwitch: false,
      ringDrops: 0,
      predictions: Math.floor(t * 100),
    }));
  }

  /** Hands over three samples per stage and symbol per call (values in seconds). */
  drainLatency(observe: (stage: LatencyStage, symbol: string, seconds: number) => void): void {
    this.calls.drainLatency++;
    for (const s of this.symbols) {
      for (const k of [1, 2, 3]) {
        observe('tick_to_trade', s, k * 12e-6);
        observe('book_update', s, k * 2e-7);
        observe('inference', s, k * 35e-6);
      }
    }
  }

  subscribe(listener: (ev: RuntimeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(ev: RuntimeEvent): void {
    for (const l of this.listeners) l(ev);
  }

  private makeFill(symbol: string, side: 'buy' | 'sell', price: number, k: number): FillView {
    return {
      symbol,
      time: new Date(Date.UTC(2024, 0, 2, 14, 30) + k * 1000).toISOString(),
      side,
      price,
      qty: 1,
      liquidity: 'maker',
      fee: 1.43,
      pnl: 0,
      position: this.position.get(symbol) ?? 0,
      order_id: k + 1,
      order_to_fill_us: 210,
    };
  }

  /** Records a fill and publishes it to subscribers. */
  emitFill(symbol: string, side: 'buy' | 'sell' = 'buy'): FillView {
    const pos = (this.position.get(symbol) ?? 0) + (side === 'buy' ? 1 : -1);
    this.position.set(symbol, pos);
    this.fillCount++;
    const fill: FillView = { ...this.makeFill(symbol, side, this.mid(symbol), ++this.orderId), position: pos };
    const list = this.fills.get(symbol) ?? [];
    list.unshift(fill);
    if (list.length > 50) list.pop();
    this.fills.set(symbol, list);
    this.emit({ type: 'fill', fill });
    return fill;
  }

  emitAlert(symbol: string, code = 'DRAWDOWN_WARNING'): void {
    this.emit({
      type: 'alert',
      symbol,
      alert: { ts: 2, severity: 'warning', code, message: 'drawdown past half the limit', value: 0.031, limit: 0.06, time: new Date(this.now()).toISOString() },
    });
  }
}
