// Transient notices for the stream's `alert` events (the risk panel keeps the full list).
// At most MAX on screen; each disappears after a few seconds (critical ones stay longer).

import type { AlertEvent } from '../shared/api.ts';
import { el } from './dom.ts';
import { fmtNyTime } from './format.ts';

const MAX = 4;

export class Toasts {
  constructor(private readonly box: HTMLElement) {}

  alert(a: AlertEvent): void {
    const t = el('div', `toast ${a.alert.severity}`);
    t.append(el('span', 'num', fmtNyTime(Date.parse(a.alert.time))), el('b', undefined, `${a.symbol} ${a.alert.code}`), el('span', undefined, a.alert.message));
    this.box.prepend(t);
    while (this.box.children.length > MAX) this.box.lastElementChild?.remove();
    window.setTimeout(() => t.remove(), a.alert.severity === 'critical' ? 20_000 : 6_000);
  }
}
