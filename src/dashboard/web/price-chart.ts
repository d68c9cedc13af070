// Price chart: the mid (line), the model's forecast of the mid (dashed: mid + predicted move,
// drawn at t + horizon, where the forecast falls due, so it can be checked against the mid that
// follows), our fills as markers at their fill price, our resting orders as price lines; a lower
// pane shows the model's signal in ticks. Time axis: market (simulated exchange) time, New York.

import {
  BaselineSeries,
  LineSeries,
  LineStyle,
  createSeriesMarkers,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  type SeriesMarker,
  type Time,
} from 'lightweight-charts';
import type { SymbolState } from '../shared/api.ts';
import { COLORS, SeriesSync, emptyNote, fitWhileShort, makeChart, toTime } from './chart-common.ts';
import { setClass, setText } from './dom.ts';
import { DASH, priceFormat } from './format.ts';
import type { SymbolHistory } from '../shared/store.ts';

/** Fills drawn as markers (the newest). */
const MAX_MARKERS = 150;

export class PriceChartView {
  readonly chart: IChartApi;
  private readonly mid: ISeriesApi<'Line'>;
  private readonly forecast: ISeriesApi<'Line'>;
  private readonly signal: ISeriesApi<'Baseline'>;
  private readonly markers: ISeriesMarkersPluginApi<Time>;
  private readonly midSync: SeriesSync;
  private readonly forecastSync: SeriesSync;
  private readonly signalSync: SeriesSync;
  private readonly showEmpty: (empty: boolean) => void;
  private priceLines: IPriceLine[] = [];
  private ordersSig = '';
  private markersSig = '';
  private root = '';

  constructor(
    container: HTMLElement,
    private readonly legend: HTMLElement,
    private readonly note: HTMLElement,
  ) {
    this.chart = makeChart(container);
    this.mid = this.chart.addSeries(LineSeries, { color: COLORS.mid, lineWidth: 2, title: 'mid', priceLineVisible: true, lastValueVisible: true });
    this.forecast = this.chart.addSeries(LineSeries, {
      color: COLORS.forecast,
      lineWidth: 1,
      lineStyle: LineStyle.Dashed,
      title: 'forecast',
      priceLineVisible: false,
      lastValueVisible: true,
      crosshairMarkerVisible: false,
    });
    this.signal = this.chart.addSeries(
      BaselineSeries,
      {
        baseValue: { type: 'price', price: 0 },
        topLineColor: COLORS.bid,
        topFillColor1: 'rgba(38,166,154,0.35)',
        topFillColor2: 'rgba(38,166,154,0.05)',
        bottomLineColor: COLORS.ask,
        bottomFillColor1: 'rgba(239,83,80,0.05)',
        bottomFillColor2: 'rgba(239,83,80,0.35)',
        lineWidth: 1,
        title: 'signal (ticks)',
        priceFormat: { type: 'price', precision: 3, minMove: 0.001 },
        priceLineVisible: false,
      },
      1,
    );
    this.chart.panes()[1]?.setHeight(70);
    this.markers = createSeriesMarkers(this.mid, []);
    this.showEmpty = emptyNote(container, "Mid price: waiting for the engine's book.");
    this.midSync = new SeriesSync(this.mid);
    this.forecastSync = new SeriesSync(this.forecast);
    this.signalSync = new SeriesSync(this.signal);
  }

