// Every fill of a session in typed arrays (struct of arrays): the source of the fills exports,
// the API's recent trades and of anyone recomputing our P&L. Fills are rare next to market
// events, so growing the arrays by doubling does not touch the per-event path.

/**
 * `mid`: the engine's book mid (ticks) when the fill was booked (NaN: a side was empty).
 * `markout*`: side x (mid(t+h) - price) in ticks per contract, written later by the
 * MarkoutTracker (NaN until then, and for good if the session ended before t+h); one field per
 * MARKOUT_LABELS entry, in the same order.
 */
export const FILL_FIELDS = [
  'exchTs',
  'recvTs',
  'sentTs',
  'orderId',
  'side',
  'price',
  'qty',
  'liq',
  'fee',
  'position',
  'tradePnl',
  'mid',
  'markout100ms',
  'markout1s',
  'markout10s',
  'markout60s',
] as const;
export type FillField = (typeof FILL_FIELDS)[number];
const FIRST_MARKOUT = FILL_FIELDS.indexOf('markout100ms');

export class FillLog {
  length = 0;
  private cols: Float64Array[];

  constructor(initialCapacity = 1024) {
    this.cols = FILL_FIELDS.map(() => new Float64Array(initialCapacity));
  }

  push(exchTs: number, recvTs: number, sentTs: number, orderId: number, side: number, price: number, qty: number, liq: number, fee: number, position: number, tradePnl: number, mid: number): void {
    if (this.length === this.cols[0].length) {
      this.cols = this.cols.map((c) => {
        const n = new Float64Array(c.length * 2);
        n.set(c);
        return n;
      });
    }
    const i = this.length++;
    const c = this.cols;
    c[0][i] = exchTs;
    c[1][i] = recvTs;
    c[2][i] = sentTs;
    c[3][i] = orderId;
    c[4][i] = side;
    c[5][i] = price;
    c[6][i] = qty;
    c[7][i] = liq;
    c[8][i] = fee;
    c[9][i] = position;
    c[10][i] = tradePnl;
    c[11][i] = mid;
    for (let k = FIRST_MARKOUT; k < c.length; k++) c[k][i] = NaN;
  }

  /** The markout of fill `i` at horizon number `h` (MARKOUT_HORIZONS_NS order), in ticks per contract. */
  setMarkout(h: number, i: number, ticks: number): void {
    this.cols[FIRST_MARKOUT + h][i] = ticks;
  }

  get(field: FillField, i: number): number {
    return this.cols[FILL_FIELDS.indexOf(field)][i];
  }

  /** Compact copy of each column (for transfer out of a worker). */
  columns(): Record<FillField, Float64Array> {
    const out = {} as Record<FillField, Float64Array>;
    FILL_FIELDS.forEach((f, k) => (out[f] = this.cols[k].slice(0, this.length)));
    return out;
  }
}
