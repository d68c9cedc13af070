// Single-producer / single-consumer ring of fixed-size float64 records. One implementation
// serves every stream in the engine: market events, order messages, execution reports, fills.
// Backed by an ArrayBuffer in a backtest (one thread) or a SharedArrayBuffer between workers.
//
// Counters are int32 and wrap; differences are taken with `| 0`, valid while the ring holds
// fewer than 2^31 records. The producer writes records with plain stores and publishes the head
// with one Atomics.store per batch; the consumer publishes the tail the same way. A ring in a
// plain ArrayBuffer (a backtest: both ends on one thread) publishes with plain stores: no other
// thread can see it, and V8 compiles Atomics.store to a call into a builtin.

const HEAD = 0;
const TAIL = 1;
const DROPS = 2;
const CTL_INTS = 4;

export interface RingMemory {
  stride: number;
  capacity: number;
  ctl: SharedArrayBuffer | ArrayBuffer;
  data: SharedArrayBuffer | ArrayBuffer;
}

export class RecordRing {
  readonly stride: number;
  readonly capacity: number;
  readonly mask: number;
  /** Record at sequence s starts at data[(s & mask) * stride]. */
  readonly data: Float64Array;
  readonly ctl: Int32Array;
  private localHead: number;
  private localTail: number;
  /** Backed by a SharedArrayBuffer: other threads read the counters. */
  private readonly shared: boolean;

  constructor(mem: RingMemory) {
    if (mem.capacity < 2 || (mem.capacity & (mem.capacity - 1)) !== 0) {
      throw new Error(`ring capacity must be a power of two, got ${mem.capacity}`);
    }
    this.stride = mem.stride;
    this.capacity = mem.capacity;
    this.mask = mem.capacity - 1;
    this.data = new Float64Array(mem.data);
    this.ctl = new Int32Array(mem.ctl);
    this.shared = mem.ctl instanceof SharedArrayBuffer;
    this.localHead = Atomics.load(this.ctl, HEAD);
    this.localTail = Atomics.load(this.ctl, TAIL);
  }

  static allocate(stride: number, capacity: number, shared: boolean): RecordRing {
    return new RecordRing(RecordRing.memory(stride, capacity, shared));
  }

  static memory(stride: number, capacity: number, shared: boolean): RingMemory {
    const Buf = shared ? SharedArrayBuffer : ArrayBuffer;
    return { stride, capacity, ctl: new Buf(CTL_INTS * 4), data: new Buf(stride * capacity * 8) };
  }

  get memory(): RingMemory {
    return { stride: this.stride, capacity: this.capacity, ctl: this.ctl.buffer as ArrayBuffer, data: this.data.buffer as ArrayBuffer };
  }

  // ---- producer side ----

  /** Free slots as seen by the producer. */
  free(): number {
    return this.capacity - ((this.localHead - this.tail()) | 0);
  }

  /** Offset of the next record to write, or -1 when full. Call publish() after a batch. */
  claim(): number {
    if (((this.localHead - this.tail()) | 0) >= this.capacity) return -1;
    const off = (this.localHead & this.mask) * this.stride;
    this.localHead = (this.localHead + 1) | 0;
    return off;
  }

  /** Offset of the next record when the caller already knows there is room (see free()). */
  claimUnchecked(): number {
    const off = (this.localHead & this.mask) * this.stride;
    this.localHead = (this.localHead + 1) | 0;
    return off;
  }

  /**
   * Appends n records stored one after another in `src` from offset `from` (same stride), in at
   * most two bulk copies (the ring's wrap splits them); the caller knows there is room, and
   * publishes. A record-by-record loop costs a source thread ~10 % of its time (round twenty-one).
   */
  append(src: Float64Array, from: number, n: number): void {
    const st = this.stride;
    const at = this.localHead & this.mask;
    const first = n < this.capacity - at ? n : this.capacity - at;
    this.data.set(src.subarray(from, from + first * st), at * st);
    if (first < n) this.data.set(src.subarray(from + first * st, from + n * st), 0);
    this.localHead = (this.localHead + n) | 0;
  }

  /**
   * Consumer side: appends the next n unconsumed records to `out` (same stride; the caller knows
   * there is room, and publishes), split at this ring's wrap. Consumes nothing: see advance().
   */
  copyTo(out: RecordRing, n: number): void {
    const at = this.localTail & this.mask;
    const first = n < this.capacity - at ? n : this.capacity - at;
    out.append(this.data, at * this.stride, first);
    if (first < n) out.append(this.data, 0, n - first);
  }

  /** The consumer's published tail. */
  private tail(): number {
    return this.shared ? Atomics.load(this.ctl, TAIL) : this.ctl[TAIL];
  }

  publish(): void {
    if (this.shared) Atomics.store(this.ctl, HEAD, this.localHead);
    else this.ctl[HEAD] = this.localHead;
  }

  /** Publishes every record up to sequence `seq` (exclusive), written by this or a dead producer. */
  publishThrough(seq: number): void {
    this.localHead = seq | 0;
    this.publish();
  }

  /** Sequence number the next claimed record will get. */
  get writeSeq(): number {
    return this.localHead;
  }

  /** Counts a record the producer chose not to write because the ring was full. */
  countDrop(n = 1): void {
    Atomics.add(this.ctl, DROPS, n);
  }

  get drops(): number {
    return Atomics.load(this.ctl, DROPS);
  }

  // ---- consumer side ----

  /** Records published and not yet consumed. */
  available(): number {
    return (Atomics.load(this.ctl, HEAD) - this.localTail) | 0;
  }

  /**
   * available() for a ring whose producer runs on this same thread (a backtest): a plain read
   * of the head instead of an atomic one, on the per-event path of the driver.
   */
  availableSameThread(): number {
    return (this.ctl[HEAD] - this.localTail) | 0;
  }

  /** Offset of the oldest unconsumed record (check available() first). */
  peek(): number {
    return (this.localTail & this.mask) * this.stride;
  }

  /** Offset of the record `ahead` places after the oldest unconsumed one. */
  peekAt(ahead: number): number {
    return (((this.localTail + ahead) | 0) & this.mask) * this.stride;
  }

  /** Consumes one record locally; call release() to hand the space back to the producer. */
  advance(n = 1): void {
    this.localTail = (this.localTail + n) | 0;
  }

  release(): void {
    if (this.shared) Atomics.store(this.ctl, TAIL, this.localTail);
    else this.ctl[TAIL] = this.localTail;
  }

  get readSeq(): number {
    return this.localTail;
  }

  // ---- both sides, one thread ----

  /**
   * A ring of twice the capacity holding this one's unconsumed records at the same sequence
   * numbers, for a ring whose producer and consumer are one thread (a backtest's market ring when
   * more events are in flight than it holds). This ring is not used afterwards.
   */
  grown(): RecordRing {
    if (this.shared) throw new Error('a ring shared between threads cannot grow');
    const r = RecordRing.allocate(this.stride, this.capacity * 2, false);
    const st = this.stride;
    for (let s = this.localTail; s !== this.localHead; s = (s + 1) | 0) {
      const from = (s & this.mask) * st;
      r.data.set(this.data.subarray(from, from + st), (s & r.mask) * st);
    }
    r.localHead = this.localHead;
    r.localTail = this.localTail;
    r.ctl[HEAD] = this.localHead;
    r.ctl[TAIL] = this.localTail;
    r.ctl[DROPS] = this.ctl[DROPS];
    return r;
  }
}
