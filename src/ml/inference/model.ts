// A model file (models/<ROOT>.json, one per contract root: model-store.ts) and its inference.
//
// Format (formatVersion 1), one JSON object:
//   format          "futures-mm-model"
//   formatVersion   1
//   modelVersion    version string shown with every prediction (carries a hash of the weights)
//   kind            "mlp-regression": a fully connected network with one linear output unit
//   target          what the output means (text)
//   horizonNs       horizon of the predicted mid move, ns of market time
//   features        input names, in order; must equal FEATURE_NAMES of this build
//   featureOptions  the FeatureExtractor options the model was trained with; must equal
//                   FEATURE_DEFAULTS (the engine's extractor uses the defaults)
//   roots           contract roots the model was trained on (a backtest of another root with
//                   useML is refused)
//   normalization   { mean[], std[], clip }: x' = clamp((x - mean) / std, -clip, clip)
//   layers[]        { inputs, outputs, activation: "relu" | "linear", weights[outputs * inputs]
//                   row-major (weights[o * inputs + i]), bias[outputs] }; layer k's inputs =
//                   layer k-1's outputs; the last layer has one output
//   output          { scale, offset }: prediction (ticks) = scale * net(x') + offset
//   training        seeds, sessions, sample counts, hyper-parameters (free-form). Two entries are
//                   read back: signalBaselines (the untrained baselines' parameters, for
//                   compare-signals) and dataCheck (a hash of a slice of the training data, which
//                   test/unit/ml/ml-training.test.ts rebuilds to catch a model trained on other data)
//   metrics         held-out evaluation against baselines (free-form, recorded only)
//
// Inference is plain loops over Float64Arrays preallocated at construction: predict()
// allocates nothing. It is split in two on purpose: `run` does the work and returns nothing,
// `predict` only calls it and reads the result from a typed array (hot-path rule 3); `predict` is
// tiny, so V8 inlines it into its callers and the double never leaves optimised code.

import { readFileSync } from 'node:fs';
import { FEATURE_DEFAULTS, FEATURE_NAMES } from '../../book/features.ts';
import type { Predictor } from './predictor.ts';

export const MODEL_FORMAT = 'futures-mm-model';
export const MODEL_FORMAT_VERSION = 1;
export const MODEL_KIND = 'mlp-regression';
export const ACTIVATIONS = ['relu', 'linear'] as const;
export type Activation = (typeof ACTIVATIONS)[number];

export interface LayerSpec {
  inputs: number;
  outputs: number;
  activation: Activation;
  /** outputs x inputs, row-major: weights[o * inputs + i]. */
  weights: number[];
  bias: number[];
}

export interface ModelFile {
  format: typeof MODEL_FORMAT;
  formatVersion: number;
  modelVersion: string;
  kind: typeof MODEL_KIND;
  target: string;
  horizonNs: number;
  features: string[];
  featureOptions: Record<string, number>;
  roots: string[];
  normalization: { mean: number[]; std: number[]; clip: number };
  layers: LayerSpec[];
  output: { scale: number; offset: number };
  training: Record<string, unknown>;
  metrics: Record<string, unknown>;
}

export type ModelCheck = { ok: true; model: ModelFile } | { ok: false; error: string };
export type ModelLoad = { ok: true; model: ModelFile; path: string } | { ok: false; error: string; missing?: boolean };

const K_CLIP = 0;
const K_SCALE = 1;
const K_OFFSET = 2;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const posInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0;

/** Index of the first non-finite entry (or a non-array), -1 when all are finite numbers. */
function badNumber(a: unknown[]): number {
  for (let i = 0; i < a.length; i++) if (!finite(a[i])) return i;
  return -1;
}

/** Total multiply-adds of one prediction (normalisation excluded). */
export function multiplyAdds(m: Pick<ModelFile, 'layers'>): number {
  let n = 0;
  for (const l of m.layers) n += l.inputs * l.outputs;
  return n;
}

