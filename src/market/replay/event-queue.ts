// The L2 events a recorded-data adapter derives from its records, waiting for room in the
// market ring. One record may yield none (a trade print, a fill's follow-up cancel) or many (a
// book clear), so the adapters push here and the market source drains into the ring.
//
// Each entry is an EV_* record plus the queue priority of the order it touches (MBO only, for
// the l3_fifo model's tape: see l3-fifo-queue.ts). Priorities are in "emitted index" space, the
// count of events pushed before this one: the source maps them to ring sequences on drain.
// The buffer grows by doubling and is compacted when drained, so its size is the largest burst.

import { EV_KIND, EV_PRICE, EV_QTY, EV_RECV, EV_SIDE, EV_STRIDE, EV_TS } from '../../core/events.ts';
import type { RecordRing } from '../../core/ring.ts';
import type { L3Tape } from '../../exchange/l3-fifo-queue.ts';

const EQ_PRIO = EV_STRIDE;
const EQ_STRIDE = EV_STRIDE + 1;

export class EventQueue {
  private buf = new Float64Array(1024 * EQ_STRIDE);
  private head = 0; // next entry to drain
  private tail = 0; // next entry to fill
  /** Events pushed so far: the emitted index of the next one. */
  emitted = 0;
  /**
   * Time (EV_TS) of the events pushed next: the adapter sets it once per record, before the book
   * applies the record. A field, not an argument: ns times are doubles, and passing one to a call
   * V8 does not inline allocates a heap number, i.e. garbage on every event of the decoder thread.
   */
  ts = 0;

  get length(): number {
    return this.tail - this.head;
  }

  /** Queues one L2 event at time `ts`; returns its emitted index (the priority an add gives its order). */
  push(kind: number, side: number, price: number, qty: number, prio: number): number {
    if ((this.tail + 1) * EQ_STRIDE > this.buf.length) this.makeRoom();
    const b = this.buf;
    const o = this.tail * EQ_STRIDE;
    const ts = this.ts;
    b[o + EV_TS] = ts;
    b[o + EV_KIND] = kind;
    b[o + EV_SIDE] = side;
    b[o + EV_PRICE] = price;
    b[o + EV_QTY] = qty;
    b[o + EV_RECV] = ts;
    b[o + EQ_PRIO] = prio;
    this.tail++;
    return this.emitted++;
  }

  /** The last queued event, still open to merging (undefined offsets when empty: check length). */
  lastOffset(): number {
    return (this.tail - 1) * EQ_STRIDE;
  }

  get data(): Float64Array {
    return this.buf;
  }

  /**
   * Moves up to `max` events into `ring` (the caller knows the room) and publishes them; the
   * tape, when given, gets each event's priority at its ring sequence (`base` + emitted index).
   */
  drainTo(ring: RecordRing, max: number, tape: L3Tape | null, base: number): number {
    let n = this.tail - this.head;
    if (n > max) n = max;
    const b = this.buf;
    const d = ring.data;
    for (let k = 0; k < n; k++) {
      const o = (this.head + k) * EQ_STRIDE;
      if (tape !== null) tape.set(ring.writeSeq, (base + b[o + EQ_PRIO]) | 0);
      const w = ring.claimUnchecked();
      for (let f = 0; f < EV_STRIDE; f++) d[w + f] = b[o + f];
    }
    this.head += n;
    if (this.head === this.tail) this.head = this.tail = 0;
    if (n > 0) ring.publish();
    return n;
  }

  private makeRoom(): void {
    const live = this.tail - this.head;
    const next = live * 2 * EQ_STRIDE > this.buf.length ? new Float64Array(this.buf.length * 2) : this.buf;
    next.copyWithin(0, this.head * EQ_STRIDE, this.tail * EQ_STRIDE);
    if (next !== this.buf) next.set(this.buf.subarray(this.head * EQ_STRIDE, this.tail * EQ_STRIDE));
    this.buf = next;
    this.head = 0;
    this.tail = live;
  }
}
