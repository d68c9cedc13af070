// The GLFT market maker's closed form and its online calibration, kept apart from the strategy
// so that tests can check each against hand-computed values. Units: depths and prices in ticks,
// inventory and order size in contracts, time in seconds.
//
// Guéant, Lehalle and Fernandez-Tapia, "Dealing with the inventory risk: a solution to the market
// making problem" (2013); Guéant, "Optimal market making" (2017): with trades reaching depth δ
// from the mid at intensity λ(δ) = A·e^(−kδ) per second, volatility σ (ticks per √s), risk
// aversion γ (and ξ = γ) and order size Δ, the asymptotic quotes are
//   c1 = ln(1 + ξΔ/k) / (ξΔ),  c2 = √( γ / (2AΔk) · (1 + ξΔ/k)^(k/(ξΔ) + 1) ),
//   half-spread = c1 + (Δ/2)·σ·c2,  skew = σ·c2,
//   bid = mid − (half-spread + skew·q),  ask = mid + (half-spread − skew·q).

/** out[0] = half-spread, out[1] = skew per contract (ticks), for intensity A·e^(−kδ), σ, γ and Δ. */
export function glftQuote(A: number, k: number, sigma: number, gamma: number, delta: number, out: Float64Array): void {
  const xd = gamma * delta;
  const c1 = Math.log(1 + xd / k) / xd;
  const c2 = Math.sqrt((gamma / (2 * A * delta * k)) * (1 + xd / k) ** (k / xd + 1));
  out[0] = c1 + (delta / 2) * sigma * c2;
  out[1] = sigma * c2;
}

/** The deepest depth the fit looks at, ticks. */
export const MAX_DEPTH = 20;

/**
 * The rolling record of the calibration: per interval, how deep trades reached from the mid at
 * the interval's start (whole ticks, rounded up: a trade at the touch with the mid half a tick
 * away reached depth 1) and how far the mid moved. Fixed-size rings: nothing allocated per event.
 */
export class IntensityWindow {
  /** reached[d] = intervals in the window whose trades reached depth >= d (d = 1..MAX_DEPTH). */
  readonly reached = new Float64Array(MAX_DEPTH + 1);
  private readonly depth: Int32Array;
  private readonly move: Float64Array;
  private head = 0;
  /** Intervals in the window (at most its capacity). */
  count = 0;

  constructor(readonly capacity: number) {
    this.depth = new Int32Array(capacity);
    this.move = new Float64Array(capacity);
  }

  /** Closes an interval: the depth its trades reached (0: none) and the mid's move over it. */
  push(depth: number, midMove: number): void {
    const d = depth > MAX_DEPTH ? MAX_DEPTH : depth;
    if (this.count === this.capacity) {
      const old = this.depth[this.head];
      for (let j = 1; j <= old; j++) this.reached[j]--;
    } else this.count++;
    this.depth[this.head] = d;
    this.move[this.head] = midMove;
    for (let j = 1; j <= d; j++) this.reached[j]++;
    this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
  }

  /** Standard deviation of the mid's move per interval over the window (ticks). */
  moveStd(): number {
    const n = this.count;
    if (n < 2) return NaN;
    let s = 0;
    for (let i = 0; i < n; i++) s += this.move[i];
    const m = s / n;
    let v = 0;
    for (let i = 0; i < n; i++) v += (this.move[i] - m) * (this.move[i] - m);
    return Math.sqrt(v / (n - 1));
  }
}

/**
 * Least-squares fit of ln λ(d) = ln A − k·d over the depths reached in at least one interval,
 * λ(d) = reached[d] / (count · intervalS). out[0] = A, out[1] = k; false (out unchanged) when the
 * fit is not usable: fewer than minIntervals intervals, fewer than 2 depths, k <= 0, or a
 * non-finite result.
 */
export function fitIntensity(w: IntensityWindow, intervalS: number, minIntervals: number, out: Float64Array): boolean {
  if (w.count < minIntervals) return false;
  const span = w.count * intervalS;
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let d = 1; d <= MAX_DEPTH; d++) {
    const c = w.reached[d];
    if (c <= 0) break;
    const y = Math.log(c / span);
    n++;
    sx += d;
    sy += y;
    sxx += d * d;
    sxy += d * y;
  }
  if (n < 2) return false;
  const slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const k = -slope;
  const A = Math.exp((sy - slope * sx) / n);
  if (!(k > 0) || !Number.isFinite(k) || !(A > 0) || !Number.isFinite(A)) return false;
  out[0] = A;
  out[1] = k;
  return true;
}
