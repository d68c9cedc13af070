// The backtest report: one self-contained HTML file (styles inline, charts as inline SVG, no
// script, no network). Every figure shown carries its exact JSON value in data-value, so a
// reader (or a test) can check it against the result without parsing rounded text.
// Size is bounded: each chart series keeps at most MAX_POINTS points (svg-chart.ts), the
// per-session table has one row per session and the alert list at most MAX_EVENTS_LISTED rows.

import type { BacktestResult } from '../../wire/backtest-run.ts';
import { MARKOUT_LABELS } from '../../portfolio/markouts.ts';
import type { Column } from '../fill-table.ts';
import { REPLAY_QUALITY, REPLAY_QUALITY_FIELDS } from '../../market/replay/quality.ts';
import { closedTradePnls, pnlParts } from './pnl-parts.ts';
import { nyHour, nyStamp, SessionAxis, tradeDate } from './session-axis.ts';
import { barChart, esc, MAX_DOTS, type Marker, niceTicks, type Point, timeChart } from './svg-chart.ts';

/** Our quotes sampled once a second: epoch ms, prices (NaN: no quote on that side). */
export interface QuotePoints {
  t: number[];
  bid: number[];
  ask: number[];
  mid: number[];
}

export interface ReportInput {
  result: BacktestResult;
  /** fillTable() of the same run. */
  fills: Column[];
  quotes: QuotePoints;
  /** The engine config the run used (shown as JSON); optional. */
  config?: unknown;
}

