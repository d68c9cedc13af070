// Inference benchmark: ns per predict() call of the shipped ES model (models/ES.json), on the
// engine's path (createPredictor: the WebAssembly SIMD kernel when available) and on its peer, the
// scalar JS path (MlpPredictor), in interleaved rounds of the same calls on the same inputs.
// Warm-up first (so V8 has optimised the loops), then timed rounds over a pool of realistic
// feature vectors; a checksum of every output is kept per path so the work cannot be optimised
// away, and the two must be equal (the kernel computes the same bits).
//   node --import tsx bench/inference.ts

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FEATURE_COUNT } from '../src/book/features.ts';
import { packageRoot } from '../src/core/paths.ts';
import { Rng } from '../src/core/rng.ts';
import { createPredictor, type SimdMlpPredictor } from '../src/ml/inference/mlp-simd.ts';
import { loadModelFile, MlpPredictor, type ModelFile } from '../src/ml/inference/model.ts';
import { modelFileName } from '../src/ml/inference/model-store.ts';
import { loadavg } from './util.ts';

export interface InferenceBench {
  /** The engine's path (`kernel`). */
  nsPerCall: number;
  kernel: string;
  multiplyAdds: number;
  calls: number;
  checksum: number;
  modelVersion: string;
  /** The scalar JS path, timed in the same rounds. */
  scalar: { nsPerCall: number; checksum: number };
}

const POOL = 1024;

// One loop per class, so each call site sees one predictor class (as in the engine).
function scalarLoop(p: MlpPredictor, rows: Float64Array[], n: number, sum: Float64Array): void {
  for (let i = 0; i < n; i++) sum[0] += p.predict(rows[i & (POOL - 1)]);
}
function engineLoop(p: SimdMlpPredictor, rows: Float64Array[], n: number, sum: Float64Array): void {
  for (let i = 0; i < n; i++) sum[0] += p.predict(rows[i & (POOL - 1)]);
}

/** Times predict() on `model` (default: the shipped ES model). */
export function benchInference(opts: { model?: ModelFile; calls?: number; rounds?: number } = {}): InferenceBench {
  let model = opts.model;
  if (!model) {
    const r = loadModelFile(join(packageRoot(), 'models', modelFileName('ES')));
    if (!r.ok) throw new Error(r.error);
    model = r.model;
  }
  const scalar = new MlpPredictor(model);
  const engine = createPredictor(model);
  // 1024 input vectors around the training distribution (mean +- 1.5 std per feature), so the
  // ReLUs switch the way they do on real data rather than on one fixed input.
  const rng = new Rng(7);
  const pool = new Float64Array(POOL * FEATURE_COUNT);
  for (let i = 0; i < pool.length; i++) {
    const f = i % FEATURE_COUNT;
    pool[i] = model.normalization.mean[f] + 1.5 * model.normalization.std[f] * rng.normal();
  }
  const rows: Float64Array[] = [];
  for (let i = 0; i < POOL; i++) rows.push(pool.subarray(i * FEATURE_COUNT, (i + 1) * FEATURE_COUNT));
  const sumScalar = new Float64Array(1);
  const sumEngine = new Float64Array(1);
  const runEngine = (n: number): void => {
    if (engine instanceof MlpPredictor) scalarLoop(engine, rows, n, sumEngine);
    else engineLoop(engine, rows, n, sumEngine);
  };
  for (let k = 0; k < 20; k++) {
    scalarLoop(scalar, rows, 20_000, sumScalar); // warm-up
    runEngine(20_000);
  }
  const calls = opts.calls ?? 1_000_000;
  const rounds = opts.rounds ?? 5;
  let bestScalar = Infinity;
  let bestEngine = Infinity;
  sumScalar[0] = 0;
  sumEngine[0] = 0;
  for (let r = 0; r < rounds; r++) {
    let t0 = process.hrtime.bigint();
    scalarLoop(scalar, rows, calls, sumScalar);
    bestScalar = Math.min(bestScalar, Number(process.hrtime.bigint() - t0) / calls);
    t0 = process.hrtime.bigint();
    runEngine(calls);
    bestEngine = Math.min(bestEngine, Number(process.hrtime.bigint() - t0) / calls);
  }
  if (!Number.isFinite(sumScalar[0])) throw new Error('non-finite checksum');
  if (sumEngine[0] !== sumScalar[0]) throw new Error(`checksums differ: ${engine.kernel} ${sumEngine[0]}, scalar ${sumScalar[0]}`);
  return {
    nsPerCall: bestEngine,
    kernel: engine.kernel,
    multiplyAdds: engine.multiplyAdds,
    calls: calls * rounds,
    checksum: sumEngine[0],
    modelVersion: engine.version,
    scalar: { nsPerCall: bestScalar, checksum: sumScalar[0] },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = benchInference();
  const per = (ns: number) => `${ns.toFixed(1)} ns/call, ${(r.multiplyAdds / ns).toFixed(2)} multiply-adds/ns`;
  console.log(`inference ${r.modelVersion}, ${r.multiplyAdds} multiply-adds, best of 5 x 1M calls each, interleaved:`);
  console.log(`  ${r.kernel}: ${per(r.nsPerCall)}`);
  console.log(`  js-scalar (peer): ${per(r.scalar.nsPerCall)} -> ${(r.scalar.nsPerCall / r.nsPerCall).toFixed(2)}x`);
  console.log(`  checksums equal: ${r.checksum.toFixed(6)} over ${r.calls.toLocaleString('en-US')} calls each (load ${loadavg().join(' ')})`);
}
