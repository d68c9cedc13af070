// What the HTTP layer sees of the running simulation. The simulation runtime (worker threads
// over SharedArrayBuffer) implements it; tests may implement it with a fake. Everything here is
// built on demand from shared-memory snapshots, at API rates (~10/s), never on the hot path.

import type { WorkerStateName } from '../wire/health.ts';
import type { FillView, StateAlert, SymbolState } from '../wire/live-state.ts';

// The API's shapes (src/wire), re-exported for the runtime's implementers.
export type { WorkerStateName } from '../wire/health.ts';
export type { FillView, LatencySummary, OurOrder, StateAlert, SymbolState } from '../wire/live-state.ts';

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

export type RuntimeEvent = { type: 'fill'; fill: FillView } | { type: 'alert'; symbol: string; alert: StateAlert };

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
