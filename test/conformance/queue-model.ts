// The queue-position port's conformance suite (src/exchange/queue-model.ts): what every queue
// model must hold, whatever it assumes about cancels. test/unit/exchange/queue-model-conformance
// runs it for every model the factory knows (QUEUE_MODELS), so a new model cannot skip it.
//
// The suite drives a model with a consistent order-level scenario: a FIFO queue of other orders
// at our price, with adds at the back, cancels of any order and trades at the head, as an MBO
// feed shows them. L2 models see the sizes before and after; l3_fifo also reads each event's
// order priority from the tape, exactly as the MBO source writes it. Seeded, so a failure
// replays.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ASK,
  BID,
  ER_CANCELED,
  ER_FILL,
  ER_ID,
  ER_LEAVES,
  ER_MODIFIED,
  ER_QTY,
  ER_STRIDE,
  ER_TYPE,
  EV_KIND,
  EV_PRICE,
  EV_QTY,
  EV_SIDE,
  EV_STRIDE,
  EV_TS,
  MD_ADD,
  MD_CANCEL,
  MD_TRADE,
  OM_ID,
  OM_MODIFY,
  OM_NEW,
  OM_PRICE,
  OM_QTY,
  OM_SENT,
  OM_SIDE,
  OM_STRIDE,
  OM_TS,
  OM_TYPE,
} from '../../src/core/events.ts';
import { RecordRing } from '../../src/core/ring.ts';
import { Rng } from '../../src/core/rng.ts';
import { FeeSchedule } from '../../src/exchange/fees.ts';
import { L3Tape } from '../../src/exchange/l3-fifo-queue.ts';
import { SeededLatency } from '../../src/exchange/latency.ts';
import type { QueueModel } from '../../src/exchange/queue-model.ts';
import { SimExchange } from '../../src/exchange/sim-exchange.ts';

/** Makes a fresh model; `tape` is the order priorities of the scenario (L2 models ignore it). */
export type QueueModelFactory = (tape: L3Tape) => QueueModel;

/** One resting order of someone else at our price: its queue priority and size. */
interface Resting {
  prio: number;
  qty: number;
}

/** What a hook did, for the determinism check: the hook, its arguments and the front after it. */
type Step = [string, number, number, number];

const SLOTS = 8;
const TAPE = 1 << 12;

/**
 * A level's order-level history with our order in slot `slot`: `join` market events in, our order
 * starts resting; then `events` adds, cancels and trades. Each hook is checked as it runs.
 */
class Scenario {
  readonly fronts = new Float64Array(SLOTS);
  readonly queue: Resting[] = [];
  readonly steps: Step[] = [];
  private seq = 0;
  /** Contracts filled, and contracts traded at the level since our order joined. */
  filledTotal = 0;
  traded = 0;

  constructor(
    readonly model: QueueModel,
    readonly tape: L3Tape,
    readonly rng: Rng,
    readonly slot: number,
  ) {
    // Other slots hold sentinels: a hook on our slot must leave them alone.
    for (let s = 0; s < SLOTS; s++) this.fronts[s] = 1000 + s;
  }

  get level(): number {
    let q = 0;
    for (const o of this.queue) q += o.qty;
    return q;
  }

  /** The market record `seq` touches the order of priority `prio` (the MBO source's tape write). */
  private record(prio: number): void {
    this.tape.set(this.seq, prio);
    this.tape.cur = this.seq;
    this.seq++;
  }

  add(qty: number): void {
    const before = this.level;
    this.record(this.seq);
    this.queue.push({ prio: this.tape.cur, qty });
    this.depth(before, this.level);
  }

  join(): void {
    this.model.onNewOrder(this.fronts, this.slot, this.level);
    this.steps.push(['new', this.level, 0, this.fronts[this.slot]]);
  }

  cancel(): void {
    if (this.queue.length === 0) return;
    const i = Math.floor(this.rng.next() * this.queue.length);
    const o = this.queue[i];
    const before = this.level;
    const qty = 1 + Math.floor(this.rng.next() * o.qty);
    this.record(o.prio);
    o.qty -= qty;
    if (o.qty === 0) this.queue.splice(i, 1);
    this.depth(before, this.level);
  }

