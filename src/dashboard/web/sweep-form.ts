// Sweep panel: the POST /api/sweeps request as a form (symbol, dates, strategy, and up to three
// grid rows of parameter + comma-separated values), the sweep's progress (polling
// GET /api/sweeps/{id}), then the sortable table and the heatmap. The parameter selects offer the
// selected strategy's parameters (`params.NAME`; the built-in's under their older names) and the
// keys any strategy may vary (strategies.ts sweepAxes). Errors from the engine (400 with fields)
// are shown as the engine words them, naming grid.<parameter> and the value.

import { withApiToken } from './api-token.ts';
import { el } from './dom.ts';
import type { StrategyCatalog } from './strategy-catalog.ts';
import { strategyLabel, sweepAxes } from './strategies.ts';
import { SweepHeatmap } from './sweep-heatmap.ts';
import { parseValues, type SweepPoint } from './sweep-model.ts';
import { SweepTable } from './sweep-table.ts';

const GRID_ROWS = 3;
const POLL_MS = 1000;

export class SweepPanel {
  private readonly form = el('form', 'sweep-form');
  private readonly inputs: Record<'symbol' | 'startDate' | 'endDate', HTMLInputElement>;
  private readonly strategy = el('select');
  private readonly rows: { param: HTMLSelectElement; values: HTMLInputElement }[] = [];
  private readonly status = el('p', 'sweep-status');
  private readonly table: SweepTable;
  private readonly heatmap: SweepHeatmap;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    root: HTMLElement,
    private readonly catalog: StrategyCatalog,
  ) {
    const input = (name: string, placeholder: string) => {
      const i = el('input');
      i.name = name;
      i.placeholder = placeholder;
      this.form.append(el('label', undefined, name), i);
      return i;
    };
    this.inputs = { symbol: input('symbol', 'ES'), startDate: input('startDate', '2024-01-02'), endDate: input('endDate', '2024-01-05') };
    this.strategy.name = 'strategy';
    this.strategy.append(new Option('(engine default)', ''));
    this.strategy.addEventListener('change', () => this.fillAxes());
    this.form.append(el('label', undefined, 'strategy'), this.strategy);
    for (let r = 0; r < GRID_ROWS; r++) {
      const param = el('select');
      param.name = `grid-param-${r}`;
      param.addEventListener('change', () => (param.dataset.chosen = '1'));
      const values = el('input');
      values.name = `grid-values-${r}`;
      values.placeholder = 'v1, v2, ...';
      this.form.append(param, values);
      this.rows.push({ param, values });
    }
    const submit = el('button', undefined, 'Run sweep');
    submit.type = 'submit';
    this.form.append(submit);
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.start();
    });
    root.append(this.form, this.status);
    this.table = new SweepTable(root);
    this.heatmap = new SweepHeatmap(root);
    this.fillAxes();
    catalog.subscribe(() => this.fillStrategies());
  }

  /** The engine's list (re)loaded: refill the select, keeping the choice while it is listed. */
  private fillStrategies(): void {
    const list = this.catalog.list;
    if (!list) return;
    const keep = this.strategy.value;
    this.strategy.replaceChildren(...list.strategies.map((s) => new Option(`${s.name}${s.name === list.default ? ' (default)' : ''}`, s.name)));
    this.strategy.value = list.strategies.some((s) => s.name === keep) ? keep : list.default;
    this.fillAxes();
  }

  /** The selected strategy's axes in each parameter select; a row keeps its key while it is offered. */
  private fillAxes(): void {
    const s = this.catalog.find(this.strategy.value);
    this.strategy.title = s ? `${strategyLabel(s)}: ${s.description}` : '';
    const axes = sweepAxes(s);
    // A row the user set keeps its key while it is offered ("none" included); the first two rows
    // otherwise take the strategy's first axes that no other row has.
    const kept = this.rows.map(({ param }) => (param.dataset.chosen && (param.value === '' || axes.includes(param.value)) ? param.value : null));
    this.rows.forEach(({ param }, r) => {
      param.replaceChildren(new Option('(none)', ''), ...axes.map((p) => new Option(p, p)));
      let v = kept[r];
      if (v === null) {
        v = r < 2 ? (axes.find((a) => !kept.includes(a)) ?? '') : '';
        kept[r] = v;
      }
      param.value = v;
    });
  }

  private body(): Record<string, unknown> {
    const body: Record<string, unknown> = {};
    for (const [k, i] of Object.entries(this.inputs)) if (i.value.trim() !== '') body[k] = i.value.trim();
    if (this.strategy.value !== '') body.strategy = this.strategy.value;
    const grid: Record<string, unknown[]> = {};
    for (const { param, values } of this.rows) if (param.value && values.value.trim() !== '') grid[param.value] = parseValues(values.value);
    body.grid = grid;
    return body;
  }

  private async start(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.status.textContent = 'starting…';
    const res = await fetch('/api/sweeps', withApiToken({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(this.body()) }));
    const body = (await res.json()) as { id?: string; error?: { message: string } };
    if (res.status !== 202 || !body.id) {
      this.status.textContent = body.error?.message ?? `HTTP ${res.status}`;
      this.status.className = 'sweep-status error';
      return;
    }
    this.status.className = 'sweep-status';
    await this.poll(body.id);
  }

  private async poll(id: string): Promise<void> {
    const res = await fetch(`/api/sweeps/${encodeURIComponent(id)}`, withApiToken());
    const run = (await res.json()) as { status: string; progress: number; points: number; error: { message: string } | null; result: { points: SweepPoint[] } | null };
    if (run.status === 'running') {
      this.status.textContent = `sweep ${id}: ${run.points} points, ${(run.progress * 100).toFixed(0)} %`;
      this.timer = setTimeout(() => void this.poll(id), POLL_MS);
      return;
    }
    this.status.textContent = `sweep ${id}: ${run.status}${run.error ? ` (${run.error.message})` : ''}`;
    if (run.result) {
      this.table.show(run.result.points);
      this.heatmap.show(run.result.points);
    }
  }
}