/** Checks a parsed model object; the error names the first problem found. */
export function validateModel(raw: unknown): ModelCheck {
  const fail = (error: string): ModelCheck => ({ ok: false, error });
  if (!isObj(raw)) return fail('not a JSON object');
  if (raw.format !== MODEL_FORMAT) return fail(`"format" is ${JSON.stringify(raw.format)}, expected "${MODEL_FORMAT}"`);
  if (raw.formatVersion !== MODEL_FORMAT_VERSION) {
    return fail(
      `unsupported formatVersion ${JSON.stringify(raw.formatVersion)}: this build reads formatVersion ${MODEL_FORMAT_VERSION} (retrain with npm run train)`,
    );
  }
  if (typeof raw.modelVersion !== 'string' || raw.modelVersion.length === 0) return fail('"modelVersion" must be a non-empty string');
  if (raw.kind !== MODEL_KIND) return fail(`"kind" is ${JSON.stringify(raw.kind)}, expected "${MODEL_KIND}"`);
  if (!finite(raw.horizonNs) || raw.horizonNs <= 0) return fail(`"horizonNs" must be a number > 0, got ${JSON.stringify(raw.horizonNs)}`);

  // Features: the same names in the same order as this build's extractor.
  if (!Array.isArray(raw.features)) return fail('"features" must be an array of feature names');
  const names = raw.features as unknown[];
  const want = FEATURE_NAMES;
  const missing = want.filter((n) => !names.includes(n));
  const extra = names.filter((n) => typeof n !== 'string' || !want.includes(n));
  if (missing.length || extra.length || names.length !== want.length || names.some((n, i) => n !== want[i])) {
    const parts: string[] = [];
    if (missing.length) parts.push(`missing ${missing.join(', ')}`);
    if (extra.length) parts.push(`unknown ${extra.map((e) => JSON.stringify(e)).join(', ')}`);
    if (!parts.length) parts.push('different order');
    return fail(`feature names mismatch (${parts.join('; ')}): model has [${names.join(', ')}], this build extracts [${want.join(', ')}]`);
  }
  const nf = want.length;

  if (!isObj(raw.featureOptions)) return fail('"featureOptions" must be an object');
  for (const [k, v] of Object.entries(FEATURE_DEFAULTS)) {
    if (raw.featureOptions[k] !== v) {
      return fail(
        `feature option ${k} = ${JSON.stringify(raw.featureOptions[k])} in the model, but the engine's extractor uses ${v} (retrain with npm run train)`,
      );
    }
  }
  if (!Array.isArray(raw.roots) || raw.roots.length === 0 || raw.roots.some((r) => typeof r !== 'string'))
    return fail('"roots" must be a non-empty array of contract roots');

  const norm = raw.normalization;
  if (!isObj(norm)) return fail('"normalization" must be an object { mean, std, clip }');
  for (const key of ['mean', 'std'] as const) {
    const a = norm[key];
    if (!Array.isArray(a)) return fail(`normalization.${key} must be an array`);
    if (a.length !== nf) return fail(`normalization.${key} has ${a.length} values, expected ${nf} (one per feature)`);
    const b = badNumber(a);
    if (b >= 0) return fail(`normalization.${key}[${b}] is not a finite number`);
  }
  const bs = (norm.std as number[]).findIndex((s) => s <= 0);
  if (bs >= 0) return fail(`normalization.std[${bs}] = ${(norm.std as number[])[bs]} must be > 0`);
  if (!finite(norm.clip) || norm.clip <= 0) return fail('normalization.clip must be a number > 0');

  if (!Array.isArray(raw.layers) || raw.layers.length === 0) return fail('"layers" must be a non-empty array');
  let inputs = nf;
  for (let k = 0; k < raw.layers.length; k++) {
    const l = raw.layers[k] as unknown;
    const at = `layers[${k}]`;
    if (!isObj(l)) return fail(`${at} must be an object`);
    if (l.inputs !== inputs)
      return fail(`${at}.inputs is ${JSON.stringify(l.inputs)}, expected ${inputs} (${k === 0 ? 'the number of features' : `layers[${k - 1}].outputs`})`);
    if (!posInt(l.outputs)) return fail(`${at}.outputs must be an integer > 0, got ${JSON.stringify(l.outputs)}`);
    if (k === raw.layers.length - 1 && l.outputs !== 1) return fail(`${at} is the output layer and must have 1 output, got ${l.outputs}`);
    if (!ACTIVATIONS.includes(l.activation as Activation))
      return fail(`${at}.activation is ${JSON.stringify(l.activation)}, expected one of ${ACTIVATIONS.join(', ')}`);
    if (!Array.isArray(l.weights)) return fail(`${at}.weights must be an array`);
    if (l.weights.length !== inputs * l.outputs) {
      return fail(`${at}.weights has ${l.weights.length} values, expected ${inputs * l.outputs} (${l.outputs} outputs x ${inputs} inputs)`);
    }
    const bw = badNumber(l.weights);
    if (bw >= 0) return fail(`${at}.weights[${bw}] is not a finite number`);
    if (!Array.isArray(l.bias)) return fail(`${at}.bias must be an array`);
    if (l.bias.length !== l.outputs) return fail(`${at}.bias has ${l.bias.length} values, expected ${l.outputs}`);
    const bb = badNumber(l.bias);
    if (bb >= 0) return fail(`${at}.bias[${bb}] is not a finite number`);
    inputs = l.outputs;
  }
  const out = raw.output;
  if (!isObj(out) || !finite(out.scale) || !finite(out.offset)) return fail('"output" must be { scale, offset } with finite numbers');
  if (!isObj(raw.training)) return fail('"training" must be an object');
  if (!isObj(raw.metrics)) return fail('"metrics" must be an object');
  return { ok: true, model: raw as unknown as ModelFile };
}