  private depth(before: number, after: number): void {
    const was = this.fronts[this.slot];
    this.model.onDepthChange(this.fronts, this.slot, before, after);
    const f = this.fronts[this.slot];
    this.steps.push(['depth', before, after, f]);
    assert.ok(f >= 0 && f <= after, `after a depth change ${before} -> ${after} the front is ${f}: expected within [0, ${after}]`);
    if (after >= before && was <= after) assert.is(f, was, `size added (${before} -> ${after}) joins behind: the front moved from ${was} to ${f}`);
    this.noFill(`a depth change ${before} -> ${after}`);
  }

  /** A trade at the head of the queue: the head order's contracts, up to all of it. */
  trade(): void {
    if (this.queue.length === 0) return;
    const o = this.queue[0];
    const qty = 1 + Math.floor(this.rng.next() * o.qty);
    this.record(o.prio);
    o.qty -= qty;
    if (o.qty === 0) this.queue.shift();
    this.model.onTrade(this.fronts, this.slot, qty);
    const n = this.model.filled(this.fronts, this.slot);
    const f = this.fronts[this.slot];
    this.steps.push(['trade', qty, n, f]);
    this.traded += qty;
    this.filledTotal += n;
    assert.ok(Number.isInteger(n) && n >= 0, `filled() after a trade of ${qty}: ${n}, expected a whole number >= 0`);
    assert.ok(n <= qty, `filled() ${n} contracts of a trade of ${qty}`);
    assert.ok(f >= 0 && Number.isFinite(f), `the front after the fill check is ${f}: expected >= 0`);
    this.noFill('a second fill check of the same trade');
  }

  private noFill(what: string): void {
    const n = this.model.filled(this.fronts, this.slot);
    assert.is(n, 0, `${what} filled ${n} contracts: only a trade fills`);
    for (let s = 0; s < SLOTS; s++) if (s !== this.slot) assert.is(this.fronts[s], 1000 + s, `slot ${s} was changed by a hook on slot ${this.slot}`);
  }

  /** `n` random market events at the level, adds, cancels and trades in the given shares. */
  run(n: number, shares: { add: number; cancel: number }): void {
    for (let k = 0; k < n; k++) {
      const u = this.rng.next();
      if (u < shares.add || this.queue.length === 0) this.add(1 + Math.floor(this.rng.next() * 20));
      else if (u < shares.add + shares.cancel) this.cancel();
      else this.trade();
    }
  }
}

function scenario(make: QueueModelFactory, seed: number, mix: { add: number; cancel: number }, slot = 3): Scenario {
  const rng = new Rng(seed);
  const tape = new L3Tape(TAPE);
  const s = new Scenario(make(tape), tape, rng, slot);
  const depth = 3 + Math.floor(rng.next() * 10);
  for (let k = 0; k < depth; k++) s.add(1 + Math.floor(rng.next() * 20));
  s.join();
  s.traded = 0;
  s.run(400, mix);
  return s;
}

/**
 * The same kind of scenario through the simulated exchange, with orders of ours resting at the
 * level (the exchange caps what the model says reached an order at its leaves, and shares one
 * trade among our orders in arrival order), and our orders modified now and then (smaller at
 * the same price: priority kept; larger, or away and back: priority lost), as a strategy's
 * replace() sends them. Returns what the reports said.
 */
