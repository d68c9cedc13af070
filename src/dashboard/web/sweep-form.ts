// Sweep panel: the POST /api/sweeps request as a form built from the backtest form's field
// component (form-field.ts: label, input, the engine's error under it), the same market-data
// picker, and up to three grid rows of parameter + comma-separated values. Before the run it
// says what the sweep will cost (points x sessions); while it runs, a progress bar (polling
// GET /api/sweeps/{id}) and Cancel (DELETE /api/sweeps/{id}); then the sortable table, the
// heatmap, a CSV link (GET /api/sweeps/{id}/csv) and "open the best point as a backtest" (POST
// /api/backtest with the shared fields and that point's values, then its report). Past sweeps
// (GET /api/sweeps) are listed and reopen on a click, so a reload loses nothing.

import { tradingDays } from '../../market/calendar.ts';
import { sweepKey } from '../../wire/sweep-keys.ts';
import { isApiError, type FieldError } from '../shared/api.ts';
import { withApiToken } from './api-token.ts';
import { el, emptyRow, setClass, setText } from './dom.ts';
import { datasetSelect, fieldRow, type FormField, progressBar, showFieldError, textInput } from './form-field.ts';
import { fmtInt, fmtPnl } from './format.ts';
import type { StrategyCatalog } from './strategy-catalog.ts';
import { strategyLabel, sweepAxes } from './strategies.ts';
import { SweepHeatmap } from './sweep-heatmap.ts';
import { parseValues, rankOrder, type SweepPoint, traded } from './sweep-model.ts';
import { SweepTable } from './sweep-table.ts';

const GRID_ROWS = 3;
const POLL_MS = 1000;
/** The holdout runs this many of the best points (src/sweep/sweep.ts HOLDOUT_TOP). */
const HOLDOUT_TOP = 3;

type Shared = 'symbol' | 'startDate' | 'endDate' | 'holdoutDays';
const SHARED: { name: Shared; label: string; kind: 'text' | 'date' | 'int'; hint: string }[] = [
  { name: 'symbol', label: 'Symbol', kind: 'text', hint: "root (ES) or contract (ESH24); empty: the config's first symbol" },
  { name: 'startDate', label: 'Start date', kind: 'date', hint: "first session; empty: the config's start_date" },
  { name: 'endDate', label: 'End date', kind: 'date', hint: 'last session; empty: the start date' },
  { name: 'holdoutDays', label: 'Holdout, trading days', kind: 'int', hint: 'rank on the earlier sessions, run the best 3 on the last N; empty: no holdout' },
];

interface SweepView {
  id: string;
  status: string;
  progress: number;
  points: number;
  sessions: number;
  request: Record<string, unknown>;
  error: { message: string } | null;
  result: { points: SweepPoint[] } | null;
}

interface SweepListItem {
  id: string;
  status: string;
  started_at: string;
  points: number;
  sessions: number;
  progress: number;
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return { error: { code: 'bad_response', message: `HTTP ${res.status}: ${text.slice(0, 200)}` } };
  }
}

export class SweepPanel {
  private readonly form = el('form', 'bt-form sweep-form');
  private readonly fields = new Map<string, FormField>();
  private readonly inputs = {} as Record<Shared, HTMLInputElement>;
  private readonly dataset: HTMLSelectElement;
  private readonly strategy = el('select');
  private readonly rows: { param: HTMLSelectElement; values: HTMLInputElement; field: FormField }[] = [];
  private readonly estimate = el('div', 'sweep-estimate');
  private readonly submit = el('button', 'primary', 'Run sweep');
  private readonly cancel = el('button', 'cancel', 'Cancel');
  private readonly progress = progressBar();
  private readonly status = el('div', 'bt-message sweep-status');
  private readonly actions = el('div', 'sweep-result-actions');
  private readonly listBody = el('tbody');
  private readonly table: SweepTable;
  private readonly heatmap: SweepHeatmap;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: string | null = null;

