// Bulk copies into a record ring (RecordRing.append), as the replay's decoder thread and the
// session's copy from a source thread use them: across the ring's wrap, and from the MBO
// source's event queue with each event's queue priority on the l3 tape.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EV_KIND, EV_PRICE, EV_QTY, EV_RECV, EV_SIDE, EV_STRIDE, EV_TS } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { L3Tape } from '../../../src/exchange/l3-fifo-queue.ts';
import { EventQueue } from '../../../src/market/replay/event-queue.ts';

/** The records of a ring from sequence `from` to its head, as arrays. */
function records(r: RecordRing, from: number): number[][] {
  const out: number[][] = [];
  for (let s = from; s !== r.writeSeq; s = (s + 1) | 0) {
    const o = (s & r.mask) * r.stride;
    out.push(Array.from(r.data.subarray(o, o + r.stride)));
  }
  return out;
}

test('append: records across the wrap land at their sequences, in order, and nothing else moves', () => {
  const stride = 3;
  const r = RecordRing.allocate(stride, 8, false);
  // Six records written and consumed one by one: the head at 6, two slots before the wrap.
  for (let i = 0; i < 6; i++) r.data.set([-1, -1, -1], r.claimUnchecked());
  r.publish();
  r.advance(6);
  r.release();
  const src = Float64Array.from({ length: 7 * stride }, (_, i) => 100 + i);
  r.append(src, 2 * stride, 5); // records 2..6 of src
  assert.is(r.writeSeq, 11);
  assert.is(r.free(), 3);
  r.publish();
  assert.is(r.available(), 5);
  assert.equal(records(r, 6), [
    [106, 107, 108],
    [109, 110, 111],
    [112, 113, 114],
    [115, 116, 117],
    [118, 119, 120],
  ]);
  // Slots 3 and 4 (sequences 3, 4: already consumed, not overwritten) keep what they held.
  assert.equal(Array.from(r.data.subarray(3 * stride, 5 * stride)), [-1, -1, -1, -1, -1, -1]);
});

test("copyTo: records across both rings' wraps arrive in order and are not consumed", () => {
  const src = RecordRing.allocate(2, 8, false);
  const out = RecordRing.allocate(2, 4, false);
  for (let i = 0; i < 6; i++) src.claimUnchecked(); // the source's tail at 6, two slots before its wrap
  src.publish();
  src.advance(6);
  src.release();
  for (let i = 0; i < 5; i++) src.data.set([i, 10 + i], src.claimUnchecked());
  src.publish();
  out.publishThrough(3); // the copy's head at 3, one slot before its wrap
  out.advance(3);
  out.release();
  src.copyTo(out, 4);
  assert.is(src.readSeq, 6);
  assert.is(src.available(), 5);
  assert.is(out.writeSeq, 7);
  assert.equal(records(out, 3), [
    [0, 10],
    [1, 11],
    [2, 12],
    [3, 13],
  ]);
});

test('EventQueue.drainTo: batches through a small ring keep every event and its priority on the tape', () => {
  const q = new EventQueue();
  const ring = RecordRing.allocate(EV_STRIDE, 16, false);
  const tape = new L3Tape(16);
  const base = 50; // the ring sequence of the queue's first event
  ring.publishThrough(base);
  ring.advance(base);
  ring.release();
  const want: number[][] = [];
  const prios: number[] = [];
  const got: number[][] = [];
  const gotPrio: number[] = [];
  const drain = (max: number) => {
    const k = q.drainTo(ring, Math.min(max, ring.free()), tape, base);
    for (let j = 0; j < k; j++) {
      got.push(Array.from(ring.data.subarray(ring.peek(), ring.peek() + EV_STRIDE)));
      gotPrio.push(tape.prio[ring.readSeq & tape.mask] - base);
      ring.advance();
    }
    ring.release();
  };
  let i = 0;
  const push = () => {
    const prio = i % 7 === 0 ? -1 : i - 5;
    q.ts = 1000 + i;
    q.push(i % 3, i % 2, 4000 + (i % 17), 1 + (i % 5), prio);
    const e = new Array(EV_STRIDE).fill(0);
    e[EV_TS] = 1000 + i;
    e[EV_RECV] = 1000 + i;
    e[EV_KIND] = i % 3;
    e[EV_SIDE] = i % 2;
    e[EV_PRICE] = 4000 + (i % 17);
    e[EV_QTY] = 1 + (i % 5);
    want.push(e);
    prios.push(prio);
    i++;
  };
  // 400 waiting events, then one in and one out: the queue's end reaches its 1024 entries with
  // 400 live, and they are moved to the front. Then a burst of 3000: it grows twice.
  for (let k = 0; k < 400; k++) push();
  for (let k = 0; k < 1000; k++) {
    push();
    drain(1);
  }
  for (let k = 0; k < 3000; k++) push();
  for (let batch = 1; q.length > 0; batch = (batch % 13) + 1) drain(batch);
  assert.is(got.length, want.length);
  assert.equal(got, want);
  assert.equal(gotPrio, prios);
});

test.run();