/** Parses and validates model JSON text; `source` names it in errors. */
export function parseModel(text: string, source: string): ModelCheck {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `model file ${source}: invalid JSON (${(e as Error).message})` };
  }
  const v = validateModel(raw);
  return v.ok ? v : { ok: false, error: `model file ${source}: ${v.error}` };
}

/** Loads a model file. Every failure is an error string naming the file and the problem; `missing`: no such file. */
export function loadModelFile(path: string): ModelLoad {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    return { ok: false, error: `model file ${path}: ${why}`, missing: code === 'ENOENT' };
  }
  const v = parseModel(text, path);
  return v.ok ? { ok: true, model: v.model, path } : v;
}

/** Serialises a model the way models/<ROOT>.json is written (stable key order, 2-space indent). */
export function serializeModel(m: ModelFile): string {
  return JSON.stringify(m, null, 2) + '\n';
}

/** The network of a (validated) model file as a Predictor. */
export class MlpPredictor implements Predictor {
  readonly kernel = 'js-scalar';
  readonly horizonNs: number;
  readonly version: string;
  readonly multiplyAdds: number;
  private readonly nIn: number;
  private readonly nLayers: number;
  private readonly mean: Float64Array;
  private readonly invStd: Float64Array;
  /** clip, scale, offset. In a typed array, not number fields: a field declared without an
   *  initialiser is "tagged" in V8, and doubles merged with it in optimised code get boxed. */
  private readonly k = new Float64Array(3);
  /** Per layer: inputs, outputs, relu (1) or linear (0), offset of its weights, of its bias. */
  private readonly shape: Int32Array;
  private readonly w: Float64Array;
  private readonly b: Float64Array;
  private readonly bufA: Float64Array;
  private readonly bufB: Float64Array;
  private readonly res = new Float64Array(1);

