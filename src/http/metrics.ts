// Prometheus metrics. Two registries:
// - `engine`: the engine's own metrics (`engine_` prefix, base units, `symbol` label where
//   relevant). It passes `promtool check metrics`.
// - `node`: prom-client's default Node metrics. Some of them are gauges ending in `_total`, which
//   promtool rejects, so they are kept apart and only merged into the /metrics output.
//
// The runtime's counters are monotonic totals read from a snapshot. They are exposed as real
// Counters whose collect() adds the delta since the previous scrape (a total that went down
// counts as a reset: its new value is added; the engine thread's totals survive its restarts,
// see SymbolMemory.counters, but the runtime is free to start over). All collect() hooks of
// one scrape share one snapshot (refreshed at most once per event-loop turn).
// Latency histograms are fed from runtime.drainLatency() on a timer and at scrape time.

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LatencyStage, MetricsSnapshot, RuntimeView, WorkerHealth } from '../runtime/view.ts';
import { VERSION } from '../version.ts';
import { STATE_PATH } from './routes/state-path.ts';
import type { ServiceObserver } from '../backtest-service/service.ts';

/** Latency buckets in seconds: 1 us .. 1 s. */
export const LATENCY_BUCKETS = [1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 1];
/** Backtest wall time buckets in seconds. */
export const BACKTEST_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
/** HTTP handler time buckets in seconds. */
export const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 120];
// The labels of GET /api/state's fast path, made once (as the Hono path labels it: the route is the path).
const STATE_DURATION_LABELS = { method: 'GET', route: STATE_PATH } as const;
const STATE_COUNT_LABELS = { ...STATE_DURATION_LABELS, status: '200' } as const;

export type BacktestOutcome = 'completed' | 'failed' | 'cancelled' | 'rejected_busy' | 'rejected_invalid';

export interface EngineMetricsOptions {
  /** Interval of the latency drain timer in ms (0 = only at scrape time). Default 1000. */
  latencyDrainMs?: number;
  /** Register prom-client's default Node metrics (default true). */
  defaultMetrics?: boolean;
  /** The timed latency drain failed (it is retried at the next tick). */
  onError?: (err: unknown) => void;
}

type Fills = 'fillsBuyMaker' | 'fillsBuyTaker' | 'fillsSellMaker' | 'fillsSellTaker';
const FILL_KEYS: { key: Fills; side: 'buy' | 'sell'; liquidity: 'maker' | 'taker' }[] = [
  { key: 'fillsBuyMaker', side: 'buy', liquidity: 'maker' },
  { key: 'fillsBuyTaker', side: 'buy', liquidity: 'taker' },
  { key: 'fillsSellMaker', side: 'sell', liquidity: 'maker' },
  { key: 'fillsSellTaker', side: 'sell', liquidity: 'taker' },
];

/** Tracks the last seen value of a monotonic total per label set and returns the increment. */
class DeltaTracker {
  private readonly last = new Map<string, number>();
  delta(key: string, total: number): number {
    if (!Number.isFinite(total) || total < 0) return 0;
    const prev = this.last.get(key);
    this.last.set(key, total);
    if (prev === undefined) return total;
    return total >= prev ? total - prev : total; // went down: the source was reset
  }
}

export class EngineMetrics {
  /** The engine's own metrics (lint this one with promtool). */
  readonly engine = new Registry();
  /** Node default metrics (process_*, nodejs_*). */
  readonly node = new Registry();
  private readonly merged: Registry;

  readonly sseClients: Gauge;
  readonly sseDropped: Counter<'reason'>;
  readonly sseCoalesced: Counter;
  readonly backtests: Counter<'outcome'>;
  readonly backtestDuration: Histogram<'outcome'>;
  readonly backtestsRunning: Gauge;
  readonly backtestQueuedSessions: Gauge;
  readonly journalWriteFailures: Counter;
  readonly journalQuarantined: Counter;
  readonly journalDeleted: Counter;
  readonly journalRuns: Gauge;
  readonly journalBytes: Gauge;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  /** GET /api/state answers of the fast path not yet added to httpRequests. */
  private stateAnswers = 0;
  private readonly latency: Record<LatencyStage, Histogram<'symbol'>>;

