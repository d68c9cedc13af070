// The engine's own orders in preallocated typed arrays. Order ids are sequential; an id maps
// to slot `id & mask`, and ids whose slot is still busy are skipped, so lookup is one index.
// `qty` is an order's total quantity (filled + working), `leaves` the contracts counted open for
// it (OrderManager.openBuyQty and openSellQty).

export const ORD_FREE = 0;
export const ORD_PENDING_NEW = 1; // sent, not yet acknowledged
export const ORD_LIVE = 2; // acknowledged, resting
export const ORD_PENDING_CANCEL = 3; // cancel sent, not yet confirmed

export class OrderTable {
  readonly capacity: number;
  private readonly mask: number;
  readonly id: Float64Array;
  readonly side: Int8Array;
  readonly price: Float64Array;
  readonly qty: Float64Array;
  readonly leaves: Float64Array;
  readonly state: Int8Array;
  readonly sentTs: Float64Array;
  /** Contracts filled so far (a modify's new total counts them: in-flight mitigation). */
  readonly cum: Float64Array;
  /**
   * Modifies sent and not yet answered. While there are some, `price` and `qty` are the last
   * modify's terms, `leaves` the most that may still fill under any terms in flight (the larger
   * of confLeaves and askLeaves), confPrice and confLeaves what the exchange last confirmed, and
   * askLeaves the largest working quantity a modify in flight asked for.
   */
  readonly mods: Int32Array;
  readonly confPrice: Float64Array;
  readonly confLeaves: Float64Array;
  readonly askLeaves: Float64Array;
  private nextId: number;
  live = 0;

  constructor(capacity = 64, firstId = 1) {
    this.nextId = firstId;
    this.capacity = capacity;
    this.mask = capacity - 1;
    this.id = new Float64Array(capacity).fill(-1);
    this.side = new Int8Array(capacity);
    this.price = new Float64Array(capacity);
    this.qty = new Float64Array(capacity);
    this.leaves = new Float64Array(capacity);
    this.state = new Int8Array(capacity);
    this.sentTs = new Float64Array(capacity);
    this.cum = new Float64Array(capacity);
    this.mods = new Int32Array(capacity);
    this.confPrice = new Float64Array(capacity);
    this.confLeaves = new Float64Array(capacity);
    this.askLeaves = new Float64Array(capacity);
  }

  /** Reserves a slot for a new order; returns the slot or -1 when the table is full. */
  allocate(side: number, price: number, qty: number, sentTs: number): number {
    if (this.live >= this.capacity) return -1;
    let id = this.nextId;
    while (this.state[id & this.mask] !== ORD_FREE) id++;
    this.nextId = id + 1;
    const s = id & this.mask;
    this.id[s] = id;
    this.side[s] = side;
    this.price[s] = price;
    this.qty[s] = qty;
    this.leaves[s] = qty;
    this.cum[s] = 0;
    this.mods[s] = 0;
    this.state[s] = ORD_PENDING_NEW;
    this.sentTs[s] = sentTs;
    this.live++;
    return s;
  }

  /** Slot of a live order id, or -1. */
  find(id: number): number {
    const s = id & this.mask;
    return this.id[s] === id && this.state[s] !== ORD_FREE ? s : -1;
  }

  release(slot: number): void {
    if (this.state[slot] === ORD_FREE) return;
    this.state[slot] = ORD_FREE;
    this.live--;
  }
}
