// Backtest panel: the POST /api/backtest request as a form, the run's progress (the stream's
// backtest_progress events for its id), and the result: statistics and the equity curve. Bad
// values come back from the engine as 400 { error: { fields: [{ field, message }] } } and each
// message is shown under its field. Empty fields are left out, so the engine's config applies.
// Recent runs (GET /api/backtests) can be reopened. When the engine answers 401 (it has an API
// token), the form shows a token field; the token is kept in sessionStorage (api-token.ts).
// The strategy select lists the engine's strategies (GET /api/strategies, strategies.ts); the
// selected one's parameters are fields generated from its schema, sent as `params` (the built-in's
// older fields under their own names), and the engine's errors for them (`params.NAME`) show
// under their fields like any other. Each strategy's fields are built once and kept, so switching
// back and forth keeps what was typed.

import { dataSourceLabel } from './data-source.ts';
import { BaselineSeries, type IChartApi, type ISeriesApi } from 'lightweight-charts';
import {
  isApiError,
  type BacktestList,
  type BacktestProgressEvent,
  type BacktestRequestBody,
  type BacktestRun,
  type FieldError,
  type SymbolState,
} from '../shared/api.ts';
import { emptyNote, makeChart, pnlSeriesOptions, toTime } from './chart-common.ts';
import { apiToken, forgetApiToken, saveApiToken, withApiToken } from './api-token.ts';
import { el, emptyRow, keyValueGrid, setClass, setText } from './dom.ts';
import { datasetSelect, fieldRow, type FormField, progressBar, showFieldError, textInput } from './form-field.ts';
import { DASH, fmtDec2, fmtFracPct, fmtInt, fmtNyDate, fmtNyTimeMs, fmtPct, fmtPnl, fmtSignedInt, fmtUsd, signClass } from './format.ts';
import type { StrategyCatalog } from './strategy-catalog.ts';
import { paramFields, paramHint, rangeText, type StrategyInfo, strategyLabel } from './strategies.ts';

type FieldName = keyof BacktestRequestBody;

interface FieldSpec {
  name: FieldName;
  label: string;
  kind: 'text' | 'date' | 'number' | 'int' | 'bool';
  hint: string;
}

/** The fields of every request, whatever the strategy (its own parameters are generated). */
const FIELDS: FieldSpec[] = [
  { name: 'symbol', label: 'Symbol', kind: 'text', hint: 'root (ES) or contract (ESH24)' },
  { name: 'startDate', label: 'Start date', kind: 'date', hint: 'first session' },
  { name: 'endDate', label: 'End date', kind: 'date', hint: 'last session' },
  { name: 'initialCapital', label: 'Initial capital $', kind: 'number', hint: 'USD > 0' },
  // A fraction, as the API takes it; the live panels show the same limit in percent.
  { name: 'maxDrawdown', label: 'Max drawdown, fraction', kind: 'number', hint: '0.06 = 6 % of peak' },
  { name: 'positionLimit', label: 'Position limit, contracts', kind: 'int', hint: '>= 1' },
  { name: 'useML', label: 'Use ML model', kind: 'bool', hint: 'load the model: the strategy reads its prediction (the built-in shifts its quotes by it)' },
];

/** One strategy's generated fields, kept while its schema (hash) is the same. */
interface StrategyFields {
  hash: string;
  rows: HTMLElement[];
  fields: Map<string, FormField>;
}

const RESULT_ITEMS = [
  ['total_pnl', 'Total P&L $', ''],
  ['sharpe', 'Sharpe', ''],
  ['max_dd', 'Max drawdown', 'percent of peak equity'],
  ['win_rate', 'Win rate', ''],
  ['pf', 'Profit factor', ''],
  ['trades', 'Round trips', ''],
  ['fills', 'Fills', ''],
  ['volume', 'Volume', ''],
  ['fees', 'Fees $', ''],
  ['final_equity', 'Final equity $', ''],
  ['final_pos', 'Final position', ''],
  ['sessions', 'Sessions', ''],
  ['events', 'Events', ''],
  ['duration', 'Run time', ''],
] as const;
type ResultKey = (typeof RESULT_ITEMS)[number][0];

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return { error: { code: 'bad_response', message: `HTTP ${res.status}: ${text.slice(0, 200)}` } };
  }
}

