// Training is reproducible from first principles: a short training run writes a model file
// whose SHA-256 is pinned here (so any machine, any CPU, retrains the same bytes), every built-in
// root ships a model (models/<ROOT>.json) trained on exactly the data this build produces, the libm functions on the data
// path give the pinned bits, and the untrained signal baselines are what they say.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { F_OFI, FEATURE_COUNT, FEATURE_NAMES } from '../../../src/book/features.ts';
import { NS_PER_MS, NS_PER_S } from '../../../src/core/events.ts';
import { packageRoot } from '../../../src/core/paths.ts';
import { Adam } from '../../../src/ml/training/adam.ts';
import { buildDataset, datasetDigest, type Dataset } from '../../../src/ml/training/dataset.ts';
import { loadModelFile, serializeModel, type ModelFile } from '../../../src/ml/inference/model.ts';
import { BUILTIN_CONTRACTS } from '../../../src/market/instruments.ts';
import { fitSignalBaseline, signalBaselineOf, SignalPredictor } from '../../../src/ml/training/signal-baselines.ts';
import { sessionRef, type TrainConfig } from '../../../src/ml/training/train-recipe.ts';
import { trainModel } from '../../../src/ml/training/train.ts';

const sha256 = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

/** The shipped recipe shrunk to seconds: 15-minute sessions, a small net, three epochs. */
function reducedConfig(): TrainConfig {
  const ref = (date: string, seed: number) => sessionRef('ES', date, seed, '09:30', '09:45');
  return {
    root: 'ES',
    train: [ref('2023-03-06', 101), ref('2023-04-12', 102)],
    validation: [ref('2023-10-04', 201)],
    test: [ref('2024-02-07', 301)],
    sample: { sampleIntervalNs: 100 * NS_PER_MS, horizonNs: 1 * NS_PER_S, warmupNs: 30 * NS_PER_S, activity: 1 },
    hidden: [8, 8],
    seed: 7,
    epochs: 3,
    patience: 3,
    batchSize: 64,
    learningRate: 1e-3,
    lrDecay: 0.8,
    l2: 1e-5,
    clip: 8,
    ridge: 1,
  };
}

// Pinned on an AMD EPYC (Node 20.20.2); they must hold on every x86-64 machine. They change
// only when the generator, the features or the training arithmetic change. To refresh (after
// such a change, never to make a machine pass): PRINT_PINS=1 node --import tsx
// node_modules/uvu/bin.js test ml-training
const PINNED = {
  trainData: '31db669eb8fbf10fbc166bdda72992c5f7e42bc429dc8164b2f63059be9dfc2b',
  modelFile: '7804784895f2f095e77a1162c582baa34b7d75d01724bdd6512c1594afae8cb1',
};

test('a short training run writes the pinned bytes (data first, then the model)', () => {
  const cfg = reducedConfig();
  const data = datasetDigest(buildDataset(cfg.train, cfg.sample));
  const text = serializeModel(trainModel(cfg).model);
  if (process.env.PRINT_PINS === '1') console.log(JSON.stringify({ trainData: data, modelFile: sha256(text) }));
  // Told apart: a data mismatch is the generator or the features, a model mismatch with the
  // same data is the training arithmetic.
  assert.is(data, PINNED.trainData, 'the training data (generator + features) differ from the pinned run');
  assert.is(sha256(text), PINNED.modelFile, 'same data, different model file: the training arithmetic is not reproducible');
  // and a second run in the same process gives the same bytes (no state leaks between runs)
  assert.is(serializeModel(trainModel(cfg).model), text);
});

const ROOTS = Object.keys(BUILTIN_CONTRACTS);

const shipped = (root = 'ES'): ModelFile => {
  const r = loadModelFile(join(packageRoot(), 'models', `${root}.json`));
  if (!r.ok) throw new Error(r.error);
  return r.model;
};

