// Latency per stage, from SymbolState.latency (the engine's percentiles over its recent sample
// window, µs): a table of p50/p90/p99/max and sample count, and the history of p50 (solid) and
// p99 (dashed) per stage on a log scale, one point per second of market time.

import { LineSeries, LineStyle, PriceScaleMode, type IChartApi } from 'lightweight-charts';
import { LATENCY_STAGES, type LatencyStage, type SymbolState } from '../shared/api.ts';
import { COLORS, SeriesSync, emptyNote, fitWhileShort, makeChart } from './chart-common.ts';
import { el, setText } from './dom.ts';
import { fmtInt, fmtLatency, fmtUs } from './format.ts';

/** A table cell: µs to three digits below 1 ms, then ms or s (a 1.3 s max no longer overflows the panel). */
const cell = (us: number | null | undefined): string => (us !== null && us !== undefined && us < 1000 ? `${fmtUs(us)} µs` : fmtLatency(us));
import type { SymbolHistory } from '../shared/store.ts';

const LABELS: Record<LatencyStage, [string, string]> = {
  tick_to_trade: ['tick→trade', 'market data received by the engine until the order decision is sent'],
  book_update: ['book update', 'applying one market data event to the local book'],
  inference: ['inference', 'one model prediction (inference worker)'],
};

export class LatencyView {
  readonly chart: IChartApi;
  private readonly cells = {} as Record<LatencyStage, HTMLTableCellElement[]>;
  private readonly showEmpty: (empty: boolean) => void;
  private readonly syncs: { stage: LatencyStage; p: 'p50' | 'p99'; sync: SeriesSync }[] = [];

  constructor(tableBox: HTMLElement, chartBox: HTMLElement) {
    const table = el('table', 'grid-table latency');
    const hr = el('tr');
    for (const h of ['stage', 'p50', 'p90', 'p99', 'max', 'n']) hr.append(el('th', undefined, h));
    const thead = el('thead');
    thead.append(hr);
    const tbody = el('tbody');
    for (const s of LATENCY_STAGES) {
      const tr = el('tr');
      tr.dataset.stage = s;
      const name = el('td', 'stage');
      const swatch = el('span', 'swatch');
      swatch.style.background = COLORS.stages[s];
      name.append(swatch, LABELS[s][0]);
      name.title = LABELS[s][1];
      const cells = [0, 1, 2, 3, 4].map(() => el('td', 'num'));
      tr.append(name, ...cells);
      tbody.append(tr);
      this.cells[s] = cells;
    }
    table.append(thead, tbody);
    tableBox.append(table);

    this.showEmpty = emptyNote(chartBox, 'Latency history: waiting for the first samples.');
    this.chart = makeChart(chartBox, {
      rightPriceScale: { borderColor: COLORS.border, entireTextOnly: true, mode: PriceScaleMode.Logarithmic, scaleMargins: { top: 0.12, bottom: 0.08 } },
    });
    const us = { type: 'custom' as const, formatter: (p: number) => fmtUs(p), minMove: 0.001 };
    for (const s of LATENCY_STAGES) {
      for (const p of ['p50', 'p99'] as const) {
        const series = this.chart.addSeries(LineSeries, {
          color: COLORS.stages[s],
          lineWidth: 1,
          lineStyle: p === 'p50' ? LineStyle.Solid : LineStyle.Dashed,
          priceLineVisible: false,
          lastValueVisible: p === 'p99',
          priceFormat: us,
        });
        this.syncs.push({ stage: s, p, sync: new SeriesSync(series) });
      }
    }
  }

  render(st: SymbolState | null, h: SymbolHistory | null): void {
    if (!st || !h) return;
    for (const s of LATENCY_STAGES) {
      const l = st.latency[s];
      const c = this.cells[s];
      setText(c[0], cell(l.p50_us));
      setText(c[1], cell(l.p90_us));
      setText(c[2], cell(l.p99_us));
      setText(c[3], cell(l.max_us));
      setText(c[4], fmtInt(l.count));
    }
    let changed = false;
    for (const x of this.syncs) changed = x.sync.sync(h.latency[x.stage][x.p]) || changed;
    if (changed) fitWhileShort(this.chart, h.latency.tick_to_trade.p50.length);
    this.showEmpty(LATENCY_STAGES.every((s) => h.latency[s].p50.length === 0));
  }
}
