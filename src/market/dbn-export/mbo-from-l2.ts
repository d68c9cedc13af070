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
// The generator's modifies (tagged by MarketGenerator.generate, src/market/modify-tags.ts) become
// one M record each (order id, new price, new size), with CME's priority rules:
//   MOD_DOWN q   (an MD_CANCEL) -> the newest order larger than q shrinks by q and keeps its place.
//   MOD_UP q     (an MD_ADD)    -> the newest order grows by q (it is the last: "back of the queue").
//   MOD_MOVE_FROM q (MD_CANCEL) then MOD_MOVE_TO q (MD_ADD, the next event, same timestamp) ->
//                   the newest order of exactly size q leaves the old price and joins the back of
//                   the new one: no record for the first half, the M for the second.
// When no order fits (no order larger than q, none of size q), the event is written as an
// untagged one (C records, or an A): the book stays the L2 stream's either way.
// The last record of each L2 event carries F_LAST. Order ids count up from 1 per file.
import { MOD_DOWN, MOD_MOVE_FROM, MOD_MOVE_TO, MOD_UP } from '../modify-tags.ts';
import { FLAGS } from '../../data/dbn/constants.ts';

const BID = 0;
const CHAR_A = 0x41; // 'A': add; ask side
const CHAR_B = 0x42; // 'B': bid side
const CHAR_C = 0x43;
const CHAR_F = 0x46;
const CHAR_M = 0x4d;
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
  /** The order between the two halves of a price modify (MOD_MOVE_FROM, then MOD_MOVE_TO). */
  private moving: Order | null = null;
  /** Tagged modifies written as C/A records because no resting order fitted them. */
  modifyFallbacks = 0;

  constructor(private readonly sink: MboSink) {}

  /** Forgets every order (a new session starts from an empty book). Ids keep counting. */
  clear(): void {
    this.queues.clear();
    this.moving = null; // a session cut between a move's two halves (an export's event limit)
  }

  /** Orders resting at a level. */
  orderCount(side: number, price: number): number {
    return this.queues.get(key(side, price))?.length ?? 0;
  }

  /** Orders resting at a level, oldest first (tests). */
  orders(side: number, price: number): readonly Readonly<Order>[] {
    return this.queues.get(key(side, price)) ?? [];
  }

  /** One L2 event; `tag` (modify-tags.ts) when the generator marked it as a modify. */
  apply(kind: number, side: number, price: number, qty: number, tag = 0): void {
    const sideChar = side === BID ? CHAR_B : CHAR_A;
    const k = key(side, price);
    let q = this.queues.get(k);
    if (tag !== 0 && this.modify(kind, sideChar, price, qty, tag, k, q)) return;
    if (kind === MD_ADD) {
      if (!q) this.queues.set(k, (q = []));
      const id = this.nextId++;
      q.push({ id, size: qty });
      this.sink(CHAR_A, sideChar, id, price, qty, FLAGS.F_LAST);
      return;
    }
    const resting = q ? q.reduce((s, o) => s + o.size, 0) : 0;
    if (!q || resting < qty)
      throw new Error(`MboFromL2: ${kind === MD_TRADE ? 'trade' : 'cancel'} of ${qty} at ${side === BID ? 'bid' : 'ask'} ${price}, but ${resting} rest there`);
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

  /** A tagged modify as one M record (or none, for a move's first half); false: write it untagged. */
  private modify(kind: number, sideChar: number, price: number, qty: number, tag: number, k: number, q: Order[] | undefined): boolean {
    if (tag === MOD_MOVE_TO && kind === MD_ADD) {
      const o = this.moving;
      if (o === null) return false; // its first half found no order of that size: an A
      this.moving = null;
      o.size = qty;
      if (!q) this.queues.set(k, (q = []));
      q.push(o);
      this.sink(CHAR_M, sideChar, o.id, price, o.size, FLAGS.F_LAST);
      return true;
    }
    this.moving = null; // only the record right after a move's first half may complete it
    if (!q) return this.fallback();
    if (tag === MOD_UP && kind === MD_ADD) {
      const o = q[q.length - 1];
      o.size += qty;
      this.sink(CHAR_M, sideChar, o.id, price, o.size, FLAGS.F_LAST);
      return true;
    }
    if (kind !== MD_CANCEL || (tag !== MOD_DOWN && tag !== MOD_MOVE_FROM)) throw new Error(`MboFromL2: modify tag ${tag} on L2 event kind ${kind}`);
    const down = tag === MOD_DOWN;
    for (let i = q.length - 1; i >= 0; i--) {
      const o = q[i];
      if (down ? o.size > qty : o.size === qty) {
        if (down) {
          o.size -= qty;
          this.sink(CHAR_M, sideChar, o.id, price, o.size, FLAGS.F_LAST);
        } else {
          q.splice(i, 1);
          if (q.length === 0) this.queues.delete(k);
          this.moving = o;
        }
        return true;
      }
    }
    return this.fallback();
  }

  private fallback(): false {
    this.modifyFallbacks++;
    return false;
  }
}

function key(side: number, price: number): number {
  return price * 2 + side;
}
