// The dashboard's state: the latest payload from the stream, and per symbol the bounded
// histories the charts and tables draw (every one has a cap, so a page left open for days does
// not grow). Time bins are whole seconds of simulated exchange time (sim_time), the clock of the
// market. The same classes run in the browser and in the dashboard server, which records the
// stream from its start so a page opened later is seeded with the history (GET /dashboard/history).

import { CONTRACTS } from '../../market/instruments.ts';
import { LATENCY_STAGES, type FillView, type LatencyStage, type StatePayload, type SymbolState } from './api.ts';
import { FillStore } from './fill-store.ts';
import { BinnedSeries } from './series-buffer.ts';

export const CAPS = {
  /** Points per chart series: one per second of market time (two hours at speed 1). */
  seriesPoints: 7200,
  /** Fills kept per symbol (table and chart markers). */
  fills: 500,
};

export interface LatencyHistory {
  p50: BinnedSeries;
  p99: BinnedSeries;
}

/** One series on the wire: parallel arrays of bin times (s) and values. */
export interface SeriesWire {
  t: number[];
  v: number[];
}

export interface SymbolHistoryWire {
  series: Record<string, SeriesWire>;
  fills: FillView[];
}

/** GET /dashboard/history */
export interface HistorySnapshot {
  /** The engine run the history belongs to. */
  version: string;
  uptime_s: number;
  symbols: Record<string, SymbolHistoryWire>;
}

function tickOf(root: string): number {
  return Object.prototype.hasOwnProperty.call(CONTRACTS, root) ? CONTRACTS[root].tickSize : 0.01;
}

export class SymbolHistory {
  readonly mid = new BinnedSeries(CAPS.seriesPoints);
  /** mid + predicted move, placed at t + horizon (where the forecast falls due). */
  readonly forecast = new BinnedSeries(CAPS.seriesPoints);
  /** The model's signal, ticks. */
  readonly signal = new BinnedSeries(CAPS.seriesPoints);
  readonly totalPnl = new BinnedSeries(CAPS.seriesPoints);
  readonly realizedPnl = new BinnedSeries(CAPS.seriesPoints);
  readonly position = new BinnedSeries(CAPS.seriesPoints);
  readonly latency = Object.fromEntries(
    LATENCY_STAGES.map((s) => [s, { p50: new BinnedSeries(CAPS.seriesPoints), p99: new BinnedSeries(CAPS.seriesPoints) }]),
  ) as Record<LatencyStage, LatencyHistory>;
  readonly fills = new FillStore(CAPS.fills);

  ingest(st: SymbolState): void {
    const ms = Date.parse(st.sim_time);
    if (!Number.isFinite(ms)) return;
    const t = Math.floor(ms / 1000);
    const { mid } = st.book;
    if (mid !== null) {
      this.mid.push(t, mid);
      const p = st.prediction;
      if (p) {
        this.forecast.push(Math.floor((ms + p.horizon_ms) / 1000), mid + p.value_ticks * tickOf(st.root));
        this.signal.push(t, p.value_ticks);
      }
    }
    this.totalPnl.push(t, st.position.total_pnl);
    this.realizedPnl.push(t, st.position.realized_pnl_gross);
    this.position.push(t, st.position.contracts);
    for (const s of LATENCY_STAGES) {
      const l = st.latency[s];
      if (l.count > 0 && l.p50_us !== null && l.p99_us !== null) {
        this.latency[s].p50.push(t, l.p50_us);
        this.latency[s].p99.push(t, l.p99_us);
      }
    }
    this.fills.merge(st.recent_trades);
  }

  private named(): [string, BinnedSeries][] {
    const out: [string, BinnedSeries][] = [
      ['mid', this.mid],
      ['forecast', this.forecast],
      ['signal', this.signal],
      ['totalPnl', this.totalPnl],
      ['realizedPnl', this.realizedPnl],
      ['position', this.position],
    ];
    for (const s of LATENCY_STAGES) out.push([`${s}.p50`, this.latency[s].p50], [`${s}.p99`, this.latency[s].p99]);
    return out;
  }

