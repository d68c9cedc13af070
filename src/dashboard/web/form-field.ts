// The one field component of the dashboard's forms (backtest and sweep): a label, its input and
// an error line under it that the engine's field errors fill (typing clears it); the progress bar
// of a run; and the dataset picker (GET /api/datasets).

import { withApiToken } from './api-token.ts';
import { el, setText } from './dom.ts';

/** An input of a form, by the request field the engine names in its errors. */
export interface FormField {
  kind: 'text' | 'date' | 'number' | 'int' | 'bool' | 'param' | 'select';
  input: HTMLInputElement | HTMLSelectElement;
  error: HTMLElement;
}

/**
 * A labelled input with its error line. `cls` names the row (`f-<field>`); the hint goes to the
 * label's and the input's title, never into the input as a placeholder that reads like a value.
 */
export function fieldRow(
  name: string,
  kind: FormField['kind'],
  label: string,
  input: HTMLInputElement | HTMLSelectElement,
  cls: string,
  onEdit: (name: string) => void,
): { row: HTMLElement; field: FormField } {
  const bool = input instanceof HTMLInputElement && input.type === 'checkbox';
  const row = el('label', `field ${cls}${bool ? ' bool' : ''}`);
  input.name = name;
  const err = el('span', 'field-error');
  err.dataset.field = name;
  err.setAttribute('role', 'alert');
  const labelEl = el('span', 'field-label', label);
  if (input.title) labelEl.title = input.title;
  row.append(labelEl, input, err);
  const field: FormField = { kind, input, error: err };
  input.addEventListener(input instanceof HTMLSelectElement ? 'change' : 'input', () => {
    onEdit(name);
    showFieldError(field, null);
  });
  return { row, field };
}

/** A text input for a request field: decimal keyboard for numbers, no autocomplete. */
export function textInput(id: string, kind: FormField['kind'], hint: string): HTMLInputElement {
  const input = el('input');
  input.id = id;
  if (kind === 'bool') input.type = 'checkbox';
  else if (kind === 'date') input.type = 'date';
  else {
    input.type = 'text';
    input.inputMode = kind === 'text' ? 'text' : 'decimal';
    input.autocomplete = 'off';
    input.spellcheck = false;
  }
  input.title = hint;
  return input;
}

export function showFieldError(f: FormField, message: string | null): void {
  setText(f.error, message ?? '');
  f.input.classList.toggle('invalid', message !== null);
  f.input.setAttribute('aria-invalid', message === null ? 'false' : 'true');
}

/** The bar and percentage of a run's progress; null hides the figure. */
export function progressBar(): { box: HTMLElement; set(p: number | null): void } {
  const box = el('div', 'bt-progress');
  const bar = el('div', 'bar');
  const fill = el('div', 'fill');
  bar.append(fill);
  const text = el('span', 'num');
  box.append(bar, text);
  box.setAttribute('role', 'progressbar');
  box.setAttribute('aria-valuemin', '0');
  box.setAttribute('aria-valuemax', '100');
  return {
    box,
    set(p) {
      fill.style.width = `${Math.round((p ?? 0) * 100)}%`;
      setText(text, p === null ? '' : `${(p * 100).toFixed(0)}%`);
      box.setAttribute('aria-valuenow', p === null ? '0' : String(Math.round(p * 100)));
    },
  };
}

/**
 * The dataset select: "synthetic market" (no `dataset` sent) and the engine's recorded datasets
 * (GET /api/datasets), each with its schema and symbols; one that cannot be read is listed,
 * disabled, with why. Loaded when the form is built and again on focus.
 */
export function datasetSelect(id: string): HTMLSelectElement {
  const select = el('select');
  select.id = id;
  select.title = 'recorded market data under <data_dir>/market (GET /api/datasets), or the synthetic market';
  select.append(new Option('synthetic market', ''));
  const load = async () => {
    try {
      const res = await fetch('/api/datasets', withApiToken());
      if (!res.ok) return;
      const list = (await res.json()) as { datasets: { name: string; schema: string; symbols: string[]; error: string | null }[] };
      const keep = select.value;
      const options = list.datasets.map((d) => {
        const o = new Option(d.error ? `${d.name} (unreadable)` : `${d.name} · ${d.schema} · ${d.symbols.slice(0, 3).join(', ')}`, d.name);
        o.disabled = d.error !== null;
        o.title = d.error ?? '';
        return o;
      });
      select.replaceChildren(new Option('synthetic market', ''), ...options);
      select.value = list.datasets.some((d) => d.name === keep) ? keep : '';
    } catch {
      // engine unreachable: the synthetic market stays the only choice
    }
  };
  void load();
  select.addEventListener('focus', () => void load());
  return select;
}