function throughExchange(make: QueueModelFactory, seed: number): { fills: number; trades: number; checked: number; modifies: number } {
  const P = 20_000;
  const rng = new Rng(seed);
  const tape = new L3Tape(TAPE);
  const reports = RecordRing.allocate(ER_STRIDE, 4096, false);
  const ex = new SimExchange({
    fees: new FeeSchedule({ makerFee: 0.25, takerFee: 0.85, exchangeFee: 1.18 }),
    latency: new SeededLatency({ orderLatencyNs: 0, marketDataLatencyNs: 0, responseLatencyNs: 1000, jitterNs: 0 }, new Rng(1)),
    queue: make(tape),
    reports,
  });
  const ev = new Float64Array(EV_STRIDE);
  const om = new Float64Array(OM_STRIDE);
  const queue: Resting[] = [];
  let seq = 0,
    ts = 1_000_000,
    fills = 0,
    trades = 0,
    checked = 0;
  const ordered = new Map<number, number>(); // id -> total quantity (filled + working), as last confirmed
  const filled = new Map<number, number>(); // id -> contracts filled so far
  const live = new Set<number>();
  let modifies = 0;
  const md = (kind: number, side: number, price: number, qty: number, prio: number): number => {
    tape.set(seq, prio);
    tape.cur = seq++;
    ev[EV_TS] = ts += 1000;
    ev[EV_KIND] = kind;
    ev[EV_SIDE] = side;
    ev[EV_PRICE] = price;
    ev[EV_QTY] = qty;
    ex.onMarketEvent(ev, 0);
    let n = 0;
    const d = reports.data;
    while (reports.available() > 0) {
      const o = reports.peek();
      if (d[o + ER_TYPE] === ER_FILL) {
        const id = d[o + ER_ID],
          q = d[o + ER_QTY];
        n += q;
        filled.set(id, (filled.get(id) ?? 0) + q);
        assert.ok(Number.isInteger(q) && q > 0, `a fill of ${q} contracts`);
        assert.ok(filled.get(id)! <= ordered.get(id)!, `order ${id} of ${ordered.get(id)} filled ${filled.get(id)}`);
        assert.is(d[o + ER_LEAVES], ordered.get(id)! - filled.get(id)!, `order ${id}: leaves after the fill`);
        if (d[o + ER_LEAVES] === 0) live.delete(d[o + ER_ID]);
        checked++;
      } else if (d[o + ER_TYPE] === ER_MODIFIED) {
        const id = d[o + ER_ID];
        ordered.set(id, (filled.get(id) ?? 0) + d[o + ER_LEAVES]);
        modifies++;
      } else if (d[o + ER_TYPE] === ER_CANCELED) live.delete(d[o + ER_ID]);
      reports.advance();
    }
    reports.release();
    return n;
  };
  const add = (qty: number) => {
    queue.push({ prio: seq, qty });
    md(MD_ADD, BID, P, qty, seq);
  };
  md(MD_ADD, ASK, P + 5, 100, seq); // a far ask: the book is two-sided and nothing of ours crosses
  for (let k = 0, n = 3 + rng.int(8); k < n; k++) add(1 + rng.int(20));
  for (let id = 1; id <= 3; id++) {
    const qty = 1 + rng.int(6);
    ordered.set(id, qty);
    om[OM_TS] = ts += 1000;
    om[OM_SENT] = ts - 500;
    om[OM_TYPE] = OM_NEW;
    om[OM_ID] = id;
    om[OM_SIDE] = BID;
    om[OM_PRICE] = P;
    om[OM_QTY] = qty;
    ex.onOrderMessage(om, 0);
    live.add(id);
    for (let k = 0, n = rng.int(4); k < n; k++) add(1 + rng.int(20));
  }
  // A modify of our order `id` to `price` and a new total quantity (filled + working).
  const modify = (id: number, price: number, total: number) => {
    om[OM_TS] = ts += 1000;
    om[OM_SENT] = ts - 500;
    om[OM_TYPE] = OM_MODIFY;
    om[OM_ID] = id;
    om[OM_SIDE] = BID;
    om[OM_PRICE] = price;
    om[OM_QTY] = total;
    ex.onOrderMessage(om, 0);
  };
  for (let k = 0; k < 300; k++) {
    const u = rng.next();
    if (u < 0.05 && live.size > 0) {
      const id = [...live][rng.int(live.size)];
      const done = filled.get(id) ?? 0;
      const working = ordered.get(id)! - done;
      const kind = rng.int(3);
      if (kind === 0) modify(id, P, done + Math.max(1, working - 1 - rng.int(working)));
      else if (kind === 1) modify(id, P, done + working + 1 + rng.int(3));
      else {
        modify(id, P - 1, done + working);
        modify(id, P, done + working);
      }
      md(MD_ADD, ASK, P + 5, 1, seq); // delivers the modify's reports
    } else if (u < 0.4 || queue.length === 0) add(1 + rng.int(20));
    else if (u < 0.7) {
      const i = rng.int(queue.length),
        o = queue[i];
      const qty = 1 + rng.int(o.qty);
      o.qty -= qty;
      if (o.qty === 0) queue.splice(i, 1);
      assert.is(md(MD_CANCEL, BID, P, qty, o.prio), 0, 'a cancel filled an order of ours');
    } else {
      const o = queue[0];
      const qty = 1 + rng.int(o.qty);
      o.qty -= qty;
      if (o.qty === 0) queue.shift();
      const n = md(MD_TRADE, BID, P, qty, o.prio);
      assert.ok(n <= qty, `a trade of ${qty} filled ${n} contracts of ours`);
      fills += n;
      trades++;
    }
  }
  return { fills, trades, checked, modifies };
}

