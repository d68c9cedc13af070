// Our fills for one symbol, newest first, without duplicates, capped. Fed by the stream's `fill`
// events (immediate) and by each state's recent_trades (the engine's last 50, which also covers
// fills made before the page opened or while the stream was down).

import type { FillView } from './api.ts';

export function fillKey(f: FillView): string {
  return `${f.time}|${f.order_id}|${f.side}|${f.price}|${f.qty}|${f.position}`;
}

let stores = 0;

export class FillStore {
  /** Distinguishes stores (a new engine run gets a new one) in change signatures. */
  readonly id = ++stores;
  /** Newest first. */
  readonly list: FillView[] = [];
  private readonly keys = new Set<string>();
  revision = 0;

  constructor(readonly cap: number) {}

  /** Adds a fill unless already known; returns true when it was new. */
  add(f: FillView): boolean {
    const k = fillKey(f);
    if (this.keys.has(k)) return false;
    this.keys.add(k);
    const t = Date.parse(f.time);
    let i = 0;
    while (i < this.list.length && Date.parse(this.list[i].time) > t) i++;
    this.list.splice(i, 0, f);
    while (this.list.length > this.cap) this.keys.delete(fillKey(this.list.pop()!));
    this.revision++;
    return true;
  }

  /** Merges a state's recent_trades (newest first). */
  merge(recent: readonly FillView[]): void {
    for (let i = recent.length - 1; i >= 0; i--) this.add(recent[i]);
  }

  clear(): void {
    this.list.length = 0;
    this.keys.clear();
    this.revision++;
  }
}
