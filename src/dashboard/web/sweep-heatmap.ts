// A heatmap of one metric over two parameters of the sweep (chosen in two selects), as a table
// whose cells are shaded from red (worst) to green (best) between the shown minimum and maximum.

import { el } from './dom.ts';
import { heatmap, scale, SWEEP_METRICS, type SweepMetric, type SweepPoint } from './sweep-model.ts';

export class SweepHeatmap {
  private readonly metric = el('select');
  private readonly x = el('select');
  private readonly y = el('select');
  private readonly table = el('table', 'sweep-heatmap');
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
    parent.append(controls, this.table, this.note);
  }

  show(points: SweepPoint[]): void {
    this.points = points;
    const params = points.length ? Object.keys(points[0].params) : [];
    for (const [s, i] of [[this.x, 0], [this.y, 1]] as const) {
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
      return;
    }
    const metric = this.metric.value as SweepMetric;
    const h = heatmap(this.points, x, y, metric);
    const lowerIsBetter = metric === 'max_drawdown_pct' || metric === 'fees';
    const head = el('tr');
    head.append(el('th', undefined, `${y} \\ ${x}`), ...h.xs.map((v) => el('th', 'num', String(v))));
    const rows = h.ys.map((yv, iy) => {
      const tr = el('tr');
      tr.append(el('th', 'num', String(yv)));
      h.xs.forEach((_, ix) => {
        const v = h.cells[iy][ix];
        const td = el('td', 'num', v === null ? '—' : v.toFixed(2));
        if (v !== null) {
          const f = scale(v, h.min, h.max);
          const good = lowerIsBetter ? 1 - f : f;
          td.style.background = `hsl(${Math.round(good * 120)} 55% 30%)`;
          td.dataset.value = String(v);
        }
        tr.append(td);
      });
      return tr;
    });
    this.table.replaceChildren(head, ...rows);
    const others = Object.keys(this.points[0].params).filter((p) => p !== x && p !== y);
    this.note.textContent = others.length ? `Each cell: the best value over ${others.join(', ')}.` : '';
  }
}