test('every built-in root ships its own model (models/<ROOT>.json)', () => {
  assert.equal(ROOTS, ['ES', 'NQ', 'YM', 'RTY', 'MES', 'MNQ', 'CL', 'GC']);
  for (const root of ROOTS) {
    const m = shipped(root);
    assert.equal(m.roots, [root], `${root}.json: roots`);
    assert.ok(m.modelVersion.startsWith(`${root.toLowerCase()}-mlp-`), `${root}.json: ${m.modelVersion}`);
    assert.is((m.training.dataCheck as { root: string }).root, root, `${root}.json was trained on ${root} sessions`);
  }
});

for (const root of ROOTS) {
  test(`the shipped ${root} model was trained on the data this build produces (else: npm run train -- --root ${root})`, () => {
    const m = shipped(root);
    const c = m.training.dataCheck as {
      root: string;
      date: string;
      seed: number;
      start: string;
      end: string;
      sample: TrainConfig['sample'];
      samples: number;
      sha256: string;
    };
    assert.ok(c && typeof c.sha256 === 'string', `models/${root}.json has no training.dataCheck: retrain with npm run train -- --root ${root}`);
    const d = buildDataset([sessionRef(c.root, c.date, c.seed, c.start, c.end)], c.sample);
    assert.is(d.n, c.samples);
    assert.is(
      datasetDigest(d),
      c.sha256,
      `the generator or the features changed since models/${root}.json was trained (${c.root} ${c.date} seed ${c.seed} ${c.start}-${c.end} hashes differently): run npm run train -- --root ${root} and commit the model`,
    );
  });
}

// The transcendental functions on the data path (generator: exp, log, sin, cos, pow; features:
// exp, expm1) are V8's own ports compiled into node, not the CPU's or the C library's, so they
// give the same bits everywhere for a given Node build. A Node build whose results differ fails
// here by name, before it can make a different model or a different market.
const LIBM: Record<string, [(x: number) => number, string]> = {
  exp: [(x) => Math.exp(-x), '42fd10ff3ffdd7588569e16e52b9a912a2f73cb58325e02f2b62014587c406a4'],
  expm1: [(x) => Math.expm1(-x), '1006e1a9cd850f0740140d3e36e8c388980e8f247b3a8e8e7b38d882108ff5a6'],
  log: [(x) => Math.log(x), '89a7da064f085403af495a3b6e1c7212ab5a2c552966941830a11cdda39a09e5'],
  sin: [(x) => Math.sin(7 * x), 'dfd62bf6cac91d668321a6fd6f591b9f9da4045bed8dc7d11b7fb66d3683f101'],
  cos: [(x) => Math.cos(7 * x), 'aa1e775a3e05f3336b75ad9a83b448f6e9eebc3bdb9cdc66208622394c94ff6d'],
  pow: [(x) => Math.pow(x, -0.37), '533d1f36ea60c9ecdd3ae6c3d721fb341da1cccf8d5e74f5674f83d0d4487698'],
};

test('exactly representable values of the math primitives, and the pinned bits of 100k arguments', () => {
  // Values exact in binary: any correct implementation returns them.
  assert.is(Math.exp(0), 1);
  assert.is(Math.expm1(0), 0);
  assert.is(Math.log(1), 0);
  assert.is(Math.sqrt(2.25), 1.5);
  assert.is(Math.pow(2, -10), 1 / 1024);
  assert.is(Math.pow(0.25, 0.5), 0.5);
  assert.is(Math.sin(0), 0);
  assert.is(Math.cos(0), 1);
  const got: Record<string, string> = {};
  const out = new Float64Array(100_000);
  for (const [name, [fn]] of Object.entries(LIBM)) {
    for (let i = 0; i < out.length; i++) out[i] = fn((i + 1) / 8192); // exact arguments in (0, 12.3]
    got[name] = sha256(new Uint8Array(out.buffer));
  }
  if (process.env.PRINT_PINS === '1') console.log(JSON.stringify(got));
  for (const [name, [, want]] of Object.entries(LIBM))
    assert.is(got[name], want, `Math.${name} gives other bits than the pinned Node build: generated markets and trained models will differ`);
});