  toWire(): SymbolHistoryWire {
    const series: Record<string, SeriesWire> = {};
    for (const [name, s] of this.named()) series[name] = { t: s.t.slice(), v: s.v.slice() };
    return { series, fills: this.fills.list.slice() };
  }

  /** Seeds empty series from a snapshot (anything already recorded wins). */
  load(w: SymbolHistoryWire): void {
    for (const [name, s] of this.named()) {
      const src = w.series[name];
      if (!src || s.length > 0 || !Array.isArray(src.t) || !Array.isArray(src.v)) continue;
      const n = Math.min(src.t.length, src.v.length);
      for (let i = Math.max(0, n - CAPS.seriesPoints); i < n; i++) s.push(src.t[i], src.v[i]);
    }
    if (Array.isArray(w.fills)) for (const f of w.fills) this.fills.add(f);
  }
}

export class Store {
  latest: StatePayload | null = null;
  selected: string | null = null;
  /** Wall-clock ms of the last state frame. */
  lastFrameAt = 0;
  frames = 0;
  /** Bumped when the engine restarted (uptime went back): views drop what they derived. */
  engineRuns = 0;
  private readonly histories = new Map<string, SymbolHistory>();
  private lastUptime = -1;
  private lastVersion = '';

  constructor(private readonly preferred: string | null = null) {}

  history(symbol: string): SymbolHistory {
    let h = this.histories.get(symbol);
    if (!h) {
      h = new SymbolHistory();
      this.histories.set(symbol, h);
    }
    return h;
  }

  /** The selected symbol's state, if any. */
  get current(): SymbolState | null {
    if (!this.latest || !this.selected) return null;
    return this.latest.states[this.selected] ?? null;
  }

  ingest(p: StatePayload, now: number): void {
    if (this.lastUptime >= 0 && (p.uptime_s + 1 < this.lastUptime || p.version !== this.lastVersion)) {
      // A new engine process: its fills, P&L and clock start over.
      this.histories.clear();
      this.engineRuns++;
    }
    this.lastUptime = p.uptime_s;
    this.lastVersion = p.version;
    for (const sym of [...this.histories.keys()]) if (!p.symbols.includes(sym)) this.histories.delete(sym);
    for (const sym of p.symbols) {
      const st = p.states[sym];
      if (st) this.history(sym).ingest(st);
    }
    this.latest = p;
    this.lastFrameAt = now;
    this.frames++;
    if (!this.selected || !p.symbols.includes(this.selected)) {
      this.selected = this.preferred && p.symbols.includes(this.preferred) ? this.preferred : (p.symbols[0] ?? null);
    }
  }

  addFill(f: FillView): boolean {
    if (this.latest && !this.latest.symbols.includes(f.symbol)) return false;
    return this.history(f.symbol).fills.add(f);
  }

  select(symbol: string): boolean {
    if (!this.latest?.symbols.includes(symbol) || symbol === this.selected) return false;
    this.selected = symbol;
    return true;
  }

  /** Everything recorded, for GET /dashboard/history (null before the first frame). */
  snapshot(): HistorySnapshot | null {
    if (!this.latest) return null;
    const symbols: Record<string, SymbolHistoryWire> = {};
    for (const [sym, h] of this.histories) symbols[sym] = h.toWire();
    return { version: this.latest.version, uptime_s: this.latest.uptime_s, symbols };
  }

  /** Seeds an empty store from a snapshot; restart detection then continues from its uptime. */
  seed(s: HistorySnapshot): void {
    if (this.latest || typeof s !== 'object' || s === null || typeof s.symbols !== 'object') return;
    for (const [sym, w] of Object.entries(s.symbols)) this.history(sym).load(w);
    this.lastUptime = s.uptime_s;
    this.lastVersion = s.version;
  }
}
