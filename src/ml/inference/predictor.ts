// What the engine needs from a model: the expected mid move over a horizon from a feature vector.

export interface Predictor {
  /** Horizon of the prediction in ns of market time. */
  readonly horizonNs: number;
  /** Model version string (shown with every prediction). */
  readonly version: string;
  /** Expected mid-price move over the horizon, in ticks. Must not allocate. */
  predict(features: Float64Array): number;
}
