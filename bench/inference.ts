// Inference benchmark: ns per predict() call of the shipped model (models/model.json).
// Warm-up first (so V8 has optimised the loop), then timed rounds over a pool of realistic
// feature vectors; a checksum of every output is printed so the work cannot be optimised away.
//   node --import tsx bench/inference.ts

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FEATURE_COUNT } from '../src/book/features.ts';
import { packageRoot } from '../src/core/paths.ts';
import { Rng } from '../src/core/rng.ts';
import { loadModel, MlpPredictor, type ModelFile } from '../src/ml/model.ts';

export interface InferenceBench {
  nsPerCall: number;
  multiplyAdds: number;
  calls: number;
  checksum: number;
  modelVersion: string;
}

/** Times predict() on `model` (default: the shipped model). */
export function benchInference(opts: { model?: ModelFile; calls?: number; rounds?: number } = {}): InferenceBench {
  let model = opts.model;
  if (!model) {
    const r = loadModel(join(packageRoot(), 'models'));
    if (!r.ok) throw new Error(r.error);
    model = r.model;
  }
  const p = new MlpPredictor(model);
  // 1024 input vectors around the training distribution (mean +- 1.5 std per feature), so the
  // ReLUs switch the way they do on real data rather than on one fixed input.
  const rng = new Rng(7);
  const POOL = 1024;
  const pool = new Float64Array(POOL * FEATURE_COUNT);
  for (let i = 0; i < pool.length; i++) {
    const f = i % FEATURE_COUNT;
    pool[i] = model.normalization.mean[f] + 1.5 * model.normalization.std[f] * rng.normal();
  }
  const rows: Float64Array[] = [];
  for (let i = 0; i < POOL; i++) rows.push(pool.subarray(i * FEATURE_COUNT, (i + 1) * FEATURE_COUNT));
  const sum = new Float64Array(1);
  const loop = (n: number): void => {
    for (let i = 0; i < n; i++) sum[0] += p.predict(rows[i & (POOL - 1)]);
  };
  for (let k = 0; k < 20; k++) loop(20_000); // warm-up
  const calls = opts.calls ?? 1_000_000;
  const rounds = opts.rounds ?? 5;
  let best = Infinity;
  sum[0] = 0;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    loop(calls);
    const ns = Number(process.hrtime.bigint() - t0) / calls;
    if (ns < best) best = ns;
  }
  if (!Number.isFinite(sum[0])) throw new Error('non-finite checksum');
  return { nsPerCall: best, multiplyAdds: p.multiplyAdds, calls: calls * rounds, checksum: sum[0], modelVersion: p.version };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = benchInference();
  console.log(`inference ${r.modelVersion}: ${r.nsPerCall.toFixed(1)} ns/call (best of 5 x 1M), ${r.multiplyAdds} multiply-adds, ${(r.multiplyAdds / r.nsPerCall).toFixed(2)} multiply-adds/ns, checksum ${r.checksum.toFixed(6)} over ${r.calls.toLocaleString('en-US')} calls`);
}
