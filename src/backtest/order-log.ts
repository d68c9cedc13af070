// The order log of a backtest session (`--orders`): every order message as it reaches the
// simulated exchange (new order, cancel, modify) and every execution report as it reaches the
// engine (ack, reject, fill, cancel confirmation, cancel reject, modify confirmation, modify
// reject), copied from the session's own order and report rings (SessionTaps), so it is exactly
// what the run did. The engine requotes its quote() targets by cancel and new order; modifies
// come from a strategy's replace().
// Rows go into one growing Float64Array (doubling): no object per row. Off unless requested.

import {
  ER_ACK,
  ER_CANCEL_REJECT,
  ER_CANCELED,
  ER_EXCH_TS,
  ER_FEE,
  ER_FILL,
  ER_ID,
  ER_LEAVES,
  ER_LIQ,
  ER_MODIFIED,
  ER_MODIFY_REJECT,
  ER_PRICE,
  ER_QTY,
  ER_REASON,
  ER_REJECT,
  ER_SENT,
  ER_SIDE,
  ER_TS,
  ER_TYPE,
  OM_CANCEL,
  OM_ID,
  OM_MODIFY,
  OM_NEW,
  OM_PRICE,
  OM_QTY,
  OM_SENT,
  OM_SIDE,
  OM_TS,
  OM_TYPE,
} from '../core/events.ts';

/** Row fields; times in engine ns (the session clock), prices in ticks, NaN = not applicable. */
export const OL_KIND = 0;
export const OL_SENT = 1; // engine send time of the order message (of a report: the message that caused it)
export const OL_EXCH = 2; // exchange time: a message's arrival there, a report's event
export const OL_RECV = 3; // engine receive time of a report (NaN for a message)
export const OL_ID = 4;
export const OL_SIDE = 5;
export const OL_PRICE = 6; // order price; of a fill, the fill price
export const OL_QTY = 7; // new order: its quantity; cancel: what it cancels; modify: the new total (filled + working); fill: the filled quantity
export const OL_LEAVES = 8; // reports: quantity still open after it
export const OL_LIQ = 9;
export const OL_FEE = 10;
export const OL_REASON = 11;
export const OL_STRIDE = 12;

/** Row kinds, in the `event` column's words. */
export const ORDER_EVENTS = ['', 'send', 'cancel', 'ack', 'reject', 'fill', 'canceled', 'cancel_reject', 'modify', 'modified', 'modify_reject'] as const;
const K_SEND = 1;
const K_CANCEL = 2;
const K_MODIFY = 8;
const REPORT_KIND: Record<number, number> = {
  [ER_ACK]: 3,
  [ER_REJECT]: 4,
  [ER_FILL]: 5,
  [ER_CANCELED]: 6,
  [ER_CANCEL_REJECT]: 7,
  [ER_MODIFIED]: 9,
  [ER_MODIFY_REJECT]: 10,
};
const reportKind = new Float64Array(16);
for (const [er, k] of Object.entries(REPORT_KIND)) reportKind[Number(er)] = k;

export class OrderLog {
  length = 0;
  private data = new Float64Array(OL_STRIDE * 4096);

  private row(): number {
    if ((this.length + 1) * OL_STRIDE > this.data.length) {
      const d = new Float64Array(this.data.length * 2);
      d.set(this.data);
      this.data = d;
    }
    return this.length++ * OL_STRIDE;
  }

  /** An order message (OM_*) delivered to the exchange. */
  message(m: Float64Array, off: number): void {
    const type = m[off + OM_TYPE];
    const o = this.row();
    const d = this.data;
    d[o + OL_KIND] = type === OM_NEW ? K_SEND : type === OM_CANCEL ? K_CANCEL : type === OM_MODIFY ? K_MODIFY : 0;
    d[o + OL_SENT] = m[off + OM_SENT];
    d[o + OL_EXCH] = m[off + OM_TS];
    d[o + OL_RECV] = NaN;
    d[o + OL_ID] = m[off + OM_ID];
    d[o + OL_SIDE] = m[off + OM_SIDE];
    d[o + OL_PRICE] = m[off + OM_PRICE];
    d[o + OL_QTY] = m[off + OM_QTY];
    d[o + OL_LEAVES] = NaN;
    d[o + OL_LIQ] = NaN;
    d[o + OL_FEE] = NaN;
    d[o + OL_REASON] = NaN;
  }

  /** An execution report (ER_*) delivered to the engine. */
  report(r: Float64Array, off: number): void {
    const type = r[off + ER_TYPE];
    const o = this.row();
    const d = this.data;
    const fill = type === ER_FILL;
    d[o + OL_KIND] = reportKind[type] ?? 0;
    d[o + OL_SENT] = r[off + ER_SENT];
    d[o + OL_EXCH] = r[off + ER_EXCH_TS];
    d[o + OL_RECV] = r[off + ER_TS];
    d[o + OL_ID] = r[off + ER_ID];
    d[o + OL_SIDE] = r[off + ER_SIDE];
    d[o + OL_PRICE] = r[off + ER_PRICE];
    d[o + OL_QTY] = fill ? r[off + ER_QTY] : NaN;
    d[o + OL_LEAVES] = r[off + ER_LEAVES];
    d[o + OL_LIQ] = fill ? r[off + ER_LIQ] : NaN;
    d[o + OL_FEE] = fill ? r[off + ER_FEE] : NaN;
    d[o + OL_REASON] = type === ER_REJECT || type === ER_CANCELED || type === ER_CANCEL_REJECT || type === ER_MODIFY_REJECT ? r[off + ER_REASON] : NaN;
  }

  /** The rows, compact (for transfer out of a worker). */
  rows(): Float64Array {
    return this.data.slice(0, this.length * OL_STRIDE);
  }
}
