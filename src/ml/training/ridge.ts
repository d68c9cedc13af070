// Ridge linear regression on the normalised features (the "is the network worth it?" baseline):
// closed form (X'X + lambda I) beta = X'y with an unpenalised intercept, solved by Gaussian
// elimination. Ten unknowns: a hand-written solver is shorter than a linear-algebra dependency
// and keeps the arithmetic order fixed.

import { FEATURE_COUNT } from '../../book/features.ts';

/** Coefficients [intercept, one per feature] fitted on normalised rows `xn` and labels `y`. */
export function fitRidge(xn: Float64Array, y: Float64Array, lambda: number): Float64Array {
  const p = FEATURE_COUNT + 1; // intercept first
  const A = new Float64Array(p * p);
  const r = new Float64Array(p);
  const row = new Float64Array(p);
  const n = y.length;
  for (let i = 0; i < n; i++) {
    row[0] = 1;
    for (let f = 0; f < FEATURE_COUNT; f++) row[f + 1] = xn[i * FEATURE_COUNT + f];
    for (let a = 0; a < p; a++) {
      r[a] += row[a] * y[i];
      for (let b = 0; b < p; b++) A[a * p + b] += row[a] * row[b];
    }
  }
  for (let a = 1; a < p; a++) A[a * p + a] += lambda;
  // Gaussian elimination with partial pivoting
  for (let c = 0; c < p; c++) {
    let piv = c;
    for (let k = c + 1; k < p; k++) if (Math.abs(A[k * p + c]) > Math.abs(A[piv * p + c])) piv = k;
    if (piv !== c) {
      for (let k = 0; k < p; k++) [A[c * p + k], A[piv * p + k]] = [A[piv * p + k], A[c * p + k]];
      [r[c], r[piv]] = [r[piv], r[c]];
    }
    for (let k = c + 1; k < p; k++) {
      const f = A[k * p + c] / A[c * p + c];
      for (let j = c; j < p; j++) A[k * p + j] -= f * A[c * p + j];
      r[k] -= f * r[c];
    }
  }
  const beta = new Float64Array(p);
  for (let c = p - 1; c >= 0; c--) {
    let s = r[c];
    for (let j = c + 1; j < p; j++) s -= A[c * p + j] * beta[j];
    beta[c] = s / A[c * p + c];
  }
  return beta;
}

/** Predictions of `beta` (from fitRidge) on normalised rows `xn`. */
export function ridgePredict(beta: Float64Array, xn: Float64Array): Float64Array {
  const n = xn.length / FEATURE_COUNT;
  const p = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = beta[0];
    for (let f = 0; f < FEATURE_COUNT; f++) s += beta[f + 1] * xn[i * FEATURE_COUNT + f];
    p[i] = s;
  }
  return p;
}