  constructor(model: ModelFile) {
    const v = validateModel(model);
    if (!v.ok) throw new Error(`invalid model: ${v.error}`);
    this.horizonNs = model.horizonNs;
    this.version = model.modelVersion;
    this.multiplyAdds = multiplyAdds(model);
    this.nIn = model.features.length;
    this.nLayers = model.layers.length;
    this.mean = Float64Array.from(model.normalization.mean);
    this.invStd = Float64Array.from(model.normalization.std, (s) => 1 / s);
    this.k[K_CLIP] = model.normalization.clip;
    this.k[K_SCALE] = model.output.scale;
    this.k[K_OFFSET] = model.output.offset;
    this.shape = new Int32Array(5 * this.nLayers);
    let nw = 0,
      nb = 0,
      width = this.nIn;
    model.layers.forEach((l, k) => {
      this.shape.set([l.inputs, l.outputs, l.activation === 'relu' ? 1 : 0, nw, nb], 5 * k);
      nw += l.weights.length;
      nb += l.bias.length;
      if (l.outputs > width) width = l.outputs;
    });
    this.w = new Float64Array(nw);
    this.b = new Float64Array(nb);
    model.layers.forEach((l, k) => {
      this.w.set(l.weights, this.shape[5 * k + 3]);
      this.b.set(l.bias, this.shape[5 * k + 4]);
    });
    this.bufA = new Float64Array(width);
    this.bufB = new Float64Array(width);
  }

  /** Expected mid move over the horizon, ticks. Allocation-free (see the file comment). */
  predict(features: Float64Array): number {
    this.run(features);
    return this.res[0];
  }

  private run(x: Float64Array): void {
    const kk = this.k;
    const clip = kk[K_CLIP];
    const mean = this.mean,
      invStd = this.invStd;
    let src = this.bufA,
      dst = this.bufB;
    for (let i = 0; i < this.nIn; i++) {
      let z = (x[i] - mean[i]) * invStd[i];
      if (z > clip) z = clip;
      else if (z < -clip) z = -clip;
      else if (z !== z) z = 0; // NaN counts as the mean: a missing value never poisons the output
      src[i] = z;
    }
    const sh = this.shape,
      w = this.w,
      b = this.b;
    for (let k = 0; k < this.nLayers; k++) {
      const nIn = sh[5 * k],
        nOut = sh[5 * k + 1],
        relu = sh[5 * k + 2],
        wo = sh[5 * k + 3],
        bo = sh[5 * k + 4];
      // Four outputs per pass: each input is loaded once for four rows, and the four sums are
      // independent chains of adds that the CPU runs in parallel (one chain is bound by the
      // add latency). Each sum still adds its terms in input order, as a textbook loop does.
      let o = 0;
      for (; o + 3 < nOut; o += 4) {
        const r0 = wo + o * nIn,
          r1 = r0 + nIn,
          r2 = r1 + nIn,
          r3 = r2 + nIn;
        let s0 = b[bo + o],
          s1 = b[bo + o + 1],
          s2 = b[bo + o + 2],
          s3 = b[bo + o + 3];
        for (let i = 0; i < nIn; i++) {
          const v = src[i];
          s0 += w[r0 + i] * v;
          s1 += w[r1 + i] * v;
          s2 += w[r2 + i] * v;
          s3 += w[r3 + i] * v;
        }
        if (relu === 1) {
          if (s0 < 0) s0 = 0;
          if (s1 < 0) s1 = 0;
          if (s2 < 0) s2 = 0;
          if (s3 < 0) s3 = 0;
        }
        dst[o] = s0;
        dst[o + 1] = s1;
        dst[o + 2] = s2;
        dst[o + 3] = s3;
      }
      for (; o < nOut; o++) {
        const row = wo + o * nIn;
        let s = b[bo + o];
        for (let i = 0; i < nIn; i++) s += w[row + i] * src[i];
        if (relu === 1 && s < 0) s = 0;
        dst[o] = s;
      }
      const t = src;
      src = dst;
      dst = t;
    }
    this.res[0] = kk[K_SCALE] * src[0] + kk[K_OFFSET];
  }
}
