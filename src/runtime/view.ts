// What the HTTP layer sees of the running simulation. The simulation runtime (worker threads
// over SharedArrayBuffer) implements it; tests may implement it with a fake. Everything here is
// built on demand from shared-memory snapshots, at API rates (~10/s), never on the hot path.

import type { Alert } from '../risk/alerts.ts';

export type WorkerStateName = 'starting' | 'running' | 'stalled' | 'dead' | 'restarting' | 'stopped';

export interface WorkerHealth {
  name: string; // e.g. "market-data", "order-book", "inference"
  state: WorkerStateName;
  heartbeatAgeMs: number;
  restarts: number;
  lastError: string | null;
}

export interface HealthView {
  healthy: boolean; // false when any worker is dead or stalled
  workers: WorkerHealth[];
}

export interface LatencySummary {
  count: number; // samples in the window
  p50_us: number | null;
  p90_us: number | null;
  p99_us: number | null;
  max_us: number | null;
}

export interface OurOrder {
  id: number;
  side: 'buy' | 'sell';
  price: number;
  qty: number;
  leaves: number;
  state: 'pending_new' | 'live' | 'pending_cancel';
}

export interface FillView {
  symbol: string;
  time: string; // ISO 8601 (simulated exchange time)
  side: 'buy' | 'sell';
  price: number;
  qty: number;
  liquidity: 'maker' | 'taker';
  fee: number; // USD
  pnl: number; // USD, closed-trade P&L this fill realised (net of pro-rata fees)
  position: number; // after the fill
  order_id: number;
  order_to_fill_us: number; // simulated: order sent -> its fill received by the engine (includes the time it rested)
}

export interface SymbolState {
  symbol: string;
  root: string;
  session_date: string;
  sim_time: string; // ISO 8601
  book: {
    bids: { price: number; size: number }[]; // up to 15, best first
    asks: { price: number; size: number }[];
    best_bid: number | null;
    best_ask: number | null;
    spread: number | null; // price units
    mid: number | null;
    microprice: number | null;
    our_orders: OurOrder[];
  };
  position: {
    contracts: number;
    avg_price: number | null;
    realized_pnl: number;
    unrealized_pnl: number;
    fees_paid: number;
    equity: number;
    total_pnl: number;
    drawdown_pct: number;
    daily_pnl: number;
  };
  stats: {
    fills: number;
    volume: number;
    total_trades: number;
    win_rate: number;
    profit_factor: number | null;
    sharpe_ratio: number | null; // null with fewer than two per-minute returns
    max_drawdown_pct: number;
  };
  recent_trades: FillView[]; // newest first
  latency: { tick_to_trade: LatencySummary; book_update: LatencySummary; inference: LatencySummary };
  prediction: { value_ticks: number; horizon_ms: number; age_ms: number; model_version: string } | null;
  model: { loaded: boolean; version: string | null; error: string | null; used_in_quotes: boolean }; // used_in_quotes: strategy.use_ml and a model loaded
  risk: {
    limits: { position_limit: number; max_order_size: number; max_drawdown_pct: number; max_daily_loss: number; kill_switch_enabled: boolean };
    utilisation: { position: number; drawdown: number; daily_loss: number }; // fractions of the limits
    kill_switch: { active: boolean; reason: string | null; time: string | null };
    alerts: (Alert & { time: string })[]; // newest last
  };
  counters: { events: number; events_per_sec: number; orders: number; cancels: number; rejects: number; ring_drops: number; uptime_s: number };
}

/** Totals for Prometheus (monotonic counters and gauges), per symbol. */
export interface MetricsSnapshot {
  symbol: string;
  events: number;
  orders: number;
  cancels: number;
  rejects: number;
  fillsBuyMaker: number;
  fillsBuyTaker: number;
  fillsSellMaker: number;
  fillsSellTaker: number;
  position: number;
  realizedPnl: number;
  unrealizedPnl: number;
  feesPaid: number;
  equity: number;
  drawdownRatio: number; // fraction
  killSwitch: boolean;
  ringDrops: number;
  predictions: number;
}

export type LatencyStage = 'tick_to_trade' | 'book_update' | 'inference';

export type RuntimeEvent = { type: 'fill'; fill: FillView } | { type: 'alert'; symbol: string; alert: Alert & { time: string } };

export interface RuntimeView {
  readonly symbols: readonly string[];
  readonly startedAtMs: number;
  health(): HealthView;
  state(symbol: string): SymbolState | null;
  metrics(): MetricsSnapshot[];
  /** Hands over the latency samples (seconds) gathered since the last call, per stage. */
  drainLatency(observe: (stage: LatencyStage, symbol: string, seconds: number) => void): void;
  subscribe(listener: (ev: RuntimeEvent) => void): () => void;
}