const MIXES = {
  'adds, cancels and trades': { add: 0.4, cancel: 0.3 },
  'mostly cancels': { add: 0.2, cancel: 0.7 },
  'mostly trades': { add: 0.3, cancel: 0.1 },
};

/** Runs the port's contract against one queue model. */
export function describeQueueModel(name: string, make: QueueModelFactory): void {
  test(`queue model ${name}: an order joins behind everything displayed at its price`, () => {
    const tape = new L3Tape(TAPE);
    const fronts = new Float64Array(SLOTS);
    for (const qty of [0, 1, 7, 250]) {
      make(tape).onNewOrder(fronts, 2, qty);
      assert.is(fronts[2], qty);
    }
  });

  test(`queue model ${name}: the name is the one the factory knows it by`, () => {
    assert.is(make(new L3Tape(TAPE)).name, name);
  });

  for (const [label, mix] of Object.entries(MIXES)) {
    test(`queue model ${name}, ${label}: fills within each trade, fronts within [0, level], adds behind, no fill without a trade`, () => {
      let fills = 0;
      for (let seed = 1; seed <= 20; seed++) {
        const s = scenario(make, seed, mix, seed % SLOTS);
        assert.ok(s.filledTotal <= s.traded, `seed ${seed}: ${s.filledTotal} filled of ${s.traded} traded`);
        fills += s.filledTotal;
      }
      // The scenarios reach our order: the fill path is exercised, not only the waiting.
      assert.ok(fills > 0, `no fill in 20 scenarios of ${label}`);
    });
  }

  test(`queue model ${name}, through the exchange with our modifies: a trade fills at most its size, an order at most its quantity, only trades fill`, () => {
    let checked = 0,
      modifies = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const r = throughExchange(make, seed);
      checked += r.checked;
      modifies += r.modifies;
    }
    assert.ok(checked > 0, 'no fill of ours in 20 sessions: the fill path was not exercised');
    assert.ok(modifies > 0, 'no modify of ours confirmed in 20 sessions: the modify path was not exercised');
  });

  test(`queue model ${name}: a trade smaller than a known queue ahead fills nothing`, () => {
    const fronts = new Float64Array(SLOTS);
    const tape = new L3Tape(TAPE);
    tape.set(0, 0);
    tape.cur = 0;
    const m = make(tape);
    m.onNewOrder(fronts, 1, 10);
    // The next record trades 4 of the order of priority 0, which rested before ours joined.
    tape.set(1, 0);
    tape.cur = 1;
    m.onTrade(fronts, 1, 4);
    assert.is(m.filled(fronts, 1), 0);
    assert.is(fronts[1], 6);
  });

  test(`queue model ${name}: the same events give the same fronts and fills (fresh instances, twice)`, () => {
    for (let seed = 1; seed <= 5; seed++) {
      const a = scenario(make, seed, MIXES['adds, cancels and trades']);
      const b = scenario(make, seed, MIXES['adds, cancels and trades']);
      assert.equal(a.steps, b.steps, `seed ${seed}`);
    }
  });
}
