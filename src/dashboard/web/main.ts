// Dashboard entry: one EventSource feeds a client-side store; views render from it at most once
// per animation frame (a 10 Hz stream never queues work, and a hidden tab does no drawing).

import { BacktestPanel } from './backtest-form.ts';
import { SweepPanel } from './sweep-form.ts';
import { StreamConnection } from './connection.ts';
import { byId } from './dom.ts';
import { HeaderView } from './header.ts';
import { LadderView } from './ladder.ts';
import { LatencyView } from './latency.ts';
import { PnlChartView } from './pnl-chart.ts';
import { PriceChartView } from './price-chart.ts';
import { RiskView } from './risk.ts';
import { StatsView } from './stats.ts';
import { StrategyCatalog } from './strategy-catalog.ts';
import { Store, type HistorySnapshot } from '../shared/store.ts';
import { Toasts } from './toasts.ts';
import { TradesView } from './trades.ts';

const store = new Store(decodeURIComponent(location.hash.slice(1)) || null);
const header = new HeaderView(store, (symbol) => {
  if (store.select(symbol)) {
    history.replaceState(null, '', `#${encodeURIComponent(symbol)}`);
    schedule();
  }
});
const ladder = new LadderView(byId('ladder'), byId('ladder-sub'));
const price = new PriceChartView(byId('price-chart'), byId('price-legend'), byId('price-note'));
const pnl = new PnlChartView(byId('pnl-chart'), byId('pnl-legend'));
const trades = new TradesView(byId('trades'), byId('trades-sub'));
const latency = new LatencyView(byId('latency-table'), byId('latency-chart'));
const stats = new StatsView(byId('stats'));
const risk = new RiskView(byId('risk'));
const strategies = new StrategyCatalog();
let wasLive = false;
const backtest = new BacktestPanel(byId('backtest'), strategies);
new SweepPanel(byId('sweep'), strategies);
const toasts = new Toasts(byId('toasts'));

const views: [string, () => void][] = [
  ['header', () => header.render()],
  ['ladder', () => ladder.render(store.current)],
  ['price', () => price.render(store.current, hist())],
  ['pnl', () => pnl.render(store.current, hist())],
  ['trades', () => trades.render(store.current, hist())],
  ['latency', () => latency.render(store.current, hist())],
  ['stats', () => stats.render(store.current)],
  ['risk', () => risk.render(store.current)],
  ['backtest', () => backtest.prefill(store.current)],
];
const failed = new Set<string>();

function hist() {
  const st = store.current;
  return st ? store.history(st.symbol) : null;
}

let pending = false;
function schedule(): void {
  if (pending) return;
  pending = true;
  requestAnimationFrame(render);
}

function render(): void {
  pending = false;
  for (const [name, draw] of views) {
    try {
      draw();
      failed.delete(name);
    } catch (e) {
      // One broken panel must not blank the others; report once until it recovers.
      if (!failed.has(name)) console.error(`dashboard: the ${name} panel failed to render`, e);
      failed.add(name);
    }
  }
}

const conn = new StreamConnection('/api/stream', {
  state: (p) => {
    store.ingest(p, Date.now());
    schedule();
  },
  fill: (f) => {
    if (store.addFill(f)) schedule();
  },
  alert: (a) => toasts.alert(a),
  backtestProgress: (p) => backtest.onProgress(p),
  backtestComplete: (r) => backtest.onComplete(r),
  status: (s, detail) => {
    // Live again: the engine may have been started again with other strategy files.
    if (s === 'live' && !wasLive) void strategies.load();
    wasLive = s === 'live';
    header.setConnection(s, detail);
  },
});

/** The history the dashboard server recorded before this page opened (best effort, bounded wait). */
async function seedHistory(): Promise<void> {
  const ac = new AbortController();
  const timer = window.setTimeout(() => ac.abort(), 3000);
  try {
    const res = await fetch('/dashboard/history', { signal: ac.signal });
    if (res.status === 200) store.seed((await res.json()) as HistorySnapshot);
  } catch {
    // no history: the charts start with the stream
  } finally {
    clearTimeout(timer);
  }
}

void seedHistory().then(() => conn.start());
window.setInterval(() => header.tick(Date.now()), 500);
