// Queue-position port (hftbacktest's QueueModel): where our resting order stands in its price
// level's queue, and how far each market event at that level moves it. The exchange owns the
// order and calls the model at each hook; the model owns only the quantity ahead of the order,
// `fronts[s]` for the order in slot s. Small interchangeable pieces behind one interface: the L2
// models here, the L3 FIFO model in l3-fifo-queue.ts, the choice by name in queue-model-factory.ts.
//
// Every hook works in place on `fronts[s]` and takes only integers (sizes, slots), so no
// fractional front crosses a call (hot-path rule 3).

// Our modifies (OM_MODIFY) need no hook of their own: a modify that loses priority (a new price or
// more contracts) enters the order again through onNewOrder, at the back of its (new) level, and
// one that keeps it (fewer contracts at the same price) leaves the model's state as it was, since
// the quantity ahead of an order does not depend on its own size.

export interface QueueModel {
  readonly name: string;
  /**
   * Our order in slot s starts resting (a new order, or a modify that lost its place); `levelQty`
   * is the displayed size at its price and side.
   */
  onNewOrder(fronts: Float64Array, s: number, levelQty: number): void;
  /**
   * A trade of `qty` contracts at our price on our side. The queue ahead is consumed first; what
   * passes the front of our order is left as a negative front for the fill check.
   */
  onTrade(fronts: Float64Array, s: number, qty: number): void;
  /**
   * The displayed size at our price and side changed from `before` to `after` without a trade.
   * Size added joins behind us, so the exchange calls this only when the size fell or our front
   * is past the new size (after a trade that our own earlier orders shared, say).
   */
  onDepthChange(fronts: Float64Array, s: number, before: number, after: number): void;
  /**
   * Fill check, after onTrade: how many whole contracts of the trade reached our order (>= 0).
   * The front is left at >= 0: we are at the head of the queue after being reached.
   */
  filled(fronts: Float64Array, s: number): number;
}

// Fronts from the power model are fractional; a fill is the whole number of contracts the trade
// reaches past the queue ahead (floor, with a tolerance for float error in the front).
const FILL_EPS = 1e-9;

/**
 * What every L2 model here shares: an order joins the back of its level (everything displayed
 * is ahead of it), trades consume the queue ahead first, and additions join behind it. Only what a
 * cancel does to the queue ahead differs (onDepthChange).
 */
abstract class L2QueueModel implements QueueModel {
  abstract readonly name: string;
  abstract onDepthChange(fronts: Float64Array, s: number, before: number, after: number): void;

  onNewOrder(fronts: Float64Array, s: number, levelQty: number): void {
    fronts[s] = levelQty;
  }

  onTrade(fronts: Float64Array, s: number, qty: number): void {
    fronts[s] -= qty;
  }

  filled(fronts: Float64Array, s: number): number {
    if (!(fronts[s] < 0)) return 0;
    const n = Math.floor(-fronts[s] + FILL_EPS);
    fronts[s] = 0;
    return n;
  }
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
export class PowerQueueModel extends L2QueueModel {
  readonly name = 'power';
  readonly n: number;
  /** n === 2 (the default): x^2 as x * x, the same double as Math.pow(x, 2) (fdlibm's pow returns
   * x * x for y = 2) without the call into the C library on every cancel at our level. */
  private readonly square: boolean;
  private readonly one = new Float64Array(1);

  constructor(n = 2) {
    super();
    if (!Number.isFinite(n) || n <= 0) throw new Error(`power queue model exponent must be > 0, got ${n}`);
    this.n = n;
    this.square = n === 2;
  }

  /** Probability that a cancel at the level came from behind our order (NaN, i.e. 0/0, -> 1). */
  prob(front: number, back: number): number {
    const p = 1 / (1 + Math.pow(front / back, this.n));
    return p === p ? p : 1;
  }

  /** The new front after a cancel (onDepthChange on a plain number: for tests and tools). */
  onCancel(front: number, before: number, after: number): number {
    const one = this.one;
    one[0] = front;
    this.onDepthChange(one, 0, before, after);
    return one[0];
  }

  onDepthChange(fronts: Float64Array, i: number, before: number, after: number): void {
    const front = fronts[i];
    const chg = before - after;
    if (!(chg > 0)) {
      if (front > after) fronts[i] = after;
      return;
    }
    const back = before - front;
    const x = front / back;
    let prob = 1 / (1 + (this.square ? x * x : Math.pow(x, this.n)));
    if (prob !== prob) prob = 1; // 0/0: empty level
    let f = front - (1 - prob) * chg;
    const rest = back - prob * chg;
    if (rest < 0) f += rest;
    // one store per branch, not one merged value (hot-path rule 4)
    if (f > after) fronts[i] = after;
    else if (f > 0) fronts[i] = f;
    else fronts[i] = 0;
  }
}

/** Conservative model: cancels never advance us; the queue ahead only shrinks by trades. */
export class RiskAverseQueueModel extends L2QueueModel {
  readonly name = 'risk_averse';

  onCancel(front: number, _before: number, after: number): number {
    return front < after ? front : after;
  }

  onDepthChange(fronts: Float64Array, i: number, _before: number, after: number): void {
    if (fronts[i] > after) fronts[i] = after;
  }
}

/** Models that need only the L2 feed (any market source). */
export const L2_QUEUE_MODELS = ['power', 'risk_averse'] as const;
/** hftbacktest's L3 FIFO model (l3-fifo-queue.ts): needs order-level (MBO) data. */
export const L3_QUEUE_MODEL = 'l3_fifo';
export const QUEUE_MODELS = [...L2_QUEUE_MODELS, L3_QUEUE_MODEL] as const;
export type QueueModelName = (typeof QUEUE_MODELS)[number];
