// P&L over market time: total P&L (equity minus initial capital; green above zero, red below),
// realized P&L (line), and the net position in a lower pane (steps). All from SymbolState.position,
// sampled once per second of market time.

import { BaselineSeries, LineSeries, LineType, type IChartApi, type ISeriesApi } from 'lightweight-charts';
import type { SymbolState } from '../shared/api.ts';
import { COLORS, SeriesSync, emptyNote, fitWhileShort, makeChart, pnlSeriesOptions } from './chart-common.ts';
import { setClass, setText } from './dom.ts';
import { fmtPnl, fmtSignedInt, signClass, USD_AXIS } from './format.ts';
import type { SymbolHistory } from '../shared/store.ts';

export class PnlChartView {
  readonly chart: IChartApi;
  private readonly total: ISeriesApi<'Baseline'>;
  private readonly realized: ISeriesApi<'Line'>;
  private readonly position: ISeriesApi<'Line'>;
  private readonly syncs: SeriesSync[];
  private readonly showEmpty: (empty: boolean) => void;

  constructor(
    container: HTMLElement,
    private readonly legend: HTMLElement,
  ) {
    this.chart = makeChart(container);
    this.total = this.chart.addSeries(BaselineSeries, pnlSeriesOptions('total'));
    this.realized = this.chart.addSeries(LineSeries, {
      color: COLORS.realized,
      lineWidth: 1,
      title: 'realized',
      priceFormat: USD_AXIS,
      priceLineVisible: false,
    });
    this.position = this.chart.addSeries(
      LineSeries,
      {
        color: COLORS.ours,
        lineWidth: 1,
        lineType: LineType.WithSteps,
        title: 'pos',
        priceFormat: { type: 'price', precision: 0, minMove: 1 },
        priceLineVisible: false,
      },
      1,
    );
    this.chart.panes()[1]?.setHeight(60);
    this.syncs = [new SeriesSync(this.total), new SeriesSync(this.realized), new SeriesSync(this.position)];
    this.showEmpty = emptyNote(container, 'P&L: waiting for the first samples (one per second of market time).');
  }

  render(st: SymbolState | null, h: SymbolHistory | null): void {
    if (!st || !h) return;
    if (this.syncs[0].sync(h.totalPnl)) fitWhileShort(this.chart, h.totalPnl.length);
    this.syncs[1].sync(h.realizedPnl);
    this.syncs[2].sync(h.position);
    this.showEmpty(h.totalPnl.length === 0);
    const p = st.position;
    setText(
      this.legend,
      `total ${fmtPnl(p.total_pnl)}  realized gross ${fmtPnl(p.realized_pnl_gross)}  unrealized ${fmtPnl(p.unrealized_pnl)}  pos ${fmtSignedInt(p.contracts)}`,
    );
    setClass(this.legend, `legend ${signClass(p.total_pnl)}`);
  }
}