  private snapshot: MetricsSnapshot[] = [];
  private workers: WorkerHealth[] = [];
  private fresh = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly runtime: RuntimeView,
    opts: EngineMetricsOptions = {},
  ) {
    const reg = [this.engine];
    const snap = () => {
      this.refresh();
      return this.snapshot;
    };

    new Gauge({ name: 'engine_info', help: 'Engine build information (always 1).', labelNames: ['version'], registers: reg }).set({ version: VERSION }, 1);
    new Gauge({
      name: 'engine_uptime_seconds',
      help: 'Seconds since the simulation runtime started.',
      registers: reg,
      collect() {
        this.set(Math.max(0, (Date.now() - runtime.startedAtMs) / 1000));
      },
    });

    // Monotonic totals from the runtime snapshot.
    const counter = (name: string, help: string, key: 'events' | 'orders' | 'cancels' | 'rejects' | 'ringDrops' | 'predictions') => {
      const d = new DeltaTracker();
      new Counter({
        name,
        help,
        labelNames: ['symbol'],
        registers: reg,
        collect() {
          for (const s of snap()) {
            const inc = d.delta(s.symbol, s[key]);
            this.inc({ symbol: s.symbol }, inc);
          }
        },
      });
    };
    counter('engine_events_total', 'Market-data events handled by the engine event loop.', 'events');
    counter('engine_orders_total', 'New orders sent to the exchange.', 'orders');
    counter('engine_cancels_total', 'Cancel requests sent to the exchange.', 'cancels');
    counter('engine_rejects_total', 'Orders rejected (by risk checks or the exchange).', 'rejects');
    counter('engine_ring_drops_total', 'Records dropped because a shared-memory ring was full.', 'ringDrops');
    counter('engine_predictions_total', 'Model predictions made.', 'predictions');
    const fillsDelta = new DeltaTracker();
    new Counter({
      name: 'engine_fills_total',
      help: 'Fills received, by side and liquidity (maker = passive, taker = aggressive).',
      labelNames: ['symbol', 'side', 'liquidity'],
      registers: reg,
      collect() {
        for (const s of snap()) {
          for (const f of FILL_KEYS) {
            const inc = fillsDelta.delta(`${s.symbol}\u0000${f.key}`, s[f.key]);
            this.inc({ symbol: s.symbol, side: f.side, liquidity: f.liquidity }, inc);
          }
        }
      },
    });

    // Gauges from the runtime snapshot.
    const gauge = (name: string, help: string, value: (s: MetricsSnapshot) => number) => {
      new Gauge({
        name,
        help,
        labelNames: ['symbol'],
        registers: reg,
        collect() {
          this.reset();
          for (const s of snap()) this.set({ symbol: s.symbol }, value(s));
        },
      });
    };
    gauge('engine_position_contracts', 'Net position in contracts (negative = short).', (s) => s.position);
    gauge('engine_realized_pnl_usd', 'Realized P&L in USD (closed trades, gross of fees).', (s) => s.realizedPnl);
    gauge('engine_unrealized_pnl_usd', 'Unrealized P&L in USD (open position marked to mid).', (s) => s.unrealizedPnl);
    // A gauge, not a counter: rebates (negative fees) can make it go down.
    gauge('engine_fees_paid_usd', 'Fees paid in USD (negative = net rebate).', (s) => s.feesPaid);
    gauge('engine_equity_usd', 'Equity in USD: initial capital + realized + unrealized - fees.', (s) => s.equity);
    gauge('engine_drawdown_ratio', 'Drawdown from the running equity peak, as a fraction (0.05 = 5%).', (s) => s.drawdownRatio);
    gauge('engine_kill_switch', 'Kill switch state: 1 = active (quoting stopped), 0 = inactive.', (s) => (s.killSwitch ? 1 : 0));

    // Worker health.
    const workers = () => {
      this.refresh();
      return this.workers;
    };
    new Gauge({
      name: 'engine_worker_up',
      help: 'Worker thread state: 1 = running, 0 = anything else (starting, stalled, dead, restarting, stopped).',
      labelNames: ['worker'],
      registers: reg,
      collect() {
        this.reset();
        for (const w of workers()) this.set({ worker: w.name }, w.state === 'running' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'engine_worker_heartbeat_age_seconds',
      help: 'Seconds since the worker last bumped its heartbeat.',
      labelNames: ['worker'],
      registers: reg,
      collect() {
        this.reset();
        for (const w of workers()) this.set({ worker: w.name }, w.heartbeatAgeMs / 1000);
      },
    });
    const restartDelta = new DeltaTracker();
    new Counter({
      name: 'engine_worker_restarts_total',
      help: 'Worker thread restarts.',
      labelNames: ['worker'],
      registers: reg,
      collect() {
        for (const w of workers()) this.inc({ worker: w.name }, restartDelta.delta(w.name, w.restarts));
      },
    });

    // Latency histograms (seconds), fed by drainLatency().
    // The first histogram drains the runtime at scrape time, before any histogram is rendered
    // (the registry starts every metric's get() in registration order; collect() runs first).
    const hist = (name: string, help: string, drain = false) =>
      new Histogram({ name, help, labelNames: ['symbol'], buckets: LATENCY_BUCKETS, registers: reg, ...(drain ? { collect: () => this.drainLatency() } : {}) });
    this.latency = {
      tick_to_trade: hist('engine_tick_to_trade_seconds', 'Tick-to-trade latency: market data received to order sent, in seconds.', true),
      book_update: hist('engine_book_update_seconds', 'Time to apply one market-data update to the local book, in seconds.'),
      inference: hist('engine_inference_seconds', 'Model inference time per prediction, in seconds.'),
    };

    // HTTP layer.
    this.sseClients = new Gauge({ name: 'engine_sse_clients', help: 'Connected live stream (SSE) clients.', registers: reg });
    this.sseDropped = new Counter({
      name: 'engine_sse_dropped_clients_total',
      help: 'SSE clients dropped because they were too slow or stuck.',
      labelNames: ['reason'],
      registers: reg,
    });
    this.sseCoalesced = new Counter({
      name: 'engine_sse_coalesced_frames_total',
      help: 'State frames replaced by a newer one before a slow SSE client could receive them.',
      registers: reg,
    });
    this.backtests = new Counter({ name: 'engine_backtests_total', help: 'Backtest requests by outcome.', labelNames: ['outcome'], registers: reg });
    this.backtestDuration = new Histogram({
      name: 'engine_backtest_duration_seconds',
      help: 'Wall time of finished backtest runs, in seconds.',
      labelNames: ['outcome'],
      buckets: BACKTEST_BUCKETS,
      registers: reg,
    });
    this.backtestsRunning = new Gauge({ name: 'engine_backtests_running', help: 'Backtest runs in progress (running or queued on the pool).', registers: reg });
    this.backtestQueuedSessions = new Gauge({
      name: 'engine_backtest_queued_sessions',
      help: 'Sessions of the admitted backtest runs, running or queued (admission bounds these).',
      registers: reg,
    });
    this.journalWriteFailures = new Counter({
      name: 'engine_backtest_journal_write_failures_total',
      help: 'Backtest journal writes that failed (the run is reported failed).',
      registers: reg,
    });
    this.journalQuarantined = new Counter({
      name: 'engine_backtest_journal_quarantined_total',
      help: 'Corrupt backtest journal records moved to the quarantine folder.',
      registers: reg,
    });
    this.journalDeleted = new Counter({
      name: 'engine_backtest_journal_retention_deleted_total',
      help: 'Backtest runs deleted by retention ([storage] max_runs, max_bytes, max_age_days).',
      registers: reg,
    });
    this.journalRuns = new Gauge({ name: 'engine_backtest_journal_runs', help: 'Runs in the backtest journal.', registers: reg });
    this.journalBytes = new Gauge({ name: 'engine_backtest_journal_bytes', help: 'Bytes of the backtest journal files.', registers: reg });
    for (const c of [this.journalWriteFailures, this.journalQuarantined, this.journalDeleted]) c.inc(0);
    // GET /api/state's fast path counts its answers in a plain number, added here whenever the
    // counter is read: a labelled inc() per request (label checks, a hash string) was a
    // measurable share of that route's CPU per request (docs/performance-archive.md, round fourteen).
    this.httpRequests = new Counter({
      name: 'engine_http_requests_total',
      help: 'HTTP requests by method, route and status ("client_closed": the client went away before the answer).',
      labelNames: ['method', 'route', 'status'],
      registers: reg,
      collect: () => this.flushStateAnswers(),
    });
    this.httpDuration = new Histogram({
      name: 'engine_http_request_duration_seconds',
      help: 'HTTP handler time until the response head, in seconds.',
      labelNames: ['method', 'route'],
      buckets: HTTP_BUCKETS,
      registers: reg,
    });
    for (const o of ['completed', 'failed', 'cancelled', 'rejected_busy', 'rejected_invalid'] as const) this.backtests.inc({ outcome: o }, 0);
    this.sseCoalesced.inc(0);

    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.node });
    this.merged = Registry.merge([this.engine, this.node]);

    const every = opts.latencyDrainMs ?? 1000;
    if (every > 0) {
      this.timer = setInterval(() => {
        try {
          this.drainLatency();
        } catch (e) {
          opts.onError?.(e);
        }
      }, every);
      this.timer.unref();
    }
  }

  /** Reads the runtime snapshot once per event-loop turn (shared by every collect() of a scrape). */
  private refresh(): void {
    if (this.fresh) return;
    this.fresh = true;
    setImmediate(() => (this.fresh = false));
    this.snapshot = this.runtime.metrics();
    this.workers = this.runtime.health().workers;
  }

  /** Records a 200 answer of GET /api/state's fast path (state-fast-path.ts) that took `seconds`. */
  stateAnswered(seconds: number): void {
    this.stateAnswers++;
    this.httpDuration.observe(STATE_DURATION_LABELS, seconds);
  }

  private flushStateAnswers(): void {
    if (this.stateAnswers === 0) return;
    this.httpRequests.inc(STATE_COUNT_LABELS, this.stateAnswers);
    this.stateAnswers = 0;
  }

  /** Moves the runtime's pending latency samples into the histograms. */
  drainLatency(): void {
    this.runtime.drainLatency((stage, symbol, seconds) => {
      const h = this.latency[stage];
      if (h && Number.isFinite(seconds) && seconds >= 0) h.observe({ symbol }, seconds);
    });
  }

  observeBacktest(outcome: BacktestOutcome, seconds?: number): void {
    this.backtests.inc({ outcome });
    if (seconds !== undefined && Number.isFinite(seconds) && seconds >= 0) this.backtestDuration.observe({ outcome }, seconds);
  }

  /** The backtest service's hooks into these metrics. */
  backtestObserver(): ServiceObserver {
    return {
      onFinished: (status, seconds) => this.observeBacktest(status, seconds),
      onRejected: (reason) => this.observeBacktest(reason === 'busy' ? 'rejected_busy' : 'rejected_invalid'),
      onRunning: (n, queuedSessions) => {
        this.backtestsRunning.set(n);
        this.backtestQueuedSessions.set(queuedSessions);
      },
      onJournalWriteFailed: () => this.journalWriteFailures.inc(),
      onQuarantined: (n) => this.journalQuarantined.inc(n),
      onRetentionDeleted: (n) => this.journalDeleted.inc(n),
      onJournalSize: (runs, bytes) => {
        this.journalRuns.set(runs);
        this.journalBytes.set(bytes);
      },
    };
  }

  get contentType(): string {
    return this.engine.contentType;
  }

  /** Text of the engine registry only (what promtool lints). */
  engineText(): Promise<string> {
    return this.engine.metrics();
  }

  /** Text of /metrics: engine metrics followed by the Node default metrics. */
  text(): Promise<string> {
    return this.merged.metrics();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
