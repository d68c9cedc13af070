// Order id -> slot, for the MBO book: an open-addressing hash table (linear probing, backward-shift
// deletion, no tombstones) in typed arrays, keyed by the id's two 32-bit halves. Why not a
// Map<number, number>: an id above 2^31 (CME order ids are ~1e12 and more) is a heap number, so
// every add and every call that passes it on allocates, and an id above 2^53 is not exact. The
// halves are int32 (never boxed) and cover every u64 id. Nothing is allocated once the table has
// grown to the book's size. (No npm package offers such a table with deletion; this is ~80 lines.)
// The table doubles at half full.

const EMPTY = -1;

export class OrderIdIndex {
  private hi: Int32Array;
  private lo: Int32Array;
  /** Slot of each key, EMPTY where the bucket is free. */
  private vals: Int32Array;
  private mask: number;
  /** Entries in the table. */
  size = 0;

  constructor(capacity = 1024) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.hi = new Int32Array(n);
    this.lo = new Int32Array(n);
    this.vals = new Int32Array(n).fill(EMPTY);
    this.mask = n - 1;
  }

  /** The slot of the id (high and low 32 bits, as int32), or -1. */
  get(hi: number, lo: number): number {
    const vals = this.vals;
    for (let b = bucketOf(hi, lo, this.mask); ; b = (b + 1) & this.mask) {
      const v = vals[b];
      if (v === EMPTY || (this.lo[b] === lo && this.hi[b] === hi)) return v;
    }
  }

  /** Maps the id to `slot` (>= 0), replacing an existing mapping. */
  set(hi: number, lo: number, slot: number): void {
    if ((this.size + 1) * 2 > this.vals.length) this.grow();
    const vals = this.vals;
    let b = bucketOf(hi, lo, this.mask);
    while (vals[b] !== EMPTY && !(this.lo[b] === lo && this.hi[b] === hi)) b = (b + 1) & this.mask;
    if (vals[b] === EMPTY) this.size++;
    this.hi[b] = hi;
    this.lo[b] = lo;
    vals[b] = slot;
  }

  /** Removes the id if present. */
  delete(hi: number, lo: number): void {
    const vals = this.vals;
    const mask = this.mask;
    let b = bucketOf(hi, lo, mask);
    while (vals[b] !== EMPTY && !(this.lo[b] === lo && this.hi[b] === hi)) b = (b + 1) & mask;
    if (vals[b] === EMPTY) return;
    this.size--;
    // Backward shift: move later entries of the probe run into the hole unless their home bucket
    // lies (cyclically) after the hole, so that no lookup meets a gap inside its run.
    let hole = b;
    for (let j = (b + 1) & mask; vals[j] !== EMPTY; j = (j + 1) & mask) {
      const home = bucketOf(this.hi[j], this.lo[j], mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        this.hi[hole] = this.hi[j];
        this.lo[hole] = this.lo[j];
        vals[hole] = vals[j];
        hole = j;
      }
    }
    vals[hole] = EMPTY;
  }

  private grow(): void {
    const { hi, lo, vals } = this;
    const n = vals.length * 2;
    this.hi = new Int32Array(n);
    this.lo = new Int32Array(n);
    this.vals = new Int32Array(n).fill(EMPTY);
    this.mask = n - 1;
    this.size = 0;
    for (let b = 0; b < vals.length; b++) if (vals[b] !== EMPTY) this.set(hi[b], lo[b], vals[b]);
  }
}

/** Mixes both halves (murmur3's finaliser constants). */
function bucketOf(hi: number, lo: number, mask: number): number {
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 13;
  return h & mask;
}
