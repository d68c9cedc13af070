// Queue-position models: how far our resting order advances in its price level's queue when
// displayed size at that level disappears WITHOUT a trade (a market cancel). Trades are handled by
// the exchange itself (they always consume the queue ahead first). Small interchangeable pieces
// behind one interface, as in hftbacktest's queue models.

export interface QueueModel {
  /**
   * New quantity ahead of our order after the displayed level at our price shrank from `before`
   * to `after` WITHOUT a trade. `front` is the quantity ahead before the change (0 <= front <=
   * before). The result is in [0, after]. Must not allocate.
   */
  onCancel(front: number, before: number, after: number): number;
  /**
   * onCancel in place on `fronts[i]`: what the exchange calls on its hot path. Only integers
   * and references cross the call, so V8 never boxes a fractional front into a heap number,
   * whether or not it inlines the call.
   */
  onCancelAt(fronts: Float64Array, i: number, before: number, after: number): void;
  readonly name: string;
}

/**
 * hftbacktest's probabilistic queue model (ProbQueueModel with PowerProbQueueFunc, f(x) = x^n).
 * With back = before - front and chg = before - after, the probability that the cancelled size
 * came from behind us is prob = f(back) / (f(back) + f(front)) (1 when that is not finite, i.e.
 * 0/0); the part not taken from behind comes from ahead of us, and whatever the back cannot
 * absorb comes from the front too:
 *   front' = front - (1 - prob) * chg + min(back - prob * chg, 0), clamped to [0, after].
 * n = 1 splits a cancel pro rata between the queue ahead and behind; a large n says cancels come
 * almost surely from the longer side. prob is evaluated as 1 / (1 + (front/back)^n), which is the
 * same number but does not overflow to Infinity/Infinity for large sizes or large n (hftbacktest's
 * direct form would fall back to prob = 1 there; this form gives the right limit).
 */
export class PowerQueueModel implements QueueModel {
  readonly name = 'power';
  readonly n: number;
  private readonly one = new Float64Array(1);

  constructor(n = 2) {
    if (!Number.isFinite(n) || n <= 0) throw new Error(`power queue model exponent must be > 0, got ${n}`);
    this.n = n;
  }

  /** Probability that a cancel at the level came from behind our order (NaN, i.e. 0/0, -> 1). */
  prob(front: number, back: number): number {
    const p = 1 / (1 + Math.pow(front / back, this.n));
    return p === p ? p : 1;
  }

  onCancel(front: number, before: number, after: number): number {
    const one = this.one;
    one[0] = front;
    this.onCancelAt(one, 0, before, after);
    return one[0];
  }

  onCancelAt(fronts: Float64Array, i: number, before: number, after: number): void {
    const front = fronts[i];
    const chg = before - after;
    if (!(chg > 0)) {
      if (front > after) fronts[i] = after;
      return;
    }
    const back = before - front;
    let prob = 1 / (1 + Math.pow(front / back, this.n));
    if (prob !== prob) prob = 1; // 0/0: empty level
    let f = front - (1 - prob) * chg;
    const rest = back - prob * chg;
    if (rest < 0) f += rest;
    // one store per branch: a phi of this float with the tagged `after` would make V8 box it
    if (f > after) fronts[i] = after;
    else if (f > 0) fronts[i] = f;
    else fronts[i] = 0;
  }
}

/** Conservative model: cancels never advance us; the queue ahead only shrinks by trades. */
export class RiskAverseQueueModel implements QueueModel {
  readonly name = 'risk_averse';

  onCancel(front: number, _before: number, after: number): number {
    return front < after ? front : after;
  }

  onCancelAt(fronts: Float64Array, i: number, _before: number, after: number): void {
    if (fronts[i] > after) fronts[i] = after;
  }
}

export type QueueModelName = 'power' | 'risk_averse';

export function queueModelFromName(name: QueueModelName | string, power = 2): QueueModel {
  if (name === 'power') return new PowerQueueModel(power);
  if (name === 'risk_averse') return new RiskAverseQueueModel();
  throw new Error(`unknown queue model "${name}" (expected "power" or "risk_averse")`);
}
