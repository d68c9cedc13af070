// Input normalisation fitted on the training set: x' = clamp((x - mean) / std, -clip, clip).
// The model file stores it, and MlpPredictor applies it the same way at run time.

import { FEATURE_COUNT } from '../../book/features.ts';
import type { Dataset } from './dataset.ts';

export interface Normalization {
  mean: number[];
  std: number[];
  clip: number;
}

/** Per-feature mean and population std of `d` (a constant feature gets std 1). */
export function fitNormalization(d: Dataset, clip: number): Normalization {
  const nf = FEATURE_COUNT;
  const mean = new Array<number>(nf).fill(0);
  const std = new Array<number>(nf).fill(0);
  for (let f = 0; f < nf; f++) {
    let s = 0;
    for (let i = 0; i < d.n; i++) s += d.x[i * nf + f];
    const m = s / d.n;
    let q = 0;
    for (let i = 0; i < d.n; i++) {
      const e = d.x[i * nf + f] - m;
      q += e * e;
    }
    const sd = Math.sqrt(q / d.n);
    mean[f] = m;
    std[f] = sd > 1e-9 ? sd : 1; // a constant feature passes through centred
  }
  return { mean, std, clip };
}

/** The normalised, clipped inputs, exactly as MlpPredictor computes them (NaN -> 0). */
export function normalize(d: Dataset, norm: Normalization): Float64Array {
  const nf = FEATURE_COUNT;
  const out = new Float64Array(d.n * nf);
  const inv = norm.std.map((s) => 1 / s);
  for (let i = 0; i < d.n; i++) {
    for (let f = 0; f < nf; f++) {
      const z = (d.x[i * nf + f] - norm.mean[f]) * inv[f];
      out[i * nf + f] = z > norm.clip ? norm.clip : z < -norm.clip ? -norm.clip : z === z ? z : 0;
    }
  }
  return out;
}
