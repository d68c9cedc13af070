// A heatmap of one metric over two parameters of the sweep (chosen in two selects), as a table.
// Colours are anchored at zero (sweep-model.ts colourScale): a loss is red however it compares
// with the other points, a gain green; the legend under the table gives the scale in the metric's
// unit. A cell whose point never traded is grey and says so; one the kill switch stopped is marked.

import { el } from './dom.ts';
import { fmtDec2, fmtInt, fmtPnl } from './format.ts';
import { colourScale, heatmap, SWEEP_METRICS, type SweepMetric, type SweepPoint, traded, untradedNote } from './sweep-model.ts';

/** A metric's value as the heatmap and its legend write it (USD with separators and sign, counts whole). */
export function fmtMetric(metric: SweepMetric, v: number): string {
  if (metric === 'total_pnl') return fmtPnl(v);
  if (metric === 'fees') return fmtDec2(v);
  if (metric === 'total_fills') return fmtInt(v);
  if (metric === 'max_drawdown_pct') return `${fmtDec2(v)}%`;
  return v.toFixed(3);
}

const UNIT: Record<SweepMetric, string> = {
  total_pnl: '$',
  sharpe_ratio: '',
  max_drawdown_pct: '% of peak',
  total_fills: 'fills',
  fees: '$',
  markout_1s: 'ticks',
};

export class SweepHeatmap {
  private readonly metric = el('select');
  private readonly x = el('select');
  private readonly y = el('select');
  private readonly table = el('table', 'sweep-heatmap');
  private readonly legend = el('div', 'sweep-legend');
  private readonly note = el('p', 'sub');
  private points: SweepPoint[] = [];

  constructor(parent: HTMLElement) {
    for (const [k, label] of SWEEP_METRICS) this.metric.append(new Option(label, k));
    this.metric.name = 'heatmap-metric';
    this.x.name = 'heatmap-x';
    this.y.name = 'heatmap-y';
    const controls = el('div', 'sweep-controls');
    controls.append(el('label', undefined, 'Heatmap of '), this.metric, el('label', undefined, ' over '), this.x, el('label', undefined, ' × '), this.y);
    for (const s of [this.metric, this.x, this.y]) s.addEventListener('change', () => this.render());
    const scroll = el('div', 'scroll');
    scroll.append(this.table);
    parent.append(controls, scroll, this.legend, this.note);
  }

  show(points: SweepPoint[]): void {
    this.points = points;
    const params = points.length ? Object.keys(points[0].params) : [];
    for (const [s, i] of [
      [this.x, 0],
      [this.y, 1],
    ] as const) {
      s.replaceChildren(...params.map((p) => new Option(p, p)));
      s.value = params[Math.min(i, params.length - 1)] ?? '';
    }
    this.render();
  }

  private render(): void {
    const x = this.x.value;
    const y = this.y.value;
    if (!x || !y || this.points.length === 0) {
      this.table.replaceChildren();
      this.legend.replaceChildren();
      this.note.textContent = '';
      return;
    }
    const metric = this.metric.value as SweepMetric;
    const h = heatmap(this.points, x, y, metric);
    // The scale spans the cells of points that traded: a never-traded cell is grey, not a colour.
    const shown: number[] = [];
    h.cells.forEach((row, iy) => row.forEach((v, ix) => v !== null && traded(this.points[h.points[iy][ix]!].result) && shown.push(v)));
    const sc = colourScale(metric, shown);
    const head = el('tr');
    head.append(el('th', undefined, `${y} \\ ${x}`), ...h.xs.map((v) => el('th', 'num', String(v))));
    const rows = h.ys.map((yv, iy) => {
      const tr = el('tr');
      tr.append(el('th', 'num', String(yv)));
      h.xs.forEach((_, ix) => {
        const v = h.cells[iy][ix];
        const g = h.points[iy][ix];
        if (v === null || g === null) {
          tr.append(el('td', 'num', '—'));
          return;
        }
        const r = this.points[g].result;
        const td = el('td', 'num');
        td.dataset.value = String(v);
        if (!traded(r)) {
          td.classList.add('untraded');
          td.textContent = 'never traded';
          td.title = 'no fill at these parameters: P&L 0 is no result';
        } else {
          td.textContent = fmtMetric(metric, v);
          td.style.background = sc.colour(v);
        }
        if (r.kill_switch_tripped) {
          td.classList.add('tripped');
          td.append(el('span', 'ks-mark', ' ⚠ kill switch'));
          td.title = 'the kill switch stopped this point';
        }
        tr.append(td);
      });
      return tr;
    });
    this.table.replaceChildren(head, ...rows);
    this.renderLegend(metric, sc);
    const others = Object.keys(this.points[0].params).filter((p) => p !== x && p !== y);
    const never = untradedNote(this.points.map((p) => p.result));
    this.note.textContent = [others.length ? `Each cell: the best value over ${others.join(', ')} among the points that traded.` : '', never ? `${never}.` : '']
      .filter(Boolean)
      .join(' ');
  }

  private renderLegend(metric: SweepMetric, sc: ReturnType<typeof colourScale>): void {
    const unit = UNIT[metric];
    const bar = el('span', 'legend-bar');
    const stops = sc.kind === 'diverging' ? [sc.lo, sc.lo / 2, 0, sc.hi / 2, sc.hi] : [0, sc.hi / 2, sc.hi];
    bar.style.background = `linear-gradient(to right, ${stops.map((v) => sc.colour(v)).join(', ')})`;
    const label = (v: number) => el('span', 'legend-label num', fmtMetric(metric, v));
    const items: HTMLElement[] = [
      el(
        'span',
        'legend-title',
        `${SWEEP_METRICS.find(([k]) => k === metric)![1]}${unit && !SWEEP_METRICS.find(([k]) => k === metric)![1].includes(unit) ? ` (${unit})` : ''}:`,
      ),
      label(sc.lo),
    ];
    if (sc.kind === 'diverging') {
      const zero = el('span', 'legend-zero');
      zero.append(bar, el('span', 'legend-label num zero', '0'));
      items.push(zero);
    } else items.push(bar);
    items.push(label(sc.hi));
    const grey = el('span', 'legend-swatch untraded', 'never traded');
    const ks = el('span', 'legend-swatch', '⚠ kill switch tripped');
    items.push(grey, ks);
    this.legend.dataset.kind = sc.kind;
    this.legend.dataset.lo = String(sc.lo);
    this.legend.dataset.hi = String(sc.hi);
    this.legend.replaceChildren(...items);
  }
}
