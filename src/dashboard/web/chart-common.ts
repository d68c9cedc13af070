// Shared look of the live charts (lightweight-charts, TradingView's library) and the helper that
// keeps a chart series in step with a BinnedSeries: append what is new, reload on reset/trim.

import {
  ColorType,
  CrosshairMode,
  createChart,
  type BaselineSeriesPartialOptions,
  type DeepPartial,
  type ChartOptions,
  type IChartApi,
  type ISeriesApi,
  type SeriesType,
  type UTCTimestamp,
} from 'lightweight-charts';
import { el } from './dom.ts';
import { USD_AXIS } from './format.ts';
import { TIME_AXIS, crosshairTime } from './time-axis.ts';
import type { BinnedSeries } from '../shared/series-buffer.ts';

export const COLORS = {
  bg: '#11151b',
  grid: '#1a2029',
  text: '#8b949e',
  border: '#262e39',
  bid: '#26a69a',
  ask: '#ef5350',
  mid: '#d0d7de',
  forecast: '#f0b90b',
  ours: '#4c8dff',
  realized: '#9c7cf4',
  stages: { tick_to_trade: '#4c8dff', book_update: '#26a69a', inference: '#f0b90b' } as Record<string, string>,
};

/** A curve in USD, green above zero and red below (live P&L, backtest equity curve). */
export function pnlSeriesOptions(title: string): BaselineSeriesPartialOptions {
  return {
    baseValue: { type: 'price', price: 0 },
    topLineColor: COLORS.bid,
    topFillColor1: 'rgba(38,166,154,0.30)',
    topFillColor2: 'rgba(38,166,154,0.03)',
    bottomLineColor: COLORS.ask,
    bottomFillColor1: 'rgba(239,83,80,0.03)',
    bottomFillColor2: 'rgba(239,83,80,0.30)',
    lineWidth: 2,
    title,
    priceFormat: USD_AXIS,
  };
}

export const MONO_FONT = 'ui-monospace, "SF Mono", "JetBrains Mono", "DejaVu Sans Mono", Menlo, Consolas, monospace';

/** Chart times are whole seconds of market time, shown in New York time like CME sessions. */
export function toTime(sec: number): UTCTimestamp {
  return sec as UTCTimestamp;
}

export function baseChartOptions(extra: DeepPartial<ChartOptions> = {}): DeepPartial<ChartOptions> {
  return {
    autoSize: true,
    layout: { background: { type: ColorType.Solid, color: COLORS.bg }, textColor: COLORS.text, fontSize: 11, fontFamily: MONO_FONT, attributionLogo: false },
    grid: { vertLines: { color: COLORS.grid }, horzLines: { color: COLORS.grid } },
    crosshair: { mode: CrosshairMode.Normal },
    // A corner label the pane would cut in half (the top one of a log scale) is not drawn.
    rightPriceScale: { borderColor: COLORS.border, entireTextOnly: true },
    timeScale: { borderColor: COLORS.border, ...TIME_AXIS },
    localization: { timeFormatter: crosshairTime },
    ...extra,
  };
}

export function makeChart(container: HTMLElement, extra: DeepPartial<ChartOptions> = {}): IChartApi {
  return createChart(container, baseChartOptions(extra));
}

/**
 * A line of text over a chart while it has no data (a bare grid would pass for a chart of
 * nothing). Returns the switch: show(true) while empty.
 */
export function emptyNote(container: HTMLElement, text: string): (empty: boolean) => void {
  const note = el('div', 'chart-empty', text);
  container.append(note);
  return (empty) => {
    note.hidden = !empty;
  };
}

/** While a chart has few points, spread them over its width (then it scrolls with new data). */
export const FIT_BELOW_POINTS = 240;

export function fitWhileShort(chart: IChartApi, points: number): void {
  if (points > 1 && points < FIT_BELOW_POINTS) chart.timeScale().fitContent();
}

/** Keeps one chart series equal to a BinnedSeries, with the fewest chart calls. */
export class SeriesSync {
  private src: BinnedSeries | null = null;
  private epoch = -1;
  private revision = -1;
  private sent = 0;

  constructor(private readonly series: ISeriesApi<SeriesType>) {}

  /** Returns true when the chart series changed. */
  sync(src: BinnedSeries, map: (v: number) => number = (v) => v): boolean {
    if (src === this.src && src.epoch === this.epoch && src.revision === this.revision) return false;
    if (src !== this.src || src.epoch !== this.epoch || this.sent > src.length) {
      const data = new Array(src.length);
      for (let i = 0; i < src.length; i++) data[i] = { time: toTime(src.t[i]), value: map(src.v[i]) };
      this.series.setData(data);
    } else {
      // The last point sent may have been updated in place (same bin); then the new ones.
      for (let i = Math.max(0, this.sent - 1); i < src.length; i++) this.series.update({ time: toTime(src.t[i]), value: map(src.v[i]) });
    }
    this.src = src;
    this.epoch = src.epoch;
    this.revision = src.revision;
    this.sent = src.length;
    return true;
  }

  /** Forgets what was sent (next sync reloads). */
  reset(): void {
    this.src = null;
  }
}
