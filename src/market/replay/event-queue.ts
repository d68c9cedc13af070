// The L2 events a recorded-data adapter derives from its records, waiting for room in the
// market ring. One record may yield none (a trade print, a fill's follow-up cancel) or many (a
// book clear), so the adapters push here and the market source drains into the ring.
//
// Each entry is an EV_* record, at the ring's stride so that a drain is one bulk copy, and beside
// it the queue priority of the order it touches (MBO only, for the l3_fifo model's tape: see
// l3-fifo-queue.ts). Priorities are in "emitted index" space, the count of events pushed before
// this one: the source maps them to ring sequences on drain. The buffers grow by doubling and
// are compacted when drained, so their size is the largest burst.

import { EV_KIND, EV_PRICE, EV_QTY, EV_RECV, EV_SIDE, EV_STRIDE, EV_TS } from '../../core/events.ts';
import type { RecordRing } from '../../core/ring.ts';
import type { L3Tape } from '../../exchange/l3-fifo-queue.ts';

export class EventQueue {
  private buf = new Float64Array(1024 * EV_STRIDE);
  private prio = new Float64Array(1024);
  private head = 0; // next entry to drain
  private tail = 0; // next entry to fill
  /** Events pushed so far: the emitted index of the next one. */
  emitted = 0;
  /**
   * Time (EV_TS) of the events pushed next: the adapter sets it once per record, before the book
   * applies the record. A field, not an argument (hot-path rule 3), set once per record.
   */
  ts = 0;

  get length(): number {
    return this.tail - this.head;
  }

  /** Queues one L2 event at time `ts`; returns its emitted index (the priority an add gives its order). */
  push(kind: number, side: number, price: number, qty: number, prio: number): number {
    if (this.tail === this.prio.length) this.makeRoom();
    const b = this.buf;
    const o = this.tail * EV_STRIDE;
    const ts = this.ts;
    b[o + EV_TS] = ts;
    b[o + EV_KIND] = kind;
    b[o + EV_SIDE] = side;
    b[o + EV_PRICE] = price;
    b[o + EV_QTY] = qty;
    b[o + EV_RECV] = ts;
    this.prio[this.tail] = prio;
    this.tail++;
    return this.emitted++;
  }

  /**
   * Drops the queued events and counts emitted indexes from 0 again: the warm-up before a
   * window's start, whose events nobody sees (its book is published afresh once it ends).
   */
  restart(): void {
    this.head = this.tail = 0;
    this.emitted = 0;
  }

  /** The last queued event, still open to merging (undefined offsets when empty: check length). */
  lastOffset(): number {
    return (this.tail - 1) * EV_STRIDE;
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
    if (n <= 0) return 0;
    if (tape !== null) for (let k = 0; k < n; k++) tape.set((ring.writeSeq + k) | 0, (base + this.prio[this.head + k]) | 0);
    ring.append(this.buf, this.head * EV_STRIDE, n);
    this.head += n;
    if (this.head === this.tail) this.head = this.tail = 0;
    ring.publish();
    return n;
  }

  private makeRoom(): void {
    const live = this.tail - this.head;
    const grow = live * 2 > this.prio.length;
    const buf = grow ? new Float64Array(this.buf.length * 2) : this.buf;
    const prio = grow ? new Float64Array(this.prio.length * 2) : this.prio;
    if (grow) {
      buf.set(this.buf.subarray(this.head * EV_STRIDE, this.tail * EV_STRIDE));
      prio.set(this.prio.subarray(this.head, this.tail));
    } else {
      buf.copyWithin(0, this.head * EV_STRIDE, this.tail * EV_STRIDE);
      prio.copyWithin(0, this.head, this.tail);
    }
    this.buf = buf;
    this.prio = prio;
    this.head = 0;
    this.tail = live;
  }
}
