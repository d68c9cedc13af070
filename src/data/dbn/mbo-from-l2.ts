// Turns the generator's L2 stream (one change of one price level per event) into MBO records,
// so an exported file carries every order of the whole depth. The rule, per price level a queue
// of orders in arrival order:
//   MD_ADD q     -> one new order of size q at the back of the queue: A.
//   MD_CANCEL q  -> q contracts leave from the newest orders first (LIFO): one C per order
//                   touched, size = contracts removed (a C smaller than the order is a partial
//                   cancel, as Databento's C means).
//   MD_TRADE q   -> the oldest orders fill first (FIFO), as CME's FIFO matching does. Like
//                   Databento's CME MBO: one T (order_id 0, side = the aggressor's, size q), one F
//                   per resting order filled (its id, side, size filled), then one C per such
//                   order removing the filled size from the book (T and F do not change the book).
// The last record of each L2 event carries F_LAST. Order ids count up from 1 per file.
import { FLAGS } from './constants.ts';

const BID = 0;
const CHAR_A = 0x41; // 'A': add; ask side
const CHAR_B = 0x42; // 'B': bid side
const CHAR_C = 0x43;
const CHAR_F = 0x46;
const CHAR_T = 0x54;

/** L2 kinds, as src/core/events.ts numbers them (MD_ADD, MD_CANCEL, MD_TRADE). */
const MD_ADD = 1;
const MD_CANCEL = 2;
const MD_TRADE = 3;

interface Order {
  id: number;
  size: number;
}

/** Receives each MBO record: action and side as char codes, price in ticks, flags (F_LAST). */
export type MboSink = (action: number, side: number, orderId: number, priceTicks: number, size: number, flags: number) => void;

export class MboFromL2 {
  private readonly queues = new Map<number, Order[]>();
  private nextId = 1;
  private readonly fills: number[] = [];

  constructor(private readonly sink: MboSink) {}

  /** Forgets every order (a new session starts from an empty book). Ids keep counting. */
  clear(): void {
    this.queues.clear();
  }

  /** Orders resting at a level. */
  orderCount(side: number, price: number): number {
    return this.queues.get(key(side, price))?.length ?? 0;
  }

  /** Orders resting at a level, oldest first (tests). */
  orders(side: number, price: number): readonly Readonly<Order>[] {
    return this.queues.get(key(side, price)) ?? [];
  }

  apply(kind: number, side: number, price: number, qty: number): void {
    const sideChar = side === BID ? CHAR_B : CHAR_A;
    const k = key(side, price);
    let q = this.queues.get(k);
    if (kind === MD_ADD) {
      if (!q) this.queues.set(k, (q = []));
      const id = this.nextId++;
      q.push({ id, size: qty });
      this.sink(CHAR_A, sideChar, id, price, qty, FLAGS.F_LAST);
      return;
    }
    const resting = q ? q.reduce((s, o) => s + o.size, 0) : 0;
    if (!q || resting < qty) throw new Error(`MboFromL2: ${kind === MD_TRADE ? 'trade' : 'cancel'} of ${qty} at ${side === BID ? 'bid' : 'ask'} ${price}, but ${resting} rest there`);
    if (kind === MD_CANCEL) {
      for (let left = qty; left > 0; ) {
        const o = q[q.length - 1];
        const n = Math.min(o.size, left);
        left -= n;
        o.size -= n;
        if (o.size === 0) q.pop();
        this.sink(CHAR_C, sideChar, o.id, price, n, left === 0 ? FLAGS.F_LAST : 0);
      }
    } else if (kind === MD_TRADE) {
      const fills = this.fills;
      fills.length = 0;
      for (let i = 0, left = qty; left > 0; i++) {
        const n = Math.min(q[i].size, left);
        fills.push(i, n);
        left -= n;
      }
      this.sink(CHAR_T, side === BID ? CHAR_A : CHAR_B, 0, price, qty, 0);
      for (let j = 0; j < fills.length; j += 2) this.sink(CHAR_F, sideChar, q[fills[j]].id, price, fills[j + 1], 0);
      for (let j = 0; j < fills.length; j += 2) {
        const o = q[fills[j]];
        o.size -= fills[j + 1];
        this.sink(CHAR_C, sideChar, o.id, price, fills[j + 1], j + 2 === fills.length ? FLAGS.F_LAST : 0);
      }
      let done = 0;
      while (done < q.length && q[done].size === 0) done++;
      if (done) q.splice(0, done);
    } else {
      throw new Error(`MboFromL2: unknown L2 event kind ${kind}`);
    }
    if (q.length === 0) this.queues.delete(k);
  }
}

function key(side: number, price: number): number {
  return price * 2 + side;
}
