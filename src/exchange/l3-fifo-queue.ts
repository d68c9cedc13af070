// hftbacktest's L3 FIFO queue model, for order-level (MBO) market data. Our order joins behind
// every order resting at its price when it arrives and advances only when one of those orders
// trades or cancels; orders that arrive later (or lose priority: a modify up, a re-add) are
// behind it and never move it.
//
// The L2 event record carries no order identity (a field in EV_STRIDE would cost every event of
// every source), so the MBO source writes it beside the record: the L3Tape holds, for the record
// in ring slot i, the queue priority of the order it touches (the ring sequence of the event that
// gave the order its place), and the driver says which record the exchange is processing
// (`cur`). An order is ahead of ours iff its priority is older than the point where ours joined.
// Sequences are int32 ring counters that wrap: they are compared by their difference.

import type { QueueModel } from './queue-model.ts';

export class L3Tape {
  /** Priority of the order each ring slot's record touches (slot = sequence & mask). */
  prio: Int32Array;
  mask: number;
  /** Ring sequence of the market record the exchange is processing (or processed last). */
  cur = -1;

  /** `memory`: the tape's slots in a given (e.g. shared) buffer, else a new one. */
  constructor(capacity: number, memory: Int32Array | null = null) {
    if (capacity < 2 || (capacity & (capacity - 1)) !== 0) throw new Error(`L3 tape capacity must be a power of two, got ${capacity}`);
    if (memory !== null && memory.length !== capacity) throw new Error(`L3 tape memory holds ${memory.length} slots, expected ${capacity}`);
    this.prio = memory ?? new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** Records the priority of the record written at ring sequence `seq`. */
  set(seq: number, prio: number): void {
    this.prio[seq & this.mask] = prio;
  }

  /**
   * Grows to `capacity` slots (a power of two), keeping the priorities of ring sequences
   * [from, to): the market ring grew to the same capacity (RecordRing.grown).
   */
  grow(capacity: number, from: number, to: number): void {
    if (capacity <= this.mask + 1 || (capacity & (capacity - 1)) !== 0) throw new Error(`L3 tape can only grow to a larger power of two, got ${capacity}`);
    const prio = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let s = from; s !== to; s = (s + 1) | 0) prio[s & mask] = this.prio[s & this.mask];
    this.prio = prio;
    this.mask = mask;
  }

  /** True when the order touched by the current record was resting before `joined` (ahead of it). */
  aheadOf(joined: number): boolean {
    return ((this.prio[this.cur & this.mask] - joined) | 0) < 0;
  }
}

const MAX_SLOTS = 1 << 12;

export class L3FifoQueueModel implements QueueModel {
  readonly name = 'l3_fifo';
  readonly tape: L3Tape;
  /** Per order slot: the first market sequence after it joined (orders older than it are ahead). */
  private readonly joined = new Int32Array(MAX_SLOTS);

  constructor(tape: L3Tape) {
    this.tape = tape;
  }

  onNewOrder(fronts: Float64Array, s: number, levelQty: number): void {
    if (s >= MAX_SLOTS) throw new Error(`l3_fifo: order slot ${s} beyond ${MAX_SLOTS}`);
    fronts[s] = levelQty; // everything displayed rests before us
    this.joined[s] = (this.tape.cur + 1) | 0;
  }

  /**
   * A fill of one resting order at our price. Ahead of us: the queue ahead shrinks by it (never
   * past us: an order ahead cannot trade our contracts). Behind us: FIFO matching would have
   * reached us first, so the whole trade passes our front.
   */
  onTrade(fronts: Float64Array, s: number, qty: number): void {
    if (this.tape.aheadOf(this.joined[s])) {
      const f = fronts[s] - qty;
      fronts[s] = f > 0 ? f : 0;
    } else {
      fronts[s] = -qty;
    }
  }

  /** A cancel advances us only if the cancelled order was ahead; adds always join behind. */
  onDepthChange(fronts: Float64Array, s: number, before: number, after: number): void {
    if (after < before && this.tape.aheadOf(this.joined[s])) {
      const f = fronts[s] - (before - after);
      fronts[s] = f > 0 ? f : 0;
    }
    if (fronts[s] > after) fronts[s] = after;
  }

  filled(fronts: Float64Array, s: number): number {
    if (!(fronts[s] < 0)) return 0;
    const n = -fronts[s];
    fronts[s] = 0;
    return n;
  }
}
