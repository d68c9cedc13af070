// Untrained signal baselines: one raw microstructure feature each, from the same feature vector
// the model sees, turned into ticks the simplest honest way. The feature is z-scored with the
// training normalisation and clamped to +-2, then
// multiplied by one scale: the least-squares slope through the origin of the label on that
// signal over the TRAINING samples only (sum(s*y) / sum(s^2)). So a baseline's prediction is an
// expected move in ticks like the MLP's, with one fitted number and no view of held-out data.
// The scale does not change a baseline's sign, so its directional accuracy is the raw signal's.
//
// "ofi-clamp" is the first baseline ever measured against the model, as it was measured:
// clamp(ofi_norm, +-2) read directly as ticks, nothing fitted. Its scale is far from the least-squares one (a worse MSE), yet the size
// of the shift matters to the strategy's P&L, so it is kept to compare backtests honestly.

import { F_IMB_L1, F_MICRO_OFFSET, F_OFI, FEATURE_NAMES } from '../../book/features.ts';
import { predictDataset, type Dataset } from './dataset.ts';
import type { Normalization } from './normalization.ts';
import type { Predictor } from '../inference/predictor.ts';

/** Baseline name -> the feature it reads, and whether it is z-scored and scaled (else raw). */
export const SIGNALS = {
  ofi: { feature: F_OFI, fitted: true },
  imbalance: { feature: F_IMB_L1, fitted: true },
  microprice: { feature: F_MICRO_OFFSET, fitted: true },
  'ofi-clamp': { feature: F_OFI, fitted: false },
} as const;
export type SignalName = keyof typeof SIGNALS;
export const SIGNAL_NAMES = Object.keys(SIGNALS) as SignalName[];
/** Clamp of the z-scored feature, in training standard deviations. */
export const SIGNAL_CLIP = 2;

/** A fitted baseline, as recorded in the model file (training.signalBaselines[name]). */
export interface SignalBaseline {
  feature: string;
  mean: number;
  std: number;
  clip: number;
  /** Ticks per unit of the clamped z-score. */
  scale: number;
}

/** Fits the baseline `name` on the training set `train` normalised by `norm`. */
export function fitSignalBaseline(name: SignalName, train: Dataset, norm: Normalization): SignalBaseline {
  const { feature: f, fitted } = SIGNALS[name];
  if (!fitted) return { feature: FEATURE_NAMES[f], mean: 0, std: 1, clip: SIGNAL_CLIP, scale: 1 };
  const unit: SignalBaseline = { feature: FEATURE_NAMES[f], mean: norm.mean[f], std: norm.std[f], clip: SIGNAL_CLIP, scale: 1 };
  const s = predictDataset(new SignalPredictor(name, unit, 0), train); // the clamped z-scores
  let sy = 0,
    ss = 0;
  for (let i = 0; i < train.n; i++) {
    sy += s[i] * train.y[i];
    ss += s[i] * s[i];
  }
  return { ...unit, scale: ss > 0 ? sy / ss : 0 };
}

function featureIndex(name: string): number {
  const f = FEATURE_NAMES.indexOf(name);
  if (f < 0) throw new Error(`signal baseline feature "${name}" is not one of ${FEATURE_NAMES.join(', ')}`);
  return f;
}

/** The fitted baseline `name` recorded in a model file's training section, checked. */
export function signalBaselineOf(training: Record<string, unknown>, name: SignalName): SignalBaseline {
  const all = training.signalBaselines as Record<string, Partial<SignalBaseline>> | undefined;
  const b = all?.[name];
  if (!b) throw new Error(`the model file has no training.signalBaselines.${name} (retrain with npm run train)`);
  for (const k of ['mean', 'std', 'clip', 'scale'] as const) {
    if (typeof b[k] !== 'number' || !Number.isFinite(b[k]))
      throw new Error(`training.signalBaselines.${name}.${k} must be a finite number, got ${JSON.stringify(b[k])}`);
  }
  if (b.std! <= 0 || b.clip! <= 0) throw new Error(`training.signalBaselines.${name}: std and clip must be > 0`);
  const want = FEATURE_NAMES[SIGNALS[name].feature];
  if (b.feature !== want) {
    throw new Error(`training.signalBaselines.${name}.feature is ${JSON.stringify(b.feature)}, expected "${want}"`);
  }
  return b as SignalBaseline;
}

/** A baseline as the engine's Predictor (for backtests that compare signals). */
export class SignalPredictor implements Predictor {
  readonly horizonNs: number;
  readonly version: string;
  private readonly f: number;
  /** mean, 1 / std, clip, scale: raw float64 slots (see MlpPredictor on V8 field boxing). */
  private readonly k = new Float64Array(4);

  constructor(name: SignalName, b: SignalBaseline, horizonNs: number) {
    this.f = featureIndex(b.feature);
    this.horizonNs = horizonNs;
    this.version = `signal-${name}-x${b.scale}`;
    this.k.set([b.mean, 1 / b.std, b.clip, b.scale]);
  }

  predict(features: Float64Array): number {
    const k = this.k;
    let z = (features[this.f] - k[0]) * k[1];
    if (z > k[2]) z = k[2];
    else if (z < -k[2]) z = -k[2];
    else if (z !== z) z = 0;
    return k[3] * z;
  }
}
