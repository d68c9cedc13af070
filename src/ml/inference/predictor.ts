// What the engine needs from a model: the expected mid move over a horizon from a feature vector.
// Imports nothing, so its constant is inlined where it is read (hot-path rule 6).

/** The model runs at most once per this much market time (ns), in a backtest and live alike. */
export const MODEL_EVERY_NS = 10e6;

export interface Predictor {
  /** Horizon of the prediction in ns of market time. */
  readonly horizonNs: number;
  /** Model version string (shown with every prediction). */
  readonly version: string;
  /** Expected mid-price move over the horizon, in ticks. Must not allocate. */
  predict(features: Float64Array): number;
}
