// Small DOM helpers. Views build their elements once and then only change text and classes when
// a value differs, so a 10 Hz stream costs a few text writes per frame, not a re-render.

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A table row of one cell across `colSpan` columns saying the table is empty. */
export function emptyRow(text: string, colSpan: number): HTMLTableRowElement {
  const tr = el('tr');
  const td = el('td', 'empty', text);
  td.colSpan = colSpan;
  tr.append(td);
  return tr;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} is missing from index.html`);
  return e as T;
}

/** Sets the text when it differs (no layout work for an unchanged value). */
export function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** Sets className when it differs. */
export function setClass(node: HTMLElement, className: string): void {
  if (node.className !== className) node.className = className;
}

export function setAttr(node: HTMLElement, name: string, value: string): void {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** A label/value grid (dt/dd pairs); returns the value cells by key. */
export function keyValueGrid<K extends string>(
  parent: HTMLElement,
  items: readonly (readonly [K, string, string?])[],
  className = 'kv-grid',
): Record<K, HTMLElement> {
  const grid = el('dl', className);
  const out = {} as Record<K, HTMLElement>;
  for (const [key, label, title] of items) {
    const dt = el('dt', undefined, label);
    if (title) dt.title = title;
    const dd = el('dd', 'num');
    dd.dataset.key = key;
    grid.append(dt, dd);
    out[key] = dd;
  }
  parent.append(grid);
  return out;
}
