// Every fill of a session in typed arrays (struct of arrays): the source of the fills exports,
// the API's recent trades and of anyone recomputing our P&L. Fills are rare next to market
// events, so growing the arrays by doubling does not touch the per-event path.

/**
 * `tradePnl`: the P&L of the closed trades the fill produced, net of the pro-rata fees of both
 * fills (the live state's recent fills). `realized`: the realised P&L the fill produced, gross of
 * fees (the exports' realized_pnl_gross).
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
  'realized',
  'mid',
  'markout100ms',
  'markout1s',
  'markout10s',
  'markout60s',
] as const;
export type FillField = (typeof FILL_FIELDS)[number];
const FIRST_MARKOUT = FILL_FIELDS.indexOf('markout100ms');

// Slots of FillLog.row (FILL_FIELDS order, up to 'mid').
export const FL_EXCH_TS = 0;
export const FL_RECV_TS = 1;
export const FL_SENT_TS = 2;
export const FL_ORDER_ID = 3;
export const FL_SIDE = 4;
export const FL_PRICE = 5;
export const FL_QTY = 6;
export const FL_LIQ = 7;
export const FL_FEE = 8;
export const FL_POSITION = 9;
export const FL_TRADE_PNL = 10;
export const FL_REALIZED = 11;
export const FL_MID = 12;

export class FillLog {
  length = 0;
  /**
   * The fill add() appends, written by the caller first (FL_* slots): staged in a typed array,
   * not passed as twelve arguments (hot-path rule 3; about six boxed doubles per fill otherwise).
   */
  readonly row = new Float64Array(FIRST_MARKOUT);
  private cols: Float64Array[];

  constructor(initialCapacity = 1024) {
    this.cols = FILL_FIELDS.map(() => new Float64Array(initialCapacity));
  }

  /** Appends `row` as the next fill (its markouts NaN until setMarkout). */
  add(): void {
    if (this.length === this.cols[0].length) {
      this.cols = this.cols.map((c) => {
        const n = new Float64Array(c.length * 2);
        n.set(c);
        return n;
      });
    }
    const i = this.length++;
    const c = this.cols;
    const r = this.row;
    for (let k = 0; k < FIRST_MARKOUT; k++) c[k][i] = r[k];
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
