// The WebAssembly SIMD predictor (src/ml/inference/mlp-simd.ts): the build makes a kernel this Node runs,
// the engine's sessions use it, its predictions are those of the scalar MlpPredictor bit for bit
// (tolerance 0: same value and sign, NaN where it gives NaN) on the shipped model and on models of
// other shapes, the scalar path is the fallback, and predict() allocates nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { FEATURE_COUNT, FEATURE_DEFAULTS, FEATURE_NAMES } from '../../../src/book/features.ts';
import { predictorForSpec } from '../../../src/backtest/session.ts';
import type { SessionSpec } from '../../../src/backtest/session-spec.ts';
import { packageRoot } from '../../../src/core/paths.ts';
import { Rng } from '../../../src/core/rng.ts';
import { createPredictor, SimdMlpPredictor, simdKernel } from '../../../src/ml/inference/mlp-simd.ts';
import { loadModelFile, MlpPredictor, type LayerSpec, type ModelFile } from '../../../src/ml/inference/model.ts';
import { assertPredictsWithoutAllocation } from '../../helpers/predictor-allocation.ts';

const shipped = (): ModelFile => {
  const r = loadModelFile(join(packageRoot(), 'models', 'ES.json'));
  if (!r.ok) throw new Error(r.error);
  return r.model;
};

function simd(m: ModelFile): SimdMlpPredictor {
  const k = simdKernel();
  if (!k.ok) throw new Error(`no SIMD kernel: ${k.reason}`);
  return new SimdMlpPredictor(m, k.module);
}

/** A model of layer widths `sizes` (inputs first, 1 output last) with random weights. */
function randomModel(sizes: number[], seed: number, hidden: 'relu' | 'linear' = 'relu'): ModelFile {
  const rng = new Rng(seed);
  const layers: LayerSpec[] = [];
  for (let k = 0; k + 1 < sizes.length; k++) {
    const inputs = sizes[k],
      outputs = sizes[k + 1];
    layers.push({
      inputs,
      outputs,
      activation: k + 2 < sizes.length ? hidden : 'linear',
      weights: Array.from({ length: inputs * outputs }, () => rng.normal() / Math.sqrt(inputs)),
      bias: Array.from({ length: outputs }, () => 0.1 * rng.normal()),
    });
  }
  return {
    format: 'futures-mm-model',
    formatVersion: 1,
    modelVersion: `random-${sizes.join('x')}`,
    kind: 'mlp-regression',
    target: 'test',
    horizonNs: 1e9,
    features: [...FEATURE_NAMES],
    featureOptions: { ...FEATURE_DEFAULTS },
    roots: ['ES'],
    normalization: {
      mean: Array.from({ length: FEATURE_COUNT }, () => rng.normal()),
      std: Array.from({ length: FEATURE_COUNT }, () => 0.1 + rng.next()),
      clip: 3,
    },
    layers,
    output: { scale: 0.7, offset: -0.05 },
    training: {},
    metrics: {},
  };
}

/** Inputs at `spread` std around the model's mean, then each feature NaN, +-Infinity, at the mean, far out. */
function inputs(m: ModelFile, n: number, spread: number, seed: number): Float64Array[] {
  const rng = new Rng(seed);
  const out: Float64Array[] = [];
  const { mean, std } = m.normalization;
  for (let i = 0; i < n; i++) out.push(Float64Array.from(mean, (mu, f) => mu + spread * std[f] * rng.normal()));
  for (const v of [NaN, Infinity, -Infinity, 1e300, -1e300]) {
    for (let f = 0; f < FEATURE_COUNT; f++) {
      const x = Float64Array.from(mean, (mu, g) => mu + std[g] * rng.normal());
      x[f] = v;
      out.push(x);
    }
  }
  out.push(Float64Array.from(mean)); // exactly at the mean: x' = 0 everywhere
  out.push(new Float64Array(FEATURE_COUNT).fill(NaN));
  return out;
}

function assertSameBits(m: ModelFile, xs: Float64Array[]): void {
  const a = new MlpPredictor(m);
  const b = simd(m);
  for (const x of xs) {
    const want = a.predict(x);
    const got = b.predict(x);
    if (!Object.is(got, want)) assert.unreachable(`${m.modelVersion}: SIMD ${got}, scalar ${want} on [${x.join(', ')}]`);
  }
}

test('the build made a kernel that this Node runs (WebAssembly SIMD)', () => {
  const k = simdKernel();
  assert.ok(k.ok, k.ok ? '' : k.reason);
});

test('shipped model: SIMD predictions equal the scalar ones bit for bit', () => {
  const m = shipped();
  assertSameBits(m, inputs(m, 20_000, 2, 1));
  assertSameBits(m, inputs(m, 5_000, 20, 2)); // mostly clipped
  const p = simd(m);
  assert.is(p.multiplyAdds, new MlpPredictor(m).multiplyAdds);
  assert.is(p.version, m.modelVersion);
  assert.is(p.horizonNs, m.horizonNs);
});

test('other shapes (odd widths, blocks of eight and their rest, several layers, memory growth) give the scalar bits', () => {
  const shapes = [
    [FEATURE_COUNT, 1],
    [FEATURE_COUNT, 3, 1],
    [FEATURE_COUNT, 8, 1],
    [FEATURE_COUNT, 17, 5, 1],
    [FEATURE_COUNT, 16, 16, 1],
    [FEATURE_COUNT, 33, 2, 7, 1],
    [FEATURE_COUNT, 130, 90, 1],
  ];
  shapes.forEach((s, i) => {
    const m = randomModel(s, 100 + i);
    assertSameBits(m, inputs(m, 500, 2, 200 + i));
  });
  const lin = randomModel([FEATURE_COUNT, 12, 1], 300, 'linear'); // hidden layers without ReLU
  assertSameBits(lin, inputs(lin, 500, 2, 301));
});

test('the engine uses the SIMD kernel; the scalar path is the fallback', () => {
  const m = shipped();
  const spec = { root: 'ES', date: '2024-01-02', useML: true, model: m } as unknown as SessionSpec;
  const p = predictorForSpec(spec);
  assert.ok(p instanceof SimdMlpPredictor, 'a session with useML runs the SIMD kernel');
  const fallback = createPredictor(m, { ok: false, reason: 'test: no SIMD' });
  assert.ok(fallback instanceof MlpPredictor);
  assert.is(fallback.kernel, 'js-scalar');
  const x = inputs(m, 1, 1, 5)[0];
  assert.is(fallback.predict(x), p!.predict(x));
});

test('an invalid model is refused as by the scalar predictor', () => {
  const bad = randomModel([FEATURE_COUNT, 4, 1], 9);
  bad.layers[0].weights.pop();
  assert.throws(() => simd(bad), /invalid model: layers\[0\]\.weights has/);
});

test('1M SIMD predict calls allocate nothing', async () => {
  const m = shipped();
  const p = simd(m);
  const xs = inputs(m, 64, 2, 3).slice(0, 64);
  await assertPredictsWithoutAllocation(p, xs);
});

test.run();
