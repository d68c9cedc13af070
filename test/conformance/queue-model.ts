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
import { Rng } from '../../src/core/rng.ts';
import { L3Tape } from '../../src/exchange/l3-fifo-queue.ts';
import type { QueueModel } from '../../src/exchange/queue-model.ts';

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
