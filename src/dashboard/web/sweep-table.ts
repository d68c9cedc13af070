// The sweep's points as a table; a click on a header sorts by that column (again: reverses).

import { el } from './dom.ts';
import { fmtDec2 } from './format.ts';
import { metricValue, SWEEP_METRICS, type SweepColumn, type SweepPoint, sortPoints } from './sweep-model.ts';

export class SweepTable {
  private readonly table = el('table', 'sweep-table');
  private points: SweepPoint[] = [];
  private column: SweepColumn = 'total_pnl';
  private descending = true;

  constructor(parent: HTMLElement) {
    parent.append(this.table);
  }

  show(points: SweepPoint[]): void {
    this.points = points;
    this.render();
  }

  private render(): void {
    const params = this.points.length ? Object.keys(this.points[0].params) : [];
    const columns: [SweepColumn, string][] = [...params.map((p): [SweepColumn, string] => [`param:${p}`, p]), ...SWEEP_METRICS.map(([k, label]): [SweepColumn, string] => [k, label])];
    const head = el('tr');
    for (const [c, label] of columns) {
      const th = el('th', 'sortable', c === this.column ? `${label} ${this.descending ? '▼' : '▲'}` : label);
      th.dataset.column = c;
      th.addEventListener('click', () => {
        this.descending = c === this.column ? !this.descending : true;
        this.column = c;
        this.render();
      });
      head.append(th);
    }
    const body = el('tbody');
    for (const i of sortPoints(this.points, this.column, this.descending)) {
      const p = this.points[i];
      const tr = el('tr');
      for (const k of params) tr.append(el('td', 'num', String(p.params[k])));
      for (const [m] of SWEEP_METRICS) {
        const v = metricValue(p, m);
        tr.append(el('td', 'num', v === null ? '—' : m === 'total_fills' ? String(v) : m === 'sharpe_ratio' || m === 'markout_1s' ? v.toFixed(3) : fmtDec2(v)));
      }
      body.append(tr);
    }
    const thead = el('thead');
    thead.append(head);
    this.table.replaceChildren(thead, body);
  }
}