export class BacktestPanel {
  private readonly form: HTMLFormElement;
  private readonly inputs = {} as Record<FieldName, HTMLInputElement>;
  /** Every field the form shows now, by request field name (the selected strategy's parameters included). */
  private readonly fields = new Map<string, FormField>();
  private readonly strategySelect: HTMLSelectElement;
  private readonly strategyNote: HTMLElement;
  private readonly paramsBox: HTMLElement;
  private readonly strategyFields = new Map<string, StrategyFields>();
  private current: StrategyFields | null = null;
  private readonly submit: HTMLButtonElement;
  private readonly tokenRow: HTMLElement;
  private readonly tokenInput: HTMLInputElement;
  private readonly message: HTMLElement;
  private readonly progress: ReturnType<typeof progressBar>;
  private readonly resultTitle: HTMLElement;
  /** Recorded data: the run's non-zero data-quality counters (empty otherwise). */
  private readonly quality: HTMLElement;
  private readonly resultStrategy: HTMLElement;
  private readonly result: Record<ResultKey, HTMLElement>;
  private readonly runsBody: HTMLTableSectionElement;
  private readonly chart: IChartApi;
  private readonly equity: ISeriesApi<'Baseline'>;
  private readonly showEmptyChart: (empty: boolean) => void;
  private prefilled = false;
  private edited = new Set<FieldName>();
  private runId: string | null = null;
  private lastProgressAt = 0;
  private pollTimer: number | null = null;

