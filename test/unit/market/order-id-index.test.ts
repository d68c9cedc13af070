// The MBO book's order id -> slot table (src/market/replay/order-id-index.ts): the same answers
// as a Map under random adds and deletes, with CME-sized ids, ids beyond 2^53 (exact: keyed by
// both 32-bit halves) and ids chosen to collide, and no garbage once grown.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OrderIdIndex } from '../../../src/market/replay/order-id-index.ts';
import { measureAllocation } from '../../helpers/allocation.ts';

const halves = (id: bigint): [number, number] => [Number(BigInt.asIntN(32, id >> 32n)), Number(BigInt.asIntN(32, id))];

/** Deterministic ids: xorshift32 offsets from a base. */
function idStream(seed: number, base: bigint, spread: number): () => bigint {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return base + BigInt((x >>> 0) % spread);
  };
}

function checkAgainstMap(nextId: () => bigint, ops: number): void {
  const idx = new OrderIdIndex(4);
  const ref = new Map<bigint, number>();
  let slot = 0;
  for (let i = 0; i < ops; i++) {
    const id = nextId();
    const [hi, lo] = halves(id);
    if (i % 5 < 3) {
      idx.set(hi, lo, slot);
      ref.set(id, slot++);
    } else {
      idx.delete(hi, lo);
      ref.delete(id);
    }
    if (i % 97 === 0) {
      for (const [k, v] of ref) assert.is(idx.get(...halves(k)), v, `id ${k}`);
      assert.is(idx.size, ref.size);
    }
    assert.is(idx.get(hi, lo), ref.get(id) ?? -1);
  }
  for (const k of ref.keys()) idx.delete(...halves(k));
  assert.is(idx.size, 0);
}

test('same answers as a Map: CME-sized ids, ids beyond 2^53 and near 2^64, small ids', () => {
  checkAgainstMap(idStream(7, 6_400_000_000_000n, 5000), 60_000);
  checkAgainstMap(idStream(11, 2n ** 53n - 2000n, 4000), 60_000); // crosses 2^53: 2^53 and 2^53+1 differ
  checkAgainstMap(idStream(5, 2n ** 64n - 5000n, 4000), 60_000);
  checkAgainstMap(idStream(13, 1n, 2000), 60_000);
});

test('ids that differ only in their high 32 bits, or by multiples of the table size, stay apart', () => {
  const idx = new OrderIdIndex(8);
  const ids: bigint[] = [];
  for (let k = 0n; k < 200n; k++) ids.push((k << 32n) + 5n, 7n + k * 1024n);
  ids.forEach((id, i) => idx.set(...halves(id), i));
  ids.forEach((id, i) => assert.is(idx.get(...halves(id)), i));
  // delete every other one: backward shift must keep the rest reachable
  ids.forEach((id, i) => i % 2 === 0 && idx.delete(...halves(id)));
  ids.forEach((id, i) => assert.is(idx.get(...halves(id)), i % 2 === 0 ? -1 : i));
  assert.is(idx.get(0, 12345), -1);
});

test('no allocation in steady state: 1M set/get/delete of CME-sized ids', async () => {
  const idx = new OrderIdIndex(1 << 14);
  const next = idStream(3, 6_400_000_000_000n, 1 << 20);
  const hi = new Int32Array(1 << 16);
  const lo = new Int32Array(1 << 16);
  for (let i = 0; i < hi.length; i++) [hi[i], lo[i]] = halves(next());
  const live = new Int32Array(4096).fill(-1);
  const loop = (n: number): number => {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const k = i & 0xffff;
      const old = live[i & 4095];
      if (old >= 0) idx.delete(hi[old], lo[old]);
      idx.set(hi[k], lo[k], i & 4095);
      live[i & 4095] = k;
      sum += idx.get(hi[k], lo[k]);
    }
    return sum;
  };
  loop(200_000); // warm-up: optimised code, table grown
  const a = await measureAllocation(() => void loop(1_000_000), { attempts: 3 });
  assert.is(a.gcs, 0, `GCs during the loop: ${JSON.stringify(a)}`);
});

test.run();