test('Adam: running products for the bias corrections; the first step moves each weight by lr', () => {
  // With m = v = 0 the first bias-corrected step is lr * g / (|g| + eps) for every g.
  const p = Float64Array.from([1, -2, 0.5]);
  const g = Float64Array.from([4, -8, 0.5]);
  new Adam([{ params: p, grads: g, l2: 0 }]).step(0.01, 1);
  const want = [1 - 0.01, -2 + 0.01, 0.5 - 0.01];
  for (let i = 0; i < 3; i++) assert.ok(Math.abs(p[i] - want[i]) < 1e-9, `p[${i}] = ${p[i]}, want ${want[i]}`);
});

// ---- untrained signal baselines ----

function dataset(rows: number[][], y: number[]): Dataset {
  const x = new Float64Array(rows.length * FEATURE_COUNT);
  rows.forEach((r, i) => x.set(r, i * FEATURE_COUNT));
  return { n: rows.length, x, y: Float64Array.from(y), perSession: [] };
}

test('a signal baseline: z-score, clamp at +-2, least-squares scale on the training data', () => {
  const row = (ofi: number) => {
    const r = new Array(FEATURE_COUNT).fill(0);
    r[F_OFI] = ofi;
    return r;
  };
  // mean 1, std 2 for ofi_norm: z = (x - 1) / 2 -> x = 3: 1, x = -1: -1, x = 11: 5 clamped to 2
  const norm = { mean: new Array(FEATURE_COUNT).fill(0), std: new Array(FEATURE_COUNT).fill(1), clip: 8 };
  norm.mean[F_OFI] = 1;
  norm.std[F_OFI] = 2;
  const train = dataset([row(3), row(-1), row(11)], [1, -1, 3]);
  const b = fitSignalBaseline('ofi', train, norm);
  // s = [1, -1, 2], y = [1, -1, 3]: scale = (1 + 1 + 6) / (1 + 1 + 4) = 8 / 6
  assert.equal({ ...b }, { feature: 'ofi_norm', mean: 1, std: 2, clip: 2, scale: 8 / 6 });
  const p = new SignalPredictor('ofi', b, 1e9);
  const x = new Float64Array(FEATURE_COUNT);
  const at = (v: number) => {
    x[F_OFI] = v;
    return p.predict(x);
  };
  assert.is(at(3), 8 / 6);
  assert.is(at(-100), -2 * (8 / 6));
  assert.is(at(NaN), 0, 'a missing value is the mean');
  assert.is(p.horizonNs, 1e9);
  // the raw clamp(ofi_norm, +-2) in ticks: nothing fitted
  const raw = new SignalPredictor('ofi-clamp', fitSignalBaseline('ofi-clamp', train, norm), 1e9);
  x[F_OFI] = 1.25;
  assert.is(raw.predict(x), 1.25);
  x[F_OFI] = -7;
  assert.is(raw.predict(x), -2);
});

test('every shipped model records every baseline; a broken record is an error naming the key', () => {
  for (const root of ROOTS.slice(1)) {
    for (const name of ['ofi', 'imbalance', 'microprice', 'ofi-clamp'] as const)
      assert.ok(signalBaselineOf(shipped(root).training, name).scale > 0, `${root} ${name}`);
  }
  const m = shipped();
  assert.equal({ ...signalBaselineOf(m.training, 'ofi-clamp') }, { feature: 'ofi_norm', mean: 0, std: 1, clip: 2, scale: 1 }, 'the raw clamp: nothing fitted');
  for (const name of ['ofi', 'imbalance', 'microprice'] as const) {
    const b = signalBaselineOf(m.training, name);
    assert.ok(b.scale > 0, `${name}: a positive scale (the signal points the right way), got ${b.scale}`);
    assert.ok(FEATURE_NAMES.includes(b.feature));
  }
  const t = JSON.parse(JSON.stringify(m.training));
  t.signalBaselines.ofi.scale = 'x';
  assert.throws(() => signalBaselineOf(t, 'ofi'), /training\.signalBaselines\.ofi\.scale must be a finite number/);
  t.signalBaselines.ofi.scale = 1;
  t.signalBaselines.ofi.feature = 'spread';
  assert.throws(() => signalBaselineOf(t, 'ofi'), /feature is "spread", expected "ofi_norm"/);
  assert.throws(() => signalBaselineOf({}, 'imbalance'), /no training\.signalBaselines\.imbalance/);
});

test.run();
