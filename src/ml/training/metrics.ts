// Scores of predictions against labels on a held-out set: MSE, R^2 (1 - MSE / variance of the
// labels), the correlation of prediction and label, directional accuracy (sign agreement over
// samples with a non-zero move and a non-zero prediction) and the same for the 10 % of samples
// with the largest |prediction|. Values are rounded to 6 decimals for the model file.

export interface Metrics {
  samples: number;
  mse: number;
  r2: number;
  corr: number;
  /** Sign agreement over samples with y != 0 and prediction != 0 (null when there are none). */
  directionalAccuracy: number | null;
  /** Samples the directional accuracy counts. */
  directionalSamples: number;
  /** Directional accuracy over the 10 % of samples with the largest |prediction|. */
  topDecileDirectionalAccuracy: number | null;
  /** Mean label x sign(prediction) over that decile, ticks (the move caught per signal). */
  topDecileMeanSignedMove: number | null;
}

/** Rounded to 6 decimals; + 0 turns "-0" into "0" in JSON and reports. */
export const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;
const round6n = (x: number | null) => (x === null ? null : round6(x));

/** Metrics of predictions `p` against labels `y`. */
export function evaluate(p: Float64Array, y: Float64Array): Metrics {
  const n = y.length;
  let my = 0,
    mp = 0;
  for (let i = 0; i < n; i++) {
    my += y[i];
    mp += p[i];
  }
  my /= n;
  mp /= n;
  let se = 0,
    vy = 0,
    vp = 0,
    cov = 0,
    hit = 0,
    cnt = 0;
  for (let i = 0; i < n; i++) {
    const e = p[i] - y[i];
    se += e * e;
    vy += (y[i] - my) ** 2;
    vp += (p[i] - mp) ** 2;
    cov += (y[i] - my) * (p[i] - mp);
    if (y[i] !== 0 && p[i] !== 0) {
      cnt++;
      if (y[i] > 0 === p[i] > 0) hit++;
    }
  }
  // top decile by |prediction| (ties broken by index: deterministic)
  const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => Math.abs(p[b]) - Math.abs(p[a]) || a - b);
  const top = idx.slice(0, Math.floor(n / 10));
  let th = 0,
    tc = 0,
    ts = 0;
  for (const i of top) {
    const s = p[i] > 0 ? 1 : p[i] < 0 ? -1 : 0;
    ts += s * y[i];
    if (y[i] !== 0 && s !== 0) {
      tc++;
      if (y[i] > 0 === s > 0) th++;
    }
  }
  return {
    samples: n,
    mse: round6(se / n),
    r2: round6(1 - se / vy),
    corr: round6(vp > 0 ? cov / Math.sqrt(vy * vp) : 0),
    directionalAccuracy: round6n(cnt > 0 ? hit / cnt : null),
    directionalSamples: cnt,
    topDecileDirectionalAccuracy: round6n(tc > 0 ? th / tc : null),
    topDecileMeanSignedMove: round6n(top.length > 0 ? ts / top.length : null),
  };
}