  render(st: SymbolState | null, h: SymbolHistory | null): void {
    if (!st || !h) return;
    const f = priceFormat(st.root, st.tick_size, st.point_value);
    if (st.root !== this.root) {
      this.root = st.root;
      // Prices on the tick grid read as such (5012.25); half-tick mids get one more decimal.
      this.mid.applyOptions({ priceFormat: { type: 'custom', formatter: (p: number) => f.fine(p), minMove: f.tick / 2 } });
      this.forecast.applyOptions({ priceFormat: { type: 'price', precision: f.decimals + 2, minMove: f.tick / 100 } });
    }
    if (this.midSync.sync(h.mid)) fitWhileShort(this.chart, h.mid.length);
    this.showEmpty(h.mid.length === 0);
    this.forecastSync.sync(h.forecast);
    this.signalSync.sync(h.signal);
    this.syncMarkers(st, h);
    this.syncOrders(st);

    const p = st.prediction;
    const model = st.model.loaded ? `model ${st.model.version ?? ''}` : `no model${st.model.error ? `: ${st.model.error}` : ''}`;
    const pred = p
      ? `forecast(+${p.horizon_ms >= 1000 ? `${p.horizon_ms / 1000}s` : `${p.horizon_ms}ms`}) ` +
        `${st.book.mid === null ? DASH : (st.book.mid + p.value_ticks * f.tick).toFixed(f.decimals + 2)}  signal ` +
        `${p.value_ticks >= 0 ? '+' : ''}${p.value_ticks.toFixed(3)}t  age ${p.age_ms.toFixed(0)}ms`
      : 'no prediction';
    setText(this.legend, `mid ${f.fine(st.book.mid)}  ${pred}  ·  ${model}`);
    // A drawn forecast reads as one the quotes follow; say whether they do.
    setText(
      this.note,
      st.model.used_in_quotes
        ? 'ML quoting on: quotes shift by the forecast'
        : st.model.loaded
          ? 'ML quoting off (strategy.use_ml = false): the forecast is drawn, not traded'
          : 'ML quoting off: no model loaded',
    );
    setClass(this.note, `panel-note ${st.model.used_in_quotes ? 'on' : 'off'}`);
  }

  private syncMarkers(st: SymbolState, h: SymbolHistory): void {
    const fillsAhead = h.fills.list.length && Date.parse(h.fills.list[0].time) / 1000 > (h.mid.lastTime ?? 0);
    const sig = `${st.symbol}|${h.fills.id}.${h.fills.revision}|${h.mid.epoch}|${fillsAhead ? h.mid.lastTime : ''}`;
    if (sig === this.markersSig) return;
    this.markersSig = sig;
    // Only fills inside the drawn range (a marker outside it would be pinned to the nearest edge).
    const first = h.mid.length ? h.mid.t[0] : Infinity;
    const last = h.mid.lastTime ?? -Infinity;
    const out: SeriesMarker<Time>[] = [];
    const fills = h.fills.list; // newest first
    for (let i = Math.min(fills.length, MAX_MARKERS) - 1; i >= 0; i--) {
      const fl = fills[i];
      const t = Math.floor(Date.parse(fl.time) / 1000);
      if (!(t >= first && t <= last + 1)) continue;
      const buy = fl.side === 'buy';
      out.push({
        time: toTime(t),
        position: 'atPriceMiddle',
        price: fl.price,
        shape: buy ? 'arrowUp' : 'arrowDown',
        color: buy ? COLORS.bid : COLORS.ask,
        size: 0.6,
      });
    }
    this.markers.setMarkers(out);
  }

  private syncOrders(st: SymbolState): void {
    const f = priceFormat(st.root, st.tick_size, st.point_value);
    const orders = st.book.our_orders;
    const sig = orders.map((o) => `${o.side}${o.price}/${o.leaves}/${o.state}`).join(',');
    if (sig === this.ordersSig) return;
    this.ordersSig = sig;
    for (const l of this.priceLines) this.mid.removePriceLine(l);
    this.priceLines = orders.map((o) =>
      this.mid.createPriceLine({
        price: o.price,
        color: o.side === 'buy' ? COLORS.bid : COLORS.ask,
        lineWidth: 1,
        lineStyle: o.state === 'live' ? LineStyle.Solid : LineStyle.Dotted,
        axisLabelVisible: true,
        title: `${o.side === 'buy' ? 'B' : 'S'}${o.leaves} ${f.price(o.price)}`,
      }),
    );
  }
}