  constructor(
    root: HTMLElement,
    private readonly catalog: StrategyCatalog,
  ) {
    const formBox = el('div', 'bt-form-box');
    this.form = el('form', 'bt-form');
    this.form.noValidate = true;
    const rows = new Map<FieldName, HTMLElement>();
    for (const f of FIELDS) {
      const input = textInput(`bt-${f.name}`, f.kind, f.hint);
      input.placeholder = f.hint;
      const { row, field } = this.fieldRow(f.name, f.kind, f.label, input, `f-${f.name}`);
      rows.set(f.name, row);
      this.fields.set(f.name, field);
      this.inputs[f.name] = input;
    }
    // Recorded data (GET /api/datasets) or the synthetic market; with a dataset, symbol and dates may stay empty.
    const dataset = this.fieldRow('dataset', 'select', 'Market data', datasetSelect('bt-dataset'), 'f-dataset');
    this.fields.set('dataset', dataset.field);
    this.form.append(dataset.row);
    for (const f of FIELDS) if (f.name !== 'useML') this.form.append(rows.get(f.name)!);
    // The strategy, its description, then its parameters (replaced when another is selected).
    this.strategySelect = el('select');
    this.strategySelect.id = 'bt-strategy';
    this.strategySelect.append(new Option('(engine default)', ''));
    const strategy = this.fieldRow('strategy', 'text', 'Strategy', this.strategySelect, 'f-strategy');
    this.fields.set('strategy', strategy.field);
    this.strategySelect.addEventListener('change', () => this.selectStrategy(this.catalog.find(this.strategySelect.value)));
    this.strategyNote = el('div', 'bt-strategy-note');
    this.paramsBox = el('div', 'bt-params');
    this.form.append(strategy.row, this.strategyNote, this.paramsBox, rows.get('useML')!);
    // Hidden until the engine asks for its token (or one is stored for this tab).
    this.tokenRow = el('label', 'field f-token');
    this.tokenInput = el('input');
    this.tokenInput.type = 'password';
    this.tokenInput.id = 'bt-token';
    this.tokenInput.autocomplete = 'off';
    this.tokenInput.placeholder = 'kept in this tab only';
    this.tokenRow.append(el('span', 'field-label', 'Engine API token'), this.tokenInput);
    this.tokenRow.hidden = apiToken() === null;
    this.form.append(this.tokenRow);
    const actions = el('div', 'bt-actions');
    this.submit = el('button', 'primary', 'Run backtest');
    this.submit.type = 'submit';
    this.message = el('div', 'bt-message');
    this.message.setAttribute('role', 'status');
    this.progress = progressBar();
    actions.append(this.submit, this.progress.box);
    this.form.append(actions, this.message);
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.run();
    });
    formBox.append(this.form);

    const resultBox = el('div', 'bt-result');
    this.resultTitle = el('div', 'bt-result-title', 'No result yet: run a backtest or open a recent run.');
    this.resultStrategy = el('div', 'bt-result-strategy');
    resultBox.append(this.resultTitle, this.resultStrategy);
    this.result = keyValueGrid<ResultKey>(resultBox, RESULT_ITEMS, 'kv-grid bt-stats');
    this.quality = el('div', 'bt-quality');
    this.quality.id = 'bt-quality';
    resultBox.append(this.quality);

    const chartBox = el('div', 'chart bt-chart');
    chartBox.id = 'bt-chart';

    const runsBox = el('div', 'bt-runs');
    runsBox.append(el('div', 'sub-head', 'Recent runs'));
    const scroll = el('div', 'scroll');
    const table = el('table', 'grid-table runs');
    const thead = el('thead');
    const hr = el('tr');
    for (const h of ['Started', 'Symbol', 'Strategy', 'Dates', 'Status', 'P&L $', 'Sharpe', 'Report']) hr.append(el('th', undefined, h));
    thead.append(hr);
    this.runsBody = el('tbody');
    table.append(thead, this.runsBody);
    scroll.append(table);
    runsBox.append(scroll);

    root.append(formBox, resultBox, chartBox, runsBox);
    this.chart = makeChart(chartBox);
    this.equity = this.chart.addSeries(BaselineSeries, pnlSeriesOptions('equity'));
    this.showEmptyChart = emptyNote(chartBox, 'The equity curve of a run shows here.');
    this.setProgress(null);
    void this.loadRuns();
    catalog.subscribe(() => this.onStrategies());
  }

  /** The shared field component (form-field.ts); typing in it clears its error and marks it edited. */
  private fieldRow(
    name: string,
    kind: FormField['kind'],
    label: string,
    input: HTMLInputElement | HTMLSelectElement,
    cls: string,
  ): { row: HTMLElement; field: FormField } {
    return fieldRow(name, kind, label, input, cls, (n) => this.edited.add(n as FieldName));
  }

  /** The engine's list (re)loaded: refill the select, keeping the choice while it is listed. */
  private onStrategies(): void {
    const list = this.catalog.list;
    if (!list) {
      if (this.catalog.error) setText(this.strategyNote, `${this.catalog.error}: the engine's default strategy runs, on its config`);
      return;
    }
    const keep = this.strategySelect.value;
    const options = list.strategies.map((s) => {
      const o = new Option(`${s.name}${s.name === list.default ? ' (default)' : ''}`, s.name);
      o.title = `${strategyLabel(s)}${s.builtin ? ' · built-in' : ''}: ${s.description}`;
      return o;
    });
    this.strategySelect.replaceChildren(...options);
    const chosen = list.strategies.some((s) => s.name === keep) ? keep : list.default;
    this.strategySelect.value = chosen;
    this.selectStrategy(this.catalog.find(chosen));
  }

  /** Shows the strategy's parameter fields (built the first time, or again when its schema changed). */
  private selectStrategy(s: StrategyInfo | null): void {
    const previous = this.current;
    if (previous) for (const name of previous.fields.keys()) this.fields.delete(name);
    this.current = null;
    this.showFieldError('strategy', null);
    if (!s) {
      setText(this.strategyNote, '');
      this.paramsBox.replaceChildren();
      return;
    }
    let sf = this.strategyFields.get(s.name);
    if (!sf || sf.hash !== s.hash) {
      sf = { hash: s.hash, rows: [], fields: new Map() };
      for (const p of paramFields(s)) {
        const input = el('input');
        // The built-in's older fields keep their ids (bt-spreadMultiplier); others are bt-param-NAME.
        input.id = p.field.startsWith('params.') ? `bt-param-${p.param}` : `bt-${p.field}`;
        input.title = paramHint(p);
        if (p.type === 'boolean') {
          input.type = 'checkbox';
          input.checked = p.default === true;
        } else {
          input.type = 'number';
          input.step = p.type === 'integer' ? '1' : 'any';
          if (p.min !== null) input.min = String(p.min);
          if (p.max !== null) input.max = String(p.max);
          input.placeholder = rangeText(p);
          input.autocomplete = 'off';
        }
        const older = !p.field.startsWith('params.');
        // The label is the declared name (as in [strategy.<name>] and params.NAME sweeps) and its unit.
        const { row, field } = this.fieldRow(
          p.field,
          'param',
          p.unit ? `${p.param}, ${p.unit}` : p.param,
          input,
          older ? `f-param f-${p.field}` : `f-param f-param-${p.param}`,
        );
        sf.rows.push(row);
        sf.fields.set(p.field, field);
      }
      this.strategyFields.set(s.name, sf);
    }
    this.current = sf;
    for (const [name, f] of sf.fields) this.fields.set(name, f);
    // The same fields again (the list reloaded): left in place, so an input being typed in keeps its focus.
    if (sf !== previous) this.paramsBox.replaceChildren(...sf.rows);
    setText(this.strategyNote, `${strategyLabel(s)}${s.builtin ? ' · built-in' : ''} · ${s.description}${sf.rows.length ? '' : ' · no parameters'}`);
    this.strategySelect.title = this.strategyNote.textContent ?? '';
  }

  /** Fills defaults from the live state once (fields the user has not typed in). */
  prefill(st: SymbolState | null): void {
    if (this.prefilled || !st) return;
    this.prefilled = true;
    const set = (name: FieldName, v: string) => {
      if (!this.edited.has(name) && this.inputs[name].value === '') this.inputs[name].value = v;
    };
    set('symbol', st.root);
    set('startDate', st.session_date);
    set('endDate', st.session_date);
    set('initialCapital', String(Math.round((st.position.equity - st.position.total_pnl) * 100) / 100));
    set('positionLimit', String(st.risk.limits.position_limit));
    set('maxDrawdown', String(Math.round(st.risk.limits.max_drawdown_pct * 1e4) / 1e6));
    // The box always sends true or false: start it where the engine's config has the model.
    if (!this.edited.has('useML')) this.inputs.useML.checked = st.model.used_in_quotes;
  }

  /**
   * The request, or the fields whose text the browser could not read as a number (a number
   * input's value is then empty: sending it would silently run on the default instead).
   */
  private body(): { ok: true; body: BacktestRequestBody } | { ok: false; unreadable: string[] } {
    const out: Record<string, unknown> = {};
    const params: Record<string, unknown> = {};
    const unreadable: string[] = [];
    for (const [name, f] of this.fields) {
      const input = f.input;
      let value: unknown;
      if (input instanceof HTMLSelectElement) {
        if (input.value === '') continue; // no list from the engine: its default strategy runs
        value = input.value;
      } else if (input.type === 'checkbox') value = input.checked;
      else if (input.validity.badInput) {
        unreadable.push(name);
        continue;
      } else {
        const raw = input.value.trim();
        if (raw === '') continue; // the engine's config default applies
        if (f.kind === 'number' || f.kind === 'int' || f.kind === 'param') {
          const n = Number(raw.replace(/[,_\s]/g, ''));
          // Anything unparseable goes as typed: the engine's validation names the problem.
          value = Number.isFinite(n) ? n : raw;
        } else value = raw;
      }
      if (name.startsWith('params.')) params[name.slice('params.'.length)] = value;
      else out[name] = value;
    }
    if (unreadable.length) return { ok: false, unreadable };
    if (Object.keys(params).length) out.params = params;
    return { ok: true, body: out as unknown as BacktestRequestBody };
  }

  private showFieldError(name: string, message: string | null): void {
    const f = this.fields.get(name);
    if (f) showFieldError(f, message);
  }

  private clearErrors(): void {
    for (const name of this.fields.keys()) this.showFieldError(name, null);
  }

  private setMessage(text: string, kind: 'info' | 'error' | 'warn' | 'ok' = 'info'): void {
    setText(this.message, text);
    setClass(this.message, `bt-message ${kind}`);
  }

  private setProgress(p: number | null): void {
    this.progress.set(p);
  }

  private async run(): Promise<void> {
    this.clearErrors();
    this.clearResult(); // a result left beside a rejected request would read as its outcome
    const built = this.body();
    if (!built.ok) {
      for (const name of built.unreadable) this.showFieldError(name, 'not a number: type digits, e.g. 0.5');
      this.setMessage(`${built.unreadable.length} field${built.unreadable.length > 1 ? 's' : ''} to fix`, 'error');
      return;
    }
    const body = built.body;
    const typed = this.tokenInput.value.trim();
    if (typed !== '') saveApiToken(typed);
    // The list could not be read yet (the engine was down, or wanted the token): try again.
    if (this.catalog.list === null) void this.catalog.load();
    this.submit.disabled = true;
    this.setMessage('submitting…');
    this.setProgress(0);
    let res: Response;
    try {
      res = await fetch(
        '/api/backtest',
        withApiToken({
          method: 'POST',
          headers: { 'content-type': 'application/json', prefer: 'respond-async' },
          body: JSON.stringify(body),
        }),
      );
    } catch (e) {
      this.finishWithError(`request failed: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    const data = await readJson(res);
    if (res.status === 401) {
      const refused = apiToken() !== null;
      forgetApiToken();
      this.tokenInput.value = '';
      this.tokenRow.hidden = false;
      this.tokenInput.focus();
      this.finishWithError(
        refused ? 'the engine refused this API token: enter the right one and run again' : 'the engine requires its API token: enter it and run again',
      );
      return;
    }
    if (res.status === 202 || res.status === 200) {
      const run = data as BacktestRun;
      if (run.status === 'completed') {
        void this.showRun(run.id);
        this.done();
        return;
      }
      this.runId = run.id;
      this.lastProgressAt = Date.now();
      this.setMessage(`running ${run.id}`);
      this.startPolling();
      return;
    }
    if (isApiError(data)) {
      const fields: FieldError[] = data.error.fields ?? [];
      let unplaced = false;
      for (const fe of fields) {
        if (this.fields.has(fe.field)) this.showFieldError(fe.field, fe.message);
        else unplaced = true;
      }
      const retry = res.headers.get('retry-after');
      const msg = fields.length && !unplaced ? `rejected: ${fields.length} field${fields.length > 1 ? 's' : ''} to fix` : data.error.message;
      this.finishWithError(`${msg}${retry ? ` (retry in ${retry} s)` : ''}`);
    } else this.finishWithError(`unexpected response: HTTP ${res.status}`);
  }

  private finishWithError(msg: string): void {
    this.setMessage(msg, 'error');
    this.setProgress(null);
    this.done();
  }

  private done(): void {
    this.runId = null;
    this.submit.disabled = false;
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  /** Completion normally arrives on the stream; if the stream is quiet for 3 s, ask once per 3 s. */
  private startPolling(): void {
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = window.setInterval(async () => {
      const id = this.runId;
      if (!id || Date.now() - this.lastProgressAt < 3000) return;
      try {
        const res = await fetch(`/api/backtests/${encodeURIComponent(id)}`, withApiToken());
        if (!res.ok) return;
        const run = (await res.json()) as BacktestRun;
        if (run.id === this.runId && run.status !== 'running') this.onComplete(run);
        else if (run.id === this.runId) this.setProgress(run.progress);
      } catch {
        // engine unreachable: keep waiting
      }
    }, 3000);
  }

  onProgress(p: BacktestProgressEvent): void {
    if (p.id !== this.runId) return;
    this.lastProgressAt = Date.now();
    this.setProgress(p.progress);
    this.setMessage(`running ${p.id} · ${p.symbol}`);
  }

  onComplete(run: BacktestRun): void {
    if (run.id === this.runId) {
      this.done();
      if (run.status === 'completed') {
        this.setProgress(1);
        void this.showRun(run.id);
      } else this.finishWithError(`run ${run.id} ${run.status}: ${run.error?.message ?? ''}`);
    }
    void this.loadRuns();
  }

  private async showRun(id: string): Promise<void> {
    try {
      const res = await fetch(`/api/backtests/${encodeURIComponent(id)}`, withApiToken());
      const data = await readJson(res);
      if (!res.ok) {
        this.setMessage(isApiError(data) ? data.error.message : `HTTP ${res.status}`, 'error');
        return;
      }
      this.renderResult(data as BacktestRun);
    } catch (e) {
      this.setMessage(`cannot load run ${id}: ${e instanceof Error ? e.message : String(e)}`, 'error');
    }
  }

  private clearResult(): void {
    setText(this.resultTitle, 'No result: run a backtest or open a recent run.');
    setText(this.quality, '');
    setText(this.resultStrategy, '');
    for (const [k] of RESULT_ITEMS) {
      setText(this.result[k], DASH);
      setClass(this.result[k], 'num');
    }
    this.equity.setData([]);
    this.showEmptyChart(true);
  }

  private renderResult(r: BacktestRun): void {
    const v = this.result;
    const stopped = r.status === 'completed' && r.kill_switch?.tripped === true;
    this.resultTitle.replaceChildren(
      `${r.symbol ?? r.resolved?.symbol ?? ''} ${r.start_date ?? ''}${r.end_date && r.end_date !== r.start_date ? ` → ${r.end_date}` : ''} · ${r.id} · `,
      el('span', stopped ? 'run-status stopped' : `run-status ${r.status}`, stopped ? STOPPED_LABEL : r.status),
      ` · market ${dataSourceLabel(r.data_source ?? r.resolved?.data_source)}`,
    );
    // The strategy the run used, with every parameter as resolved (what the run actually ran with).
    const strat = r.strategy ?? r.resolved?.strategy;
    setText(
      this.resultStrategy,
      strat
        ? `strategy ${strategyLabel(strat)} · ${Object.entries(strat.params)
            .map(([k, x]) => `${k} ${x}`)
            .join(' · ')}`
        : '',
    );
    this.resultStrategy.title = strat ? `content hash ${strat.hash}` : '';
    const signed = (k: ResultKey, x: number | undefined) => {
      setText(v[k], x === undefined ? DASH : fmtPnl(x));
      setClass(v[k], `num ${signClass(x)}`);
    };
    signed('total_pnl', r.total_pnl);
    setText(v.sharpe, fmtDec2(r.sharpe_ratio));
    setText(v.max_dd, fmtPct(r.max_drawdown_pct, 3));
    setText(v.win_rate, r.total_trades ? fmtFracPct(r.win_rate, 1) : DASH);
    setText(v.pf, r.profit_factor === null || r.profit_factor === undefined ? DASH : fmtDec2(r.profit_factor));
    setText(v.trades, fmtInt(r.total_trades));
    setText(v.fills, fmtInt(r.total_fills));
    setText(v.volume, fmtInt(r.volume));
    setText(v.fees, fmtUsd(r.fees));
    setText(v.final_equity, fmtUsd(r.final_equity));
    setText(v.final_pos, fmtSignedInt(r.final_position));
    setText(v.sessions, fmtInt(r.sessions));
    setText(v.events, fmtInt(r.events_processed));
    setText(v.duration, r.duration_ms === null ? DASH : `${(r.duration_ms / 1000).toFixed(2)} s`);
    setText(this.quality, qualityText(r.data_quality));
    const k = r.kill_switch;
    if (r.status !== 'completed') this.setMessage(`${r.status}: ${r.error?.message ?? ''}`, 'error');
    else if (k?.tripped) {
      // A run its kill switch stopped is not a plain success: say that it stopped, when and why.
      const skipped = k.sessions_not_traded.length;
      const at = k.at ? Date.parse(k.at) : Number.NaN;
      this.setMessage(
        `stopped by the kill switch at ${Number.isFinite(at) ? `${fmtNyDate(at)} ${fmtNyTimeMs(at)} ET` : DASH} (session ${k.session_date}, ` +
          `${k.rule}, equity ${fmtUsd(k.equity)})${skipped ? ` · ${skipped} later session${skipped === 1 ? '' : 's'} not traded` : ''} · ` +
          `${r.id}`,
        'warn',
      );
    } else this.setMessage(`completed ${r.id}`, 'ok');

    // Equity curve as P&L (equity - initial capital), one point per second (the last wins).
    const base = r.initial_capital ?? r.resolved?.initialCapital ?? 0;
    const data: { time: ReturnType<typeof toTime>; value: number }[] = [];
    const curve = [...(r.equity_curve ?? [])].sort((a, b) => a.t - b.t);
    for (const p of curve) {
      const t = Math.floor(p.t / 1000);
      const point = { time: toTime(t), value: Math.round((p.equity - base) * 100) / 100 };
      if (data.length && data[data.length - 1].time === point.time) data[data.length - 1] = point;
      else data.push(point);
    }
    this.equity.setData(data);
    this.showEmptyChart(data.length === 0);
    this.equity.applyOptions({ title: 'P&L' });
    this.chart.timeScale().fitContent();
  }

  async loadRuns(): Promise<void> {
    let list: BacktestList;
    try {
      const res = await fetch('/api/backtests?limit=20', withApiToken());
      if (!res.ok) return;
      list = (await res.json()) as BacktestList;
    } catch {
      return;
    }
    const rows = list.runs.map((r) => {
      const stopped = r.status === 'completed' && r.kill_switch_tripped === true;
      const tr = el('tr', `run ${r.status}${stopped ? ' kill-switch' : ''}`);
      tr.dataset.id = r.id;
      tr.title = `${r.id}: click to show`;
      const started = new Date(r.started_at);
      const dates =
        r.start_date === r.end_date
          ? r.start_date
          : `${r.start_date}→${r.end_date.slice(0, 4) === r.start_date.slice(0, 4) ? r.end_date.slice(5) : r.end_date}`;
      const pnl = el('td', `num ${signClass(r.total_pnl)}`, r.total_pnl === null ? DASH : fmtPnl(r.total_pnl));
      tr.append(
        el('td', 'num', Number.isFinite(started.getTime()) ? started.toLocaleTimeString([], { hour12: false, hour: '2-digit', minute: '2-digit' }) : DASH),
        el('td', undefined, `${r.symbol}${r.data_source === 'synthetic' ? '' : ` · ${dataSourceLabel(r.data_source)}`}`),
        el('td', 'strategy', r.strategy ?? DASH),
        el('td', undefined, dates),
        // A run its kill switch stopped completed, but is not a plain success: amber, and says why.
        el('td', stopped ? 'status stopped' : `status ${r.status}`, stopped ? STOPPED_LABEL : r.status),
        pnl,
        el('td', 'num', r.sharpe_ratio === null ? DASH : fmtDec2(r.sharpe_ratio)),
        reportCell(r.id, r.status === 'completed'),
      );
      tr.addEventListener('click', () => void this.showRun(r.id));
      return tr;
    });
    if (!rows.length) rows.push(emptyRow('no runs yet', 8));
    this.runsBody.replaceChildren(...rows);
  }
}

/** How a completed run the kill switch stopped reads, in amber, in the run list and the result's title. */
const STOPPED_LABEL = 'stopped · kill switch';

/** The run's HTML report (GET /api/backtests/{id}/report, recomputed by the engine), in a new tab. */
function reportCell(id: string, completed: boolean): HTMLElement {
  const td = el('td');
  if (!completed) {
    td.textContent = DASH;
    return td;
  }
  const a = el('a', 'report-link', 'report');
  a.href = `/api/backtests/${encodeURIComponent(id)}/report`;
  a.target = '_blank';
  a.rel = 'noopener';
  a.addEventListener('click', (e) => e.stopPropagation()); // not the row's "show this run"
  td.append(a);
  return td;
}

/** "recorded data: unknown cancels 3, crossed/locked 12.0 s, ...": the non-zero counters (docs/replay.md), or '' when none. */
function qualityText(q: BacktestRun['data_quality']): string {
  if (!q) return '';
  const parts = Object.entries(q)
    .filter(([, v]) => v !== 0)
    .map(([k, v]) => (k === 'crossed_ns' ? `crossed/locked ${(v / 1e9).toFixed(1)} s` : `${k.replace(/_/g, ' ')} ${fmtInt(v)}`));
  return parts.length ? `recorded data: ${parts.join(', ')}` : '';
}