  constructor(
    root: HTMLElement,
    private readonly catalog: StrategyCatalog,
  ) {
    this.form.noValidate = true;
    const add = (name: string, kind: FormField['kind'], label: string, input: HTMLInputElement | HTMLSelectElement, cls = `f-${name}`) => {
      const { row, field } = fieldRow(name, kind, label, input, cls, () => this.showEstimate());
      this.fields.set(name, field);
      this.form.append(row);
      return field;
    };
    this.dataset = datasetSelect('sw-dataset');
    add('dataset', 'select', 'Market data', this.dataset);
    for (const f of SHARED.slice(0, 3)) {
      this.inputs[f.name] = textInput(`sw-${f.name}`, f.kind, f.hint);
      add(f.name, f.kind, f.label, this.inputs[f.name]);
    }
    this.strategy.id = 'sw-strategy';
    this.strategy.append(new Option('(engine default)', ''));
    this.strategy.addEventListener('change', () => this.fillAxes());
    add('strategy', 'select', 'Strategy', this.strategy);
    for (let r = 0; r < GRID_ROWS; r++) {
      const param = el('select');
      param.id = `sw-grid-param-${r}`;
      param.title = 'the request field (or params.NAME) this row varies';
      param.addEventListener('change', () => {
        param.dataset.chosen = '1';
        this.showEstimate();
      });
      add(`grid-param-${r}`, 'select', `Parameter ${r + 1}`, param, 'f-grid-param');
      const values = textInput(`sw-grid-values-${r}`, 'text', 'comma-separated values, e.g. 1, 1.5; true/false for a switch');
      const field = add(`grid-values-${r}`, 'text', `Values ${r + 1}, comma-separated`, values, 'f-grid-values');
      this.rows.push({ param, values, field });
    }
    this.inputs.holdoutDays = textInput('sw-holdoutDays', 'int', SHARED[3].hint);
    add('holdoutDays', 'int', SHARED[3].label, this.inputs.holdoutDays);
    this.form.append(this.estimate);
    const actions = el('div', 'bt-actions');
    this.submit.type = 'submit';
    this.cancel.type = 'button';
    this.cancel.hidden = true;
    this.cancel.addEventListener('click', () => void this.cancelRunning());
    actions.append(this.submit, this.cancel, this.progress.box);
    this.status.setAttribute('role', 'status');
    this.form.append(actions, this.status);
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.start();
    });
    this.progress.set(null);

    const listBox = el('div', 'bt-runs sweep-runs');
    listBox.append(el('div', 'sub-head', 'Past sweeps'));
    const scroll = el('div', 'scroll');
    const list = el('table', 'grid-table runs sweeps');
    const head = el('tr');
    for (const h of ['Started', 'Points', 'Sessions', 'Status']) head.append(el('th', undefined, h));
    const thead = el('thead');
    thead.append(head);
    list.append(thead, this.listBody);
    scroll.append(list);
    listBox.append(scroll);

    const top = el('div', 'sweep-top');
    const formBox = el('div', 'bt-form-box');
    formBox.append(this.form);
    top.append(formBox, listBox);
    root.append(top, this.actions);
    this.table = new SweepTable(root);
    this.heatmap = new SweepHeatmap(root);
    this.fillAxes();
    catalog.subscribe(() => this.fillStrategies());
    void this.loadList();
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
    this.showEstimate();
  }

  private body(): Record<string, unknown> {
    const body: Record<string, unknown> = {};
    if (this.dataset.value !== '') body.dataset = this.dataset.value;
    for (const [k, i] of Object.entries(this.inputs)) {
      const v = i.value.trim();
      if (v === '') continue;
      body[k] = k === 'holdoutDays' && Number.isFinite(Number(v)) ? Number(v) : v;
    }
    if (this.strategy.value !== '') body.strategy = this.strategy.value;
    const grid: Record<string, unknown[]> = {};
    for (const { param, values } of this.rows) if (param.value && values.value.trim() !== '') grid[param.value] = parseValues(values.value);
    body.grid = grid;
    return body;
  }

  /** What the sweep will cost before it runs: grid points x sessions (the engine's admission counts the same). */
  private showEstimate(): void {
    const body = this.body();
    const grid = body.grid as Record<string, unknown[]>;
    const points = Object.values(grid).reduce((n, v) => n * v.length, 1);
    const start = this.inputs.startDate.value;
    const end = this.inputs.endDate.value || start;
    let text: string;
    if (this.dataset.value !== '') text = `${fmtInt(points)} point${points === 1 ? '' : 's'} × the sessions of ${this.dataset.value} in the dates given`;
    else if (!start) text = `${fmtInt(points)} point${points === 1 ? '' : 's'} × the sessions of the engine's configured dates`;
    else {
      const days = end >= start ? tradingDays(start, end).length : 0;
      const hold = Number(this.inputs.holdoutDays.value) || 0;
      const ranked = points * Math.max(0, days - hold);
      const held = hold ? Math.min(HOLDOUT_TOP, points) * hold : 0;
      text =
        `${fmtInt(points)} point${points === 1 ? '' : 's'} × ${fmtInt(days - hold)} ` +
        `session${days - hold === 1 ? '' : 's'}${hold ? ` + the best ${Math.min(HOLDOUT_TOP, points)} × ${hold} holdout` : ''} = ` +
        `${fmtInt(ranked + held)} backtest session${ranked + held === 1 ? '' : 's'}`;
    }
    setText(this.estimate, `Cost: ${text}`);
  }

  private clearErrors(): void {
    for (const f of this.fields.values()) showFieldError(f, null);
  }

  private setStatus(text: string, kind: 'info' | 'error' | 'warn' | 'ok' = 'info'): void {
    setText(this.status, text);
    setClass(this.status, `bt-message sweep-status ${kind}`);
  }

  /** The engine's field errors under their fields: `grid.KEY` under the values of the row varying KEY. */
  private showErrors(errors: FieldError[]): boolean {
    let all = true;
    for (const fe of errors) {
      const row = fe.field.startsWith('grid.') ? this.rows.find((r) => r.param.value === fe.field.slice(5)) : undefined;
      const f = row?.field ?? this.fields.get(fe.field);
      if (f) showFieldError(f, fe.message);
      else all = false;
    }
    return all;
  }

  private async start(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.clearErrors();
    this.setStatus('starting…');
    let res: Response;
    try {
      res = await fetch('/api/sweeps', withApiToken({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(this.body()) }));
    } catch (e) {
      this.setStatus(`request failed: ${e instanceof Error ? e.message : String(e)}`, 'error');
      return;
    }
    const data = await readJson(res);
    if (res.status !== 202 && res.status !== 200) {
      if (isApiError(data)) {
        const fields = data.error.fields ?? [];
        const placed = fields.length > 0 && this.showErrors(fields);
        // Each message as the engine words it (it names grid.<parameter> and the value).
        this.setStatus(
          placed
            ? `rejected: ${fields.length} field${fields.length > 1 ? 's' : ''} to fix · ${fields.map((f) => `${f.field}: ${f.message}`).join(' · ')}`
            : data.error.message,
          'error',
        );
      } else this.setStatus(`HTTP ${res.status}`, 'error');
      return;
    }
    const run = data as SweepView;
    this.running = run.id;
    this.submit.disabled = true;
    this.cancel.hidden = false;
    void this.loadList();
    await this.poll(run.id);
  }

  private async cancelRunning(): Promise<void> {
    const id = this.running;
    if (!id) return;
    this.cancel.disabled = true;
    const res = await fetch(`/api/sweeps/${encodeURIComponent(id)}`, withApiToken({ method: 'DELETE' })).catch(() => null);
    this.cancel.disabled = false;
    if (res && !res.ok && res.status !== 409) this.setStatus(`cancel failed: HTTP ${res.status}`, 'error');
    // The poll shows the sweep's end (cancelled).
  }

  private async poll(id: string): Promise<void> {
    let run: SweepView;
    try {
      const res = await fetch(`/api/sweeps/${encodeURIComponent(id)}`, withApiToken());
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      run = (await res.json()) as SweepView;
    } catch {
      // engine unreachable: keep asking
      this.timer = setTimeout(() => void this.poll(id), POLL_MS);
      return;
    }
    if (run.status === 'running') {
      this.progress.set(run.progress);
      this.setStatus(`running ${id}: ${fmtInt(run.points)} points, ${fmtInt(run.sessions)} sessions`);
      this.timer = setTimeout(() => void this.poll(id), POLL_MS);
      return;
    }
    if (this.running === id) {
      this.running = null;
      this.submit.disabled = false;
      this.cancel.hidden = true;
      void this.loadList();
    }
    this.show(run);
  }

  /** A sweep's outcome: its status, links, table and heatmap. */
  private show(run: SweepView): void {
    this.progress.set(run.status === 'completed' ? 1 : null);
    const ok = run.status === 'completed';
    this.setStatus(`sweep ${run.id}: ${run.status}${run.error ? ` (${run.error.message})` : ''}`, ok ? 'ok' : run.status === 'running' ? 'info' : 'error');
    this.actions.replaceChildren();
    const points = run.result?.points ?? [];
    this.table.show(points);
    this.heatmap.show(points);
    if (!run.result) return;
    const csv = el('a', 'sweep-csv', 'CSV');
    csv.href = `/api/sweeps/${encodeURIComponent(run.id)}/csv`;
    csv.setAttribute('download', `${run.id}.csv`);
    csv.title = 'every point at full precision, as --out FILE.csv writes it';
    this.actions.append(csv);
    const results = points.map((p) => p.result);
    const best = rankOrder(results).find((g) => traded(results[g]));
    if (best === undefined) {
      this.actions.append(el('span', 'sub', 'no point traded: no best point to open'));
      return;
    }
    const open = el('button', 'open-best', 'Open best point as backtest');
    const why = this.bestRequest(run.request, points[best]);
    open.title =
      typeof why === 'string'
        ? why
        : `POST /api/backtest with ${Object.entries(points[best].params)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`;
    open.disabled = typeof why === 'string';
    const out = el('span', 'open-best-out');
    open.addEventListener('click', () => void (typeof why === 'string' ? undefined : this.openBest(why, out, open)));
    this.actions.append(open, out);
  }

  /** The backtest request of a point: the sweep's shared fields plus the point's values, or why there is none. */
  private bestRequest(req: Record<string, unknown>, p: SweepPoint): Record<string, unknown> | string {
    const { grid: _grid, holdoutDays: _hold, ...shared } = req;
    const body: Record<string, unknown> = { ...shared };
    const params: Record<string, unknown> = { ...((shared.params as Record<string, unknown> | undefined) ?? {}) };
    for (const [k, v] of Object.entries(p.params)) {
      const key = sweepKey(k);
      if (!key || !key.requestField) return `${k} changes the engine's config, which a backtest request cannot: run it with --sweep or the config`;
      if (k.startsWith('params.')) params[k.slice(7)] = v;
      else body[k] = v;
    }
    if (Object.keys(params).length) body.params = params;
    return body;
  }

  private async openBest(body: Record<string, unknown>, out: HTMLElement, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    setText(out, 'running the backtest…');
    try {
      const res = await fetch(
        '/api/backtest',
        withApiToken({ method: 'POST', headers: { 'content-type': 'application/json', prefer: 'respond-async' }, body: JSON.stringify(body) }),
      );
      let run = (await readJson(res)) as { id?: string; status?: string; total_pnl?: number; error?: { message: string } | null };
      if (!run.id) throw new Error(isApiError(run) ? run.error.message : `HTTP ${res.status}`);
      while (run.status === 'running') {
        await new Promise((r) => setTimeout(r, POLL_MS));
        run = (await (await fetch(`/api/backtests/${encodeURIComponent(run.id!)}`, withApiToken())).json()) as typeof run;
      }
      out.replaceChildren(`${run.id} ${run.status}${run.total_pnl !== undefined ? ` · P&L ${fmtPnl(run.total_pnl)}` : ''} · `);
      if (run.status === 'completed') {
        const a = el('a', 'report-link', 'report');
        a.href = `/api/backtests/${encodeURIComponent(run.id!)}/report`;
        a.target = '_blank';
        a.rel = 'noopener';
        out.append(a, ' · in Recent runs above');
      }
    } catch (e) {
      setText(out, `cannot open it: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      button.disabled = false;
    }
  }

  /** Past sweeps, newest first; a click shows one (a reload loses nothing). */
  private async loadList(): Promise<void> {
    let list: { sweeps: SweepListItem[] };
    try {
      const res = await fetch('/api/sweeps?limit=20', withApiToken());
      if (!res.ok) return;
      list = (await res.json()) as { sweeps: SweepListItem[] };
    } catch {
      return;
    }
    const rows = list.sweeps.map((s) => {
      const tr = el('tr', `run ${s.status}`);
      tr.dataset.id = s.id;
      tr.title = `${s.id}: click to show`;
      const started = new Date(s.started_at);
      tr.append(
        el(
          'td',
          'num',
          Number.isFinite(started.getTime())
            ? started.toLocaleString([], { hour12: false, month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
            : '—',
        ),
        el('td', 'num', fmtInt(s.points)),
        el('td', 'num', fmtInt(s.sessions)),
        el('td', `status ${s.status}`, s.status === 'running' ? `running ${(s.progress * 100).toFixed(0)}%` : s.status),
      );
      tr.addEventListener('click', () => void this.open(s.id));
      return tr;
    });
    if (!rows.length) rows.push(emptyRow('no sweeps yet', 4));
    this.listBody.replaceChildren(...rows);
  }

  private async open(id: string): Promise<void> {
    if (this.running && this.running !== id) return; // the running sweep's view stays
    if (this.timer) clearTimeout(this.timer);
    await this.poll(id);
  }
}
