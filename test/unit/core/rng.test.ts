import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Rng } from '../../../src/core/rng.ts';

// The generator's sequence is part of every result (market flow, latency jitter): pinned.
test('sfc32 sequence for a seed is pinned (the values of the field-based generator before the Int32Array state)', () => {
  const r = new Rng(42);
  assert.equal(
    Array.from({ length: 5 }, () => r.nextU32()),
    [4136168353, 1126838629, 1262802217, 3628890397, 3939582690],
  );
  assert.not.equal(new Rng(43).nextU32(), 4136168353);
});

test('fillInt gives the draws of as many int(n) calls, offset, and leaves the generator where they would', () => {
  const cases = [
    [1, 20001, -10000],
    [7, 1, 0],
    [0xdeadbeef, 4294967296, 0],
    [99, 3, 5],
    [5, 2147483649, 0],
    [11, 120000000001, -60000000000],
  ];
  for (const [seed, n, add] of cases) {
    const a = new Rng(seed);
    const b = new Rng(seed);
    const block = new Int32Array(1000);
    a.fillInt(block, n, add);
    const want = Array.from({ length: 1000 }, () => b.int(n) + add);
    // Beyond int32 the block holds the draws wrapped, as every Int32Array store does.
    assert.equal(
      Array.from(block),
      want.map((v) => v | 0),
    );
    if (n < 2 ** 31)
      assert.ok(
        want.every((v) => v === (v | 0)),
        'small spans are not wrapped',
      );
    assert.is(a.nextU32(), b.nextU32(), 'state after the block');
  }
});

test.run();
