// The no-allocation check of a predictor (scalar and SIMD alike): 1M predict() calls over 64
// inputs with no GC, and a positive control showing the meter sees a loop that allocates.
import * as assert from 'uvu/assert';
import type { Predictor } from '../../src/ml/inference/predictor.ts';
import { measureAllocation } from './allocation.ts';

let sink: unknown = null;

export async function assertPredictsWithoutAllocation(p: Predictor, xs: Float64Array[]): Promise<void> {
  const check = new Float64Array(1); // a typed array: a JS double kept across the loop may box
  const loop = (n: number): void => {
    for (let i = 0; i < n; i++) check[0] += p.predict(xs[i & 63]);
  };
  for (let k = 0; k < 10; k++) loop(20_000); // until V8 has optimised the loop
  check[0] = 0;
  // Up to 3 attempts: under load the optimised code may arrive late (see measureAllocation).
  const r = await measureAllocation(() => loop(1_000_000), { attempts: 3 });
  assert.ok(Number.isFinite(check[0]) && check[0] !== 0, 'the loop did real work');
  assert.is(r.gcs, 0, `${r.gcs} garbage collections during 1M calls`);
  assert.ok(r.newSpaceGrowth < 1 << 20, `new space grew ${r.newSpaceGrowth} bytes`);
  assert.ok(r.heapGrowth < 1 << 20, `heap grew ${r.heapGrowth} bytes`);
  // the detector is not blind: the same loop keeping one small array per call trips it
  const a = await measureAllocation(() => {
    for (let i = 0; i < 1_000_000; i++) sink = [p.predict(xs[i & 63])];
  });
  assert.ok(a.gcs > 0 || a.newSpaceGrowth > 1 << 20, `allocating loop: ${JSON.stringify(a)}`);
  assert.ok(sink !== null);
}
