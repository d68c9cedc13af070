// The sweep's points as a table; a click on a header sorts by that column (again: reverses).
// The rank is the CLI's (src/wire/sweep-summary.ts rankOrder): points that never traded are not ranked
// and stay below the others, greyed, whatever the sort; the kill switch's trips have a column.

import { el } from './dom.ts';
import { fmtDec2, fmtInt, fmtPnl } from './format.ts';
import { metricValue, rankOrder, SWEEP_METRICS, type SweepColumn, type SweepPoint, sortPoints, traded, untradedNote } from './sweep-model.ts';

export class SweepTable {
  private readonly note = el('p', 'sub sweep-note');
  private readonly table = el('table', 'sweep-table');
  private points: SweepPoint[] = [];
  private column: SweepColumn = 'total_pnl';
  private descending = true;

  constructor(parent: HTMLElement) {
    const scroll = el('div', 'scroll');
    scroll.append(this.table);
    parent.append(this.note, scroll);
  }

  show(points: SweepPoint[]): void {
    this.points = points;
    this.render();
  }

  private render(): void {
    const params = this.points.length ? Object.keys(this.points[0].params) : [];
    const columns: [SweepColumn, string][] = [
      ...params.map((p): [SweepColumn, string] => [`param:${p}`, p]),
      ...SWEEP_METRICS.map(([k, label]): [SweepColumn, string] => [k, label]),
    ];
    const head = el('tr');
    head.append(el('th', 'num', 'Rank'));
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
    head.append(el('th', undefined, 'Kill switch'));
    const results = this.points.map((p) => p.result);
    const rank = new Map(
      rankOrder(results)
        .filter((g) => traded(results[g]))
        .map((g, i) => [g, i + 1]),
    );
    const sorted = sortPoints(this.points, this.column, this.descending);
    const body = el('tbody');
    for (const i of [...sorted.filter((g) => traded(results[g])), ...sorted.filter((g) => !traded(results[g]))]) {
      const p = this.points[i];
      const tr = el('tr', traded(p.result) ? 'point' : 'point untraded');
      tr.dataset.index = String(i);
      tr.append(el('td', 'num rank', rank.has(i) ? String(rank.get(i)) : '—'));
      for (const k of params) tr.append(el('td', 'num', String(p.params[k])));
      for (const [m] of SWEEP_METRICS) {
        const v = metricValue(p, m);
        tr.append(
          el(
            'td',
            'num',
            v === null
              ? '—'
              : m === 'total_fills'
                ? fmtInt(v)
                : m === 'total_pnl'
                  ? fmtPnl(v)
                  : m === 'sharpe_ratio' || m === 'markout_1s'
                    ? v.toFixed(3)
                    : fmtDec2(v),
          ),
        );
      }
      const ks = el(
        'td',
        p.result.kill_switch_tripped ? 'ks tripped' : 'ks',
        p.result.kill_switch_tripped ? 'tripped' : traded(p.result) ? '—' : 'never traded',
      );
      tr.append(ks);
      body.append(tr);
    }
    const thead = el('thead');
    thead.append(head);
    this.table.replaceChildren(thead, body);
    const never = untradedNote(results);
    const tripped = results.filter((r) => r.kill_switch_tripped).length;
    this.note.textContent = [
      `${this.points.length} point${this.points.length === 1 ? '' : 's'}, ranked by total P&L`,
      never ? `${never} (no fill: listed last, unranked)` : '',
      tripped ? `${tripped} stopped by the kill switch` : '',
    ]
      .filter(Boolean)
      .join(' · ');
  }
}