const MAX_EVENTS_LISTED = 200;
const usd = (x: number) => `${x < 0 ? '-' : ''}$${Math.abs(x).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
/** Whole dollars, for axis ticks at nice values: -$12,000. */
const usd0 = (x: number) => `${x < 0 ? '-' : ''}$${Math.abs(x).toLocaleString('en-US', { maximumFractionDigits: 0 })}`;
const num = (d: number) => (x: number) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

/** The data source: recorded data as the result names it, else the generator and its seed. */
export function dataSource(r: BacktestResult): string {
  return r.data_source === 'synthetic' ? `synthetic generator, seed ${r.seed}` : r.data_source;
}

/** Drawdown from the running peak, in percent, at each equity sample (max = max_drawdown_pct_1min: the chart's samples are per minute). */
export function drawdownSeries(curve: readonly { t: number; equity: number }[]): Point[] {
  let peak = -Infinity;
  return curve.map((p) => {
    if (p.equity > peak) peak = p.equity;
    return [p.t, peak > 0 ? ((peak - p.equity) / peak) * 100 : 0];
  });
}

/** Quantity-weighted mean markout (ticks) per horizon of the fills with liquidity `liq` (null: all). */
export function markoutsBy(fills: Column[], liq: 'maker' | 'taker' | null): (number | null)[] {
  const col = (n: string) => fills.find((c) => c.name === n)!.values;
  const qty = col('quantity');
  const liquidity = col('liquidity');
  return MARKOUT_LABELS.map((l) => {
    const m = col(`markout_${l}`);
    let sum = 0;
    let n = 0;
    for (let i = 0; i < m.length; i++) {
      if (m[i] === null || (liq !== null && liquidity[i] !== liq)) continue;
      sum += (m[i] as number) * Number(qty[i]);
      n += Number(qty[i]);
    }
    return n > 0 ? sum / n : null;
  });
}

/** A figure computed from the result's (data-derived names how), not one of its fields. */
function derived(key: string, label: string, value: number, text: string, how: string): string {
  return (
    `<div class="fig"><span class="k">${esc(label)}</span><span class="v" data-derived="${esc(key)}" data-from="${esc(how)}" ` +
    `data-value="${esc(JSON.stringify(value))}">${esc(text)}</span></div>`
  );
}

function figure(key: string, label: string, value: unknown, text: string): string {
  return (
    `<div class="fig"><span class="k">${esc(label)}</span><span class="v" data-figure="${esc(key)}" ` +
    `data-value="${esc(JSON.stringify(value))}">${esc(text)}</span></div>`
  );
}

function eventMarkers(r: BacktestResult): Marker[] {
  const m: Marker[] = r.alerts.map((a) => ({ x: a.ts, label: `${a.severity} ${a.code}: ${a.message}`, color: a.severity === 'critical' ? '#d33' : '#e90' }));
  if (r.kill_switch.at) m.push({ x: Date.parse(r.kill_switch.at), label: `kill switch: ${r.kill_switch.rule}`, color: '#a0f' });
  return m;
}

/** The kill switch, right under the title: a run it stopped is not a plain result. */
function killBanner(r: BacktestResult): string {
  const k = r.kill_switch;
  if (!k.tripped) return '';
  const skipped = k.sessions_not_traded.length;
  const when = k.at ? nyStamp(Date.parse(k.at)) : 'unknown time';
  const later = skipped ? `; ${skipped} later session${skipped === 1 ? '' : 's'} not traded: ${esc(k.sessions_not_traded.join(', '))}` : '';
  return (
    `<p class="banner kill" data-kill-switch="${esc(k.at ?? '')}">Stopped by the kill switch at ${esc(when)} (session ` +
    `${esc(k.session_date ?? 'n/a')}, ${esc(k.rule ?? 'n/a')}, equity ` +
    `${k.equity === null ? 'n/a' : usd(k.equity)})${later}.</p>`
  );
}

const defined = (t: number[], y: number[]): Point[] => t.map((x, i): Point => [x, y[i]]).filter((p) => !Number.isNaN(p[1]));

/** Recorded data: its non-zero data-quality counters, the run's and each session's (none for the synthetic market). */
function dataQualitySection(r: BacktestResult): string {
  const q = r.data_quality;
  if (q === null) return '';
  const rows = REPLAY_QUALITY_FIELDS.filter((f) => q[f] !== 0);
  const head = `<tr><th>counter</th><th>run</th>${r.session_results.map((s) => `<th>${esc(s.date)}</th>`).join('')}<th>what it counts</th></tr>`;
  const body = rows
    .map(
      (f) =>
        `<tr data-quality="${f}"><td>${f}</td><td class="n" ` +
        `data-value="${q[f]}">${q[f].toLocaleString('en-US')}</td>` +
        r.session_results.map((s) => `<td class="n">${(s.data_quality?.[f] ?? 0).toLocaleString('en-US')}</td>`).join('') +
        `<td>${esc(REPLAY_QUALITY[f])}</td></tr>`,
    )
    .join('');
  return `<h2>Recorded data quality</h2>${rows.length ? `<table>${head}${body}</table>` : '<p>every counter is zero</p>'}`;
}

/** Equity changes summed by New York hour of day, within sessions (the change from one sample to the next counts in the later one's hour). */
export function pnlByHour(curve: readonly { t: number; equity: number }[]): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 1; i < curve.length; i++) {
    if (tradeDate(curve[i].t) !== tradeDate(curve[i - 1].t)) continue; // overnight: no trading
    const h = nyHour(curve[i].t);
    out.set(h, (out.get(h) ?? 0) + curve[i].equity - curve[i - 1].equity);
  }
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]));
}

/** Counts of values per bin of nice width (about `bins` bins): [lower edge, count][]. */
export function histogram(values: readonly number[], bins = 20): [number, number][] {
  if (values.length === 0) return [];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const edges = niceTicks(lo, hi, bins);
  const step = edges.length > 1 ? edges[1] - edges[0] : 1;
  const counts = edges.slice(0, -1).map((e): [number, number] => [e, 0]);
  if (counts.length === 0) counts.push([edges[0], 0]);
  for (const v of values) counts[Math.min(counts.length - 1, Math.max(0, Math.floor((v - edges[0]) / step)))][1]++;
  return counts;
}

export function buildReport({ result: r, fills, quotes, config }: ReportInput): string {
  const col = (n: string) => fills.find((c) => c.name === n)!.values;
  const times = col('time_ns').map((t) => Number((t as bigint) / 1_000_000n));
  const markers = eventMarkers(r);
  const equity: Point[] = r.equity_curve.map((p) => [p.t, p.equity]);
  // One session-compressed axis for every time chart: the sessions the run's instants fall in.
  const axis = new SessionAxis([...equity.map((p) => p[0]), ...times, ...quotes.t]);
  const position: Point[] = times.map((t, i) => [t, Number(col('position_after')[i])]);
  const price = col('price') as number[];
  const side = col('side');
  const buys: Point[] = [];
  const sells: Point[] = [];
  times.forEach((t, i) => (side[i] === 'BUY' ? buys : sells).push([t, price[i]]));
  const maker = markoutsBy(fills, 'maker');
  const taker = markoutsBy(fills, 'taker');
  const all = markoutsBy(fills, null);
  const byHour = pnlByHour(r.equity_curve);
  const tradePnls = closedTradePnls(fills);
  const parts = pnlParts(r);

  const charts = [
    timeChart('chart-equity', 'Equity (USD)', [{ name: 'equity', color: '#1f77b4', points: equity }], { yFormat: usd0, axis, markers }),
    timeChart('chart-drawdown', 'Drawdown from the running peak (%)', [{ name: 'drawdown %', color: '#d62728', points: drawdownSeries(r.equity_curve) }], {
      yFormat: (y) => `${y.toLocaleString('en-US', { maximumFractionDigits: 3 })} %`,
      axis,
      markers,
    }),
    timeChart('chart-position', 'Position after each fill (contracts)', [{ name: 'position', color: '#2ca02c', points: position, style: 'step' }], {
      yFormat: num(0),
      axis,
      markers,
      integer: true,
    }),
    timeChart(
      'chart-price',
      'Price: mid and our quotes (sampled each second), our buys and sells',
      [
        { name: 'mid', color: '#888', points: defined(quotes.t, quotes.mid) },
        { name: 'our bid', color: '#98df8a', points: defined(quotes.t, quotes.bid), style: 'step' },
        { name: 'our ask', color: '#ff9896', points: defined(quotes.t, quotes.ask), style: 'step' },
        { name: 'buy', color: '#2ca02c', points: buys, style: 'dots' },
        { name: 'sell', color: '#d62728', points: sells, style: 'dots' },
      ],
      { yFormat: (y) => y.toLocaleString('en-US', { maximumFractionDigits: 4 }), axis, markers },
    ),
    barChart(
      'chart-markouts',
      'Markout by horizon (ticks per contract, + is in our favour)',
      [
        { name: 'maker', color: '#1f77b4' },
        { name: 'taker', color: '#ff7f0e' },
      ],
      MARKOUT_LABELS.map((l, h) => ({ label: `+${l}`, values: [maker[h], taker[h]] })),
      (y) => y.toLocaleString('en-US', { maximumFractionDigits: 3 }),
    ),
    barChart(
      'chart-pnl-session',
      'P&L by session (USD, after fees)',
      [{ name: 'session P&L', color: '#1f77b4' }],
      r.session_results.map((s) => ({ label: s.date, values: [s.traded ? s.pnl : null] })),
      usd0,
    ),
    barChart(
      'chart-pnl-hour',
      'P&L by hour of day, New York time (USD, from the equity curve)',
      [{ name: 'P&L in the hour', color: '#9467bd' }],
      [...byHour].map(([h, v]) => ({ label: `${String(h).padStart(2, '0')}:00 ET`, values: [v] })),
      usd0,
    ),
    barChart(
      'chart-trade-pnl',
      `Distribution of trade P&L: ${tradePnls.length.toLocaleString('en-US')} closing fills, USD net of fees (bin lower edges)`,
      [{ name: 'closing fills', color: '#8c564b' }],
      histogram(tradePnls).map(([edge, n]) => ({ label: usd0(edge), values: [n] })),
      num(0),
      true,
    ),
  ];

  const k = r.kill_switch;
  const figures = [
    derived('gross_pnl', 'P&L before fees', parts.gross, usd(parts.gross), 'total_pnl + fees'),
    figure('fees', 'fees paid', parts.fees, usd(parts.fees)),
    figure('total_pnl', 'total P&L (after fees)', parts.net, usd(parts.net)),
    figure('final_equity', 'final equity', r.final_equity, usd(r.final_equity)),
    figure('max_drawdown_pct', 'max drawdown', r.max_drawdown_pct, `${r.max_drawdown_pct.toFixed(4)} %`),
    figure('sharpe_ratio', r.sharpe_basis === 'daily' ? 'Sharpe ratio (daily)' : 'Sharpe ratio (1-min)', r.sharpe_ratio, r.sharpe_ratio.toFixed(4)),
    figure('win_rate', 'win rate', r.win_rate, `${(r.win_rate * 100).toFixed(2)} %`),
    figure('profit_factor', 'profit factor', r.profit_factor, r.profit_factor === null ? 'n/a' : r.profit_factor.toFixed(4)),
    figure('total_trades', 'closed trades', r.total_trades, r.total_trades.toLocaleString('en-US')),
    figure('total_fills', 'fills', r.total_fills, r.total_fills.toLocaleString('en-US')),
    figure('final_position', 'final position', r.final_position, String(r.final_position)),
    figure('events_processed', 'events', r.events_processed, r.events_processed.toLocaleString('en-US')),
    figure('kill_switch.tripped', 'kill switch', k.tripped, k.tripped && k.at ? `tripped ${nyStamp(Date.parse(k.at))} (${k.rule})` : 'not tripped'),
  ];
  const markoutRows = MARKOUT_LABELS.map((l, h) => {
    const m = r.markouts[l];
    const cell = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
    return (
      `<tr><td>+${l}</td><td data-figure="markouts.${l}.avg_ticks" ` +
      `data-value="${esc(JSON.stringify(m?.avg_ticks ?? null))}">${cell(m?.avg_ticks ?? null)}</td><td data-markout="maker" ` +
      `data-value="${esc(JSON.stringify(maker[h]))}">${cell(maker[h])}</td><td data-markout="taker" ` +
      `data-value="${esc(JSON.stringify(taker[h]))}">${cell(taker[h])}</td><td data-markout="all-fills" ` +
      `data-value="${esc(JSON.stringify(all[h]))}">${m?.fills_qty ?? 0}</td></tr>`
    );
  }).join('');
  const sessionRows = r.session_results
    .map(
      (s) =>
        `<tr data-session="${esc(s.date)}"><td>${esc(s.date)}</td><td>${esc(s.contract)}</td><td>${s.traded ? 'yes' : 'no'}</td><td ` +
        `class="n" data-value="${s.pnl}">${usd(s.pnl)}</td><td class="n">${s.fills.toLocaleString('en-US')}</td><td ` +
        `class="n">${s.events.toLocaleString('en-US')}</td><td class="n">${s.final_position}</td><td ` +
        `class="n">${s.final_mid ?? 'n/a'}</td><td>${s.kill_switch ? 'tripped' : ''}</td></tr>`,
    )
    .join('');
  const listed = markers.slice(0, MAX_EVENTS_LISTED);
  const more = markers.length > listed.length ? `<p>${markers.length - listed.length} more not listed (all are on the charts).</p>` : '';
  const events = listed.length
    ? `<ul>${listed.map((m) => `<li><time datetime="${new Date(m.x).toISOString()}">${nyStamp(m.x)}</time> ${esc(m.label)}</li>`).join('')}</ul>${more}`
    : '<p>none</p>';
  const quality = dataQualitySection(r);
  const title = `Backtest ${r.symbol} ${r.start_date}..${r.end_date}`;
  const meta: [string, string][] = [
    ['contracts', r.contracts.join(', ')],
    ['sessions', String(r.sessions)],
    ['seed', String(r.seed)],
    ['data source', dataSource(r)],
    ['model', r.use_ml ? (r.model_version ?? 'n/a') : 'off (no signal)'],
  ];

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.figs{display:grid;grid-template-columns:repeat(4,1fr);gap:6px}
.fig{border:1px solid #ddd;padding:6px}.fig .k{display:block;color:#666;font-size:12px}.fig .v{font-weight:600}
figure{margin:12px 0}figcaption{font-weight:600;margin-bottom:4px}
svg.chart{width:100%;height:auto;border:1px solid #eee}svg text{font-size:11px;fill:#555}
.banner{border:1px solid #a0f;background:#f6eaff;padding:8px 10px;font-weight:600}
rect.session{fill:#fafafa;stroke:#ddd}
.grid{stroke:#eee}.series{fill:none;stroke-width:1.5}.dots{stroke-width:4;stroke-linecap:round}.bar{stroke:none}.marker{stroke-dasharray:4 3;stroke-width:1}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:3px 8px}td.n{text-align:right}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}
</style></head><body>
<h1>${esc(title)}</h1>
${killBanner(r)}
<table class="meta">${meta.map(([a, b]) => `<tr><th>${esc(a)}</th><td data-meta="${esc(a)}">${esc(b)}</td></tr>`).join('')}</table>
<h2>Figures</h2><div class="figs">${figures.join('')}</div>
<h2>Charts</h2>
<p>Times are New York (ET), the exchange's. The time axis shows the sessions side by side, nights, weekends and holidays left out:
a line breaks between sessions, each block is labelled with its session date. Dashed vertical lines: risk alerts (orange, red when
critical) and the kill switch (purple). Long series are reduced to at most 2,000 points each (fill markers to ${MAX_DOTS} a side),
keeping each bucket's low and high. The data files keep UTC and nanoseconds.</p>
${charts.join('\n')}
<h2>Markouts</h2>
<table><tr><th>horizon</th><th>all fills (result)</th><th>maker</th><th>taker</th><th>contracts measured</th></tr>${markoutRows}</table>
<h2>Sessions</h2>
<table><tr><th>date</th><th>contract</th><th>traded</th><th>P&amp;L</th><th>fills</th><th>events</th><th>final position</th><th>final mid</th>
<th>kill switch</th></tr>${sessionRows}</table>
${quality}<h2>Risk events</h2>${events}
<h2>Parameters</h2><pre>${esc(JSON.stringify({ params: r.params, fee_schedule: r.fee_schedule }, null, 2))}</pre>
${config === undefined ? '' : `<h2>Config</h2><pre>${esc(JSON.stringify(config, null, 2))}</pre>`}
</body></html>
`;
}
