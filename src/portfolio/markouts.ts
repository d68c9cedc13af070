// Markouts: for each fill, the mid price at +100 ms, +1 s, +10 s and +60 s (exchange time) against the
// fill price, signed so that positive is good for us: side x (mid(t+h) - fill price), in ticks,
// summed per contract. A passive fill at the touch starts near +0.5 tick; adverse selection shows
// as the markout falling with the horizon. Fills too close to the session end to reach a horizon
// are left out of that horizon. Each fill's own markouts also go to the FillLog (the exports).

import { BID } from '../core/events.ts';
import type { FillLog } from './fill-log.ts';

export const MARKOUT_HORIZONS_NS: readonly number[] = [100e6, 1e9, 10e9, 60e9];
export const MARKOUT_LABELS: readonly string[] = ['100ms', '1s', '10s', '60s'];

export interface MarkoutSums {
  /** Per horizon: sum of side x (mid - price) x qty, in ticks x contracts. */
  sumTicks: number[];
  /** Per horizon: contracts measured. */
  qty: number[];
}

export class MarkoutTracker {
  private readonly ts: Float64Array;
  private readonly dir: Float64Array;
  private readonly price: Float64Array;
  private readonly qty: Float64Array;
  private readonly fillIndex: Float64Array; // the fill's row in `log`
  private readonly mask: number;
  private head = 0; // next fill slot
  private readonly cursor: Int32Array; // per horizon: next fill to resolve
  readonly sumTicks: Float64Array;
  readonly measuredQty: Float64Array;
  overflow = 0;
  /** due[0]: exchange time at which the next markout is due (Infinity: none pending). */
  readonly due = new Float64Array([Infinity]);

  /** `log`: where each fill's markouts are written (null: sums only). */
  constructor(
    private readonly log: FillLog | null = null,
    capacity = 1 << 14,
  ) {
    this.ts = new Float64Array(capacity);
    this.dir = new Float64Array(capacity);
    this.price = new Float64Array(capacity);
    this.qty = new Float64Array(capacity);
    this.fillIndex = new Float64Array(capacity);
    this.mask = capacity - 1;
    const h = MARKOUT_HORIZONS_NS.length;
    this.cursor = new Int32Array(h);
    this.sumTicks = new Float64Array(h);
    this.measuredQty = new Float64Array(h);
  }

  addFill(exchTs: number, side: number, price: number, qty: number, fillIndex: number): void {
    // The longest horizon's cursor is the oldest pending fill; never overwrite it.
    const oldest = this.cursor[MARKOUT_HORIZONS_NS.length - 1];
    if (this.head - oldest > this.mask) {
      this.overflow++;
      return;
    }
    const i = this.head & this.mask;
    this.ts[i] = exchTs;
    this.dir[i] = side === BID ? 1 : -1;
    this.price[i] = price;
    this.qty[i] = qty;
    this.fillIndex[i] = fillIndex;
    this.head++;
    if (exchTs + MARKOUT_HORIZONS_NS[0] < this.due[0]) this.due[0] = exchTs + MARKOUT_HORIZONS_NS[0];
  }

  /**
   * Resolves the markouts due by exchange time at[k] at the mid at[k + 1] (ticks). Callers
   * check `due[0]` first, on every market event, and call this only when something is due. Both
   * inputs come in a typed array (hot-path rule 3).
   */
  resolve(at: Float64Array, k: number): void {
    const exchTs = at[k];
    const mid = at[k + 1];
    if (mid !== mid) return; // NaN: a side is empty
    let due = Infinity;
    for (let h = 0; h < this.cursor.length; h++) {
      let c = this.cursor[h];
      const horizon = MARKOUT_HORIZONS_NS[h];
      while (c < this.head) {
        const i = c & this.mask;
        if (this.ts[i] + horizon > exchTs) break;
        const ticks = this.dir[i] * (mid - this.price[i]);
        this.sumTicks[h] += ticks * this.qty[i];
        if (this.log !== null) this.log.setMarkout(h, this.fillIndex[i], ticks);
        this.measuredQty[h] += this.qty[i];
        c++;
      }
      this.cursor[h] = c;
      if (c < this.head) {
        const next = this.ts[c & this.mask] + horizon;
        if (next < due) due = next;
      }
    }
    this.due[0] = due;
  }

  sums(): MarkoutSums {
    return { sumTicks: Array.from(this.sumTicks), qty: Array.from(this.measuredQty) };
  }
}
