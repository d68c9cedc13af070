// Incremental market features, updated on every market-data event after the book has applied
// it. Everything is O(1) per event and allocation-free (hot-path rule 2): numeric state in fixed Float64Arrays
// (read through getters), one fixed Float64Array feature vector for the model, one fixed ring
// of VPIN buckets. Only the state that the next event needs is updated per event; the outputs
// that are a plain function of it (microprice, the imbalances, ofiNorm, momentum, the
// volatility, the vector) are computed when read, by the same expressions from the same doubles,
// so they are the values an eager update would have stored. The engine reads the volatility only
// when it requotes; between requotes it compares the time with the one until which the sum
// behind it stays in a band (volatilityStandInto).
//
// Units: prices in ticks, sizes in contracts, time in exchange nanoseconds (EV_TS). Decays use
// the event's exchange time. Those of values that change at most events (OFI, the traded
// volumes, the depth average) are applied at the next event and cost no exp() when several
// events share a timestamp. The volatility's sum Q and momentum change only when the mid does,
// so they are kept as of the last mid change and decayed over the whole interval when read or
// changed: one exp per mid change, none per event. (exp(-a) exp(-b) and exp(-(a + b)) differ in
// the last bits: the values are those of the definitions below, computed this way.)
//
// Definitions
// - mid = (bestBid + bestAsk) / 2; spread = bestAsk - bestBid.
// - microprice = (bestBid * askSz + bestAsk * bidSz) / (bidSz + askSz): leans toward the side
//   whose queue is thinner, i.e. the side likely to be traded through next.
// - imbalanceL1 = (bidSz - askSz) / (bidSz + askSz), in [-1, 1].
// - imbalanceL5: the same over the 5 price ticks from each best (best, best -/+ 1, ... 4; empty
//   ticks count zero), level k weighted exp(-k/2) = 1, .61, .37, .22, .14.
// - OFI (Cont, Kukanov, Stoikov 2014): per book change
//     e = [Pb >= Pb'] qb - [Pb <= Pb'] qb' - [Pa <= Pa'] qa + [Pa >= Pa'] qa'
//   (primed = before the event; a side missing before or after contributes 0), summed with
//   exponential time decay exp(-dt / ofiTau). `ofiNorm` divides by the recent average best
//   depth (bidSz + askSz) / 2, a time-weighted EWMA with depthTau: "net best queues of flow".
// - tradeImbalance = (B - S) / (B + S), B, S = buy and sell traded volume with the same decay
//   as OFI. A trade resting on ASK is buyer-initiated (EV_SIDE is the passive side).
// - volatility: realised volatility of the mid in ticks per sqrt(second). Q = sum of squared
//   mid changes decayed with exp(-dt / volHorizon), so Q / horizon_s estimates the variance
//   rate; volatility = sqrt(max(Q / horizon_s, volFloor^2)). Q starts at volInit^2 * horizon_s
//   so the estimate starts at volInit and hands over to the data within about a horizon.
// - VPIN (Easley, Lopez de Prado, O'Hara): traded volume is cut into buckets of exactly
//   vpinBucketVolume contracts (a trade straddling a boundary is split); each full bucket gives
//   |buy - sell| / bucketVolume; vpin is the mean over the last vpinBuckets full buckets (0
//   until the first bucket fills; `vpinFilled` says how many there are). Trades are classified
//   exactly from the aggressor side in the feed, not by bulk volume classification.
// - momentum = mid - EWMA(mid), the EWMA time-weighted with momentumTau (the mid in force over
//   each interval is what enters it), in ticks.
//
// While a side of the book is empty the book-derived values keep their last two-sided value
// (`twoSided` is false); before the first two-sided book they are 0. Every vector entry is a
// finite number at all times.

import { ASK, BID, EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_TS, MD_TRADE, NS_PER_S } from '../core/events.ts';
import { NO_PRICE, type DenseBook } from './dense-book.ts';
import {
  L5_REACH,
  S_MID,
  S_SPREAD,
  S_OFI,
  S_VPIN,
  S_DEPTH_AVG,
  S_BUY,
  S_SELL,
  S_EVENTS,
  S_LAST_TS,
  S_PREV_BID,
  S_PREV_ASK,
  S_PREV_BID_SZ,
  S_PREV_ASK_SZ,
  S_W_BID,
  S_W_ASK,
  S_DEPTH_L1,
  S_VOL_Q,
  S_MID_T,
  S_MID_MOVES,
  S_X,
  S_MOM,
  S_BUCKET_BUY,
  S_BUCKET_SELL,
  S_TS_BID,
  S_TS_ASK,
  S_TS_BID_SZ,
  S_TS_ASK_SZ,
  S_TS_W_BID,
  S_TS_W_ASK,
  S_COUNT,
  K_INV_OFI_TAU,
  K_INV_VOL_H,
  K_INV_MOM_TAU,
  K_INV_DEPTH_TAU,
  K_VOL_H_S,
  K_VOL_FLOOR_SQ,
  K_BUCKET_VOLUME,
  K_COUNT,
} from './feature-slots.ts';

// imbalanceL5 weights exp(-k/2), k = 0..4
const W0 = 1;
const W1 = Math.exp(-0.5);
const W2 = Math.exp(-1);
const W3 = Math.exp(-1.5);
const W4 = Math.exp(-2);

// ---- the model's feature vector: stationary, free of the price level ----
export const F_MICRO_OFFSET = 0; // microprice - mid, ticks
export const F_SPREAD = 1; // ticks
export const F_IMB_L1 = 2; // [-1, 1]
export const F_IMB_L5 = 3; // [-1, 1]
export const F_OFI = 4; // decayed OFI / average best depth
export const F_TRADE_IMB = 5; // [-1, 1]
export const F_VOL = 6; // ticks per sqrt(s)
export const F_VPIN = 7; // [0, 1]
export const F_MOMENTUM = 8; // ticks
export const FEATURE_COUNT = 9;

export const FEATURE_NAMES: readonly string[] = Object.freeze([
  'micro_offset',
  'spread',
  'imbalance_l1',
  'imbalance_l5',
  'ofi_norm',
  'trade_imbalance',
  'volatility',
  'vpin',
  'momentum',
]);

export interface FeatureOptions {
  /** Time constant of the OFI and trade-flow decay, ns. */
  ofiTauNs?: number;
  /** Horizon of the realised volatility, ns. */
  volHorizonNs?: number;
  /** Contracts per VPIN bucket. */
  vpinBucketVolume?: number;
  /** Number of full buckets VPIN averages over. */
  vpinBuckets?: number;
  /** Time constant of the mid EWMA that momentum is measured against, ns. */
  momentumTauNs?: number;
  /** Time constant of the average best depth that normalises OFI, ns. */
  depthTauNs?: number;
  /** Volatility before any data, ticks per sqrt(s). */
  volInit?: number;
  /** Lower bound of the reported volatility, ticks per sqrt(s). */
  volFloor?: number;
}

/**
 * Defaults for ES (tick 0.25, best queues of hundreds of contracts, trades of a few
 * contracts, roughly 1 % daily volatility = 200 ticks over a 23,400 s session, about
 * 1.3 ticks per sqrt(s)).
 */
export const FEATURE_DEFAULTS: Readonly<Required<FeatureOptions>> = Object.freeze({
  ofiTauNs: 1 * NS_PER_S,
  volHorizonNs: 10 * NS_PER_S,
  vpinBucketVolume: 500, // several seconds of ES volume per bucket
  vpinBuckets: 50,
  momentumTauNs: 5 * NS_PER_S,
  depthTauNs: 10 * NS_PER_S,
  volInit: 1,
  volFloor: 0.05,
});

/**
 * a[i] = expm1(-a[i]) for a[i] >= 0, in place. Between two events x = dt / tau is usually tiny
 * (microseconds against seconds), where a 5-term series is exact to double precision (error <
 * x^6 / 720 < 2e-15 for x < 0.01) and far cheaper than Math.expm1, which dominated the per-event
 * cost. In a slot, so only integers cross the call (hot-path rules 3 and 7: not inlined on the
 * model's path, a double argument cost 64 bytes per event in the bench's allocation section).
 */
function expm1NegAt(a: Float64Array, i: number): void {
  const x = a[i];
  a[i] = x < 0.01 ? -x * (1 - x * (0.5 - x * (0.16666666666666666 - x * (0.041666666666666664 - x * 0.008333333333333333)))) : Math.expm1(-x);
}

/**
 * a[i] = exp(-a[i]) for a[i] >= 0, in place: 1 + the series of expm1NegAt where it is exact
 * (relative error ~1e-16), Math.exp beyond, which stays exact relative to its value however long
 * the interval (1 + expm1 would not: at x = 20 its absolute error is 5e-8 of the result).
 * The series is written out again rather than calling expm1NegAt: that call, and a shared
 * helper for the decay since the last mid change, each changed how V8 inlined onEvent, and the
 * 1M-event loop of features.test.ts then allocated (8 GCs).
 */
function expNegAt(a: Float64Array, i: number): void {
  const x = a[i];
  a[i] = x < 0.01 ? 1 - x * (1 - x * (0.5 - x * (0.16666666666666666 - x * (0.041666666666666664 - x * 0.008333333333333333)))) : Math.exp(-x);
}

/**
 * What an extractor computes: every feature ('all'), or only the volatility and the mid
 * ('volatility': what the market maker reads without a model; a backtest without the model reads
 * nothing else, and skips the rest of the per-event work). The volatility is the same double in
 * both: it depends on nothing else.
 */
export type FeatureScope = 'all' | 'volatility';

export class FeatureExtractor {
  readonly opts: Readonly<Required<FeatureOptions>>;
  readonly scope: FeatureScope;
  /** Both sides of the book present at the last event. */
  twoSided = false;
  /** At least one two-sided book seen since construction/reset. */
  ready = false;
  /** Full VPIN buckets in the average (at most vpinBuckets). */
  vpinFilled = 0;

  private readonly s = new Float64Array(S_COUNT);
  private readonly vec = new Float64Array(FEATURE_COUNT);
  private readonly k = new Float64Array(K_COUNT);
  private readonly scratch = new Float64Array(1);
  private readonly buckets: Float64Array;
  private bucketHead = 0;
  private hasTs = false;
  /** scope === 'all' (a boolean field: tested on every event). */
  private readonly all: boolean;

  // ---- outputs, as of the last event ----
  /** Mid price, ticks (last two-sided value). */
  get mid(): number {
    return this.s[S_MID];
  }
  /** Size-weighted microprice, ticks. */
  get microprice(): number {
    if (!this.all) this.notComputed('microprice');
    const s = this.s;
    if (!this.ready) return 0;
    const bs = s[S_TS_BID_SZ],
      as = s[S_TS_ASK_SZ];
    return (s[S_TS_BID] * as + s[S_TS_ASK] * bs) / (bs + as);
  }
  /** Spread, ticks. */
  get spread(): number {
    if (!this.all) this.notComputed('spread');
    return this.s[S_SPREAD];
  }
  get imbalanceL1(): number {
    if (!this.all) this.notComputed('imbalanceL1');
    const s = this.s;
    if (!this.ready) return 0;
    const bs = s[S_TS_BID_SZ],
      as = s[S_TS_ASK_SZ];
    return (bs - as) / (bs + as);
  }
  get imbalanceL5(): number {
    if (!this.all) this.notComputed('imbalanceL5');
    const s = this.s;
    const w = s[S_TS_W_BID] + s[S_TS_W_ASK];
    return w > 0 ? (s[S_TS_W_BID] - s[S_TS_W_ASK]) / w : 0;
  }
  /** Decayed OFI, contracts. */
  get ofi(): number {
    if (!this.all) this.notComputed('ofi');
    return this.s[S_OFI];
  }
  /** ofi / average best depth. */
  get ofiNorm(): number {
    if (!this.all) this.notComputed('ofiNorm');
    const s = this.s;
    return s[S_DEPTH_AVG] > 0 ? s[S_OFI] / s[S_DEPTH_AVG] : 0;
  }
  get tradeImbalance(): number {
    if (!this.all) this.notComputed('tradeImbalance');
    const s = this.s;
    const tv = s[S_BUY] + s[S_SELL];
    return tv > 1e-12 ? (s[S_BUY] - s[S_SELL]) / tv : 0;
  }
  /** Realised volatility of the mid, ticks per sqrt(second) (computed when read, from the sum Q). */
  get volatility(): number {
    this.sumNow(this.scratch, 0);
    this.sigmaOf(this.scratch, 0, this.scratch, 0);
    return this.scratch[0];
  }
  /** out[i] = the volatility, for the hot path (hot-path rule 3). */
  writeVolatility(out: Float64Array, i: number): void {
    this.sumNow(out, i);
    this.sigmaOf(out, i, out, i);
  }
  /**
   * out[i] = the decayed sum of squared mid changes behind the volatility (Q), as of the last
   * event; the volatility never falls as Q grows. (Slots, here and below: hot-path rule 3, on the
   * engine's requote path.)
   */
  writeVolatilitySum(out: Float64Array, i: number): void {
    this.sumNow(out, i);
  }
  /**
   * Until when the sum stays at or above at[lo]: at[i] = the mid changes so far, at[i + 1] = an
   * exchange time up to which Q >= at[lo] holds (volatilityStands). Between mid changes Q only
   * decays, Q(t) = Q_k exp(-(t - t_k) / H), so that time is t_k + H ln(Q_k / at[lo]), taken 1e-9
   * of a horizon early: the computed Q is within a few ulps of the exact one, so it is surely
   * >= at[lo] up to there (and a requote after it decides again, as it would have anyway).
   */
  volatilityStandInto(at: Float64Array, lo: number, i: number): void {
    const s = this.s;
    at[i] = s[S_MID_MOVES];
    const floor = at[lo];
    const q = s[S_VOL_Q];
    let until = s[S_LAST_TS]; // Q now is the bound itself when nothing lower was found
    if (!(floor > 0)) until = Infinity;
    else if (q > floor) {
      const t = s[S_MID_T] + (Math.log(q / floor) - 1e-9) * this.opts.volHorizonNs;
      if (t > until) until = t;
    }
    at[i + 1] = until;
  }
  /** No mid change since volatilityStandInto(at, lo, i), and the last event no later than its time. */
  volatilityStands(at: Float64Array, i: number): boolean {
    const s = this.s;
    return s[S_MID_MOVES] === at[i] && s[S_LAST_TS] <= at[i + 1];
  }
  /** out[i] = Q decayed from its last change to the last event. */
  private sumNow(out: Float64Array, i: number): void {
    const s = this.s;
    s[S_X] = (s[S_LAST_TS] - s[S_MID_T]) * this.k[K_INV_VOL_H];
    expNegAt(s, S_X);
    out[i] = s[S_VOL_Q] * s[S_X];
  }
  /** at[i + 1] = the volatility for the sum at[i]. */
  volatilityFor(at: Float64Array, i: number): void {
    this.sigmaOf(at, i, at, i + 1);
  }
  /** The volatility's one definition: out[j] = sqrt(max(Q / horizon_s, volFloor^2)) for Q = q[i]. */
  private sigmaOf(q: Float64Array, i: number, out: Float64Array, j: number): void {
    const rate = q[i] / this.k[K_VOL_H_S];
    const floor = this.k[K_VOL_FLOOR_SQ];
    out[j] = Math.sqrt(rate > floor ? rate : floor);
  }
  get vpin(): number {
    if (!this.all) this.notComputed('vpin');
    return this.s[S_VPIN];
  }
  /** mid - EWMA(mid), ticks. */
  get momentum(): number {
    if (!this.all) this.notComputed('momentum');
    if (!this.ready) return 0;
    const s = this.s;
    s[S_X] = (s[S_LAST_TS] - s[S_MID_T]) * this.k[K_INV_MOM_TAU];
    expNegAt(s, S_X);
    return s[S_MOM] * s[S_X];
  }
  /** Time-weighted average of (bidSz + askSz) / 2, contracts. */
  get depthAvg(): number {
    if (!this.all) this.notComputed('depthAvg');
    return this.s[S_DEPTH_AVG];
  }
  /** Decayed buyer-initiated volume, contracts. */
  get buyVolume(): number {
    if (!this.all) this.notComputed('buyVolume');
    return this.s[S_BUY];
  }
  /** Decayed seller-initiated volume, contracts. */
  get sellVolume(): number {
    if (!this.all) this.notComputed('sellVolume');
    return this.s[S_SELL];
  }
  /** Events seen since construction/reset. */
  get events(): number {
    return this.s[S_EVENTS];
  }

  /**
   * The model's input as of the last event: FEATURE_COUNT values, named by FEATURE_NAMES. The
   * same array on every read, filled at the read: read it again after the next event.
   */
  get values(): Float64Array {
    if (!this.all) this.notComputed('values');
    const v = this.vec;
    v[F_MICRO_OFFSET] = this.microprice - this.s[S_MID];
    v[F_SPREAD] = this.s[S_SPREAD];
    v[F_IMB_L1] = this.imbalanceL1;
    v[F_IMB_L5] = this.imbalanceL5;
    v[F_OFI] = this.ofiNorm;
    v[F_TRADE_IMB] = this.tradeImbalance;
    this.writeVolatility(v, F_VOL);
    v[F_VPIN] = this.s[S_VPIN];
    v[F_MOMENTUM] = this.momentum;
    return v;
  }

  constructor(opts: FeatureOptions = {}, scope: FeatureScope = 'all') {
    if (scope !== 'all' && scope !== 'volatility') throw new Error(`feature scope must be "all" or "volatility", got ${String(scope)}`);
    this.scope = scope;
    this.all = scope === 'all';
    const o = { ...FEATURE_DEFAULTS };
    for (const k of Object.keys(FEATURE_DEFAULTS) as (keyof FeatureOptions)[]) {
      const v = opts[k];
      if (v !== undefined) o[k] = v;
    }
    for (const k of ['ofiTauNs', 'volHorizonNs', 'vpinBucketVolume', 'momentumTauNs', 'depthTauNs'] as const) {
      if (!(Number.isFinite(o[k]) && o[k] > 0)) throw new Error(`feature option ${k} must be a positive number, got ${o[k]}`);
    }
    if (!(Number.isInteger(o.vpinBuckets) && o.vpinBuckets >= 1)) throw new Error(`feature option vpinBuckets must be an integer >= 1, got ${o.vpinBuckets}`);
    if (!(Number.isFinite(o.volInit) && o.volInit >= 0)) throw new Error(`feature option volInit must be >= 0, got ${o.volInit}`);
    if (!(Number.isFinite(o.volFloor) && o.volFloor >= 0)) throw new Error(`feature option volFloor must be >= 0, got ${o.volFloor}`);
    this.opts = Object.freeze(o);
    const k = this.k;
    k[K_INV_OFI_TAU] = 1 / o.ofiTauNs;
    k[K_INV_VOL_H] = 1 / o.volHorizonNs;
    k[K_INV_MOM_TAU] = 1 / o.momentumTauNs;
    k[K_INV_DEPTH_TAU] = 1 / o.depthTauNs;
    k[K_VOL_H_S] = o.volHorizonNs / NS_PER_S;
    k[K_VOL_FLOOR_SQ] = o.volFloor * o.volFloor;
    k[K_BUCKET_VOLUME] = o.vpinBucketVolume;
    this.buckets = new Float64Array(o.vpinBuckets);
    this.reset();
  }

  private notComputed(name: string): never {
    throw new Error(`feature ${name} is not computed: this FeatureExtractor's scope is 'volatility' (only mid and volatility)`);
  }

  reset(): void {
    const s = this.s;
    s.fill(0);
    s[S_PREV_BID] = s[S_PREV_ASK] = NO_PRICE;
    s[S_VOL_Q] = this.opts.volInit * this.opts.volInit * this.k[K_VOL_H_S];
    this.vec.fill(0);
    this.twoSided = this.ready = this.hasTs = false;
    this.vpinFilled = 0;
    this.bucketHead = 0;
    this.buckets.fill(0);
  }

  /**
   * onEvent for the common case of the volatility scope, small enough for V8 to inline into its
   * caller: an event that left a two-sided book's mid where it was moves only the event count and
   * the clock (what onEvent does then). Returns false, changing nothing, for any other event:
   * call onEvent.
   */
  onQuietEvent(bb: number, ba: number, data: Float64Array, off: number): boolean {
    if (this.all || !this.ready || !this.twoSided || bb === NO_PRICE || ba === NO_PRICE || (bb + ba) * 0.5 !== this.s[S_MID]) return false;
    this.countEvents(1, data, off);
    return true;
  }

  /**
   * All that events which leave a two-sided book's mid where it was change in the volatility
   * scope: the event count and the clock. n events in time order, the last of them at data[off].
   */
  countEvents(n: number, data: Float64Array, off: number): void {
    const s = this.s;
    s[S_EVENTS] += n;
    const ts = data[off + EV_TS];
    if (ts > s[S_LAST_TS]) s[S_LAST_TS] = ts;
  }

  /**
   * Updates the features of its scope from one event record at data[off], with the touch after
   * it (bb, ba); `book` has already applied it (the 'all' scope reads its levels; the volatility
   * scope reads only the touch, so its book may be empty: Trader's feed 'top').
   */
  onEvent(bb: number, ba: number, book: DenseBook, data: Float64Array, off: number): void {
    const s = this.s;
    const k = this.k;
    const ts = data[off + EV_TS];
    s[S_EVENTS]++;

    // 1. Decay everything to this event's time (the state held since the last event).
    if (!this.hasTs) {
      this.hasTs = true;
      s[S_LAST_TS] = ts;
      s[S_MID_T] = ts;
    } else if (ts > s[S_LAST_TS]) {
      const dt = ts - s[S_LAST_TS];
      s[S_LAST_TS] = ts;
      if (this.all) {
        s[S_X] = dt * k[K_INV_OFI_TAU];
        expm1NegAt(s, S_X);
        const d = 1 + s[S_X];
        s[S_OFI] *= d;
        s[S_BUY] *= d;
        s[S_SELL] *= d;
      }
      if (this.all && this.ready) {
        s[S_X] = dt * k[K_INV_DEPTH_TAU];
        expm1NegAt(s, S_X);
        s[S_DEPTH_AVG] -= s[S_X] * (s[S_DEPTH_L1] - s[S_DEPTH_AVG]);
      }
    }

    // 2. Trades: flow imbalance and VPIN buckets.
    if (this.all && data[off + EV_KIND] === MD_TRADE) {
      const side = data[off + EV_SIDE];
      const qty = data[off + EV_QTY];
      if (side === ASK) s[S_BUY] += qty;
      else s[S_SELL] += qty;
      this.addToBuckets(side, qty);
    }

    // 3. Book: the top-of-book values (and OFI and the weighted depths).
    // A DenseBook's touch holds size, so both sides there means a positive depth (the volatility
    // scope reads no size).
    const bs = this.all && bb !== NO_PRICE ? book.bids[bb & book.mask] : 0;
    const as = this.all && ba !== NO_PRICE ? book.asks[ba & book.mask] : 0;
    this.twoSided = bb !== NO_PRICE && ba !== NO_PRICE && (!this.all || bs + as > 0);
    if (this.all) {
      // OFI from the change of the best queues, and the 5-tick weighted depths.
      const side = data[off + EV_SIDE];
      const price = data[off + EV_PRICE];
      const pb = s[S_PREV_BID];
      const pa = s[S_PREV_ASK];
      let e = 0;
      if (bb !== NO_PRICE && pb !== NO_PRICE) {
        if (bb >= pb) e += bs;
        if (bb <= pb) e -= s[S_PREV_BID_SZ];
      }
      if (ba !== NO_PRICE && pa !== NO_PRICE) {
        if (ba <= pa) e -= as;
        if (ba >= pa) e += s[S_PREV_ASK_SZ];
      }
      s[S_OFI] += e;

      // The 5-tick weighted depths change only when the best moved or the event touched them.
      // (Written out, not helpers returning a double: hot-path rule 7.)
      if (bb !== pb || (side === BID && price >= bb - L5_REACH)) {
        const l = book.bids,
          m = book.mask;
        s[S_W_BID] = bb === NO_PRICE ? 0 : W0 * l[bb & m] + W1 * l[(bb - 1) & m] + W2 * l[(bb - 2) & m] + W3 * l[(bb - 3) & m] + W4 * l[(bb - 4) & m];
      }
      if (ba !== pa || (side === ASK && price <= ba + L5_REACH)) {
        const l = book.asks,
          m = book.mask;
        s[S_W_ASK] = ba === NO_PRICE ? 0 : W0 * l[ba & m] + W1 * l[(ba + 1) & m] + W2 * l[(ba + 2) & m] + W3 * l[(ba + 3) & m] + W4 * l[(ba + 4) & m];
      }

      s[S_PREV_BID] = bb;
      s[S_PREV_ASK] = ba;
      s[S_PREV_BID_SZ] = bs;
      s[S_PREV_ASK_SZ] = as;
    }
    if (this.twoSided) {
      const mid = (bb + ba) * 0.5;
      const depth = (bs + as) * 0.5;
      if (!this.ready) {
        this.ready = true;
        s[S_MOM] = 0;
        s[S_DEPTH_AVG] = depth;
      } else if (mid !== s[S_MID]) {
        const dm = mid - s[S_MID];
        this.sumNow(s, S_VOL_Q);
        s[S_VOL_Q] += dm * dm;
        if (this.all) {
          // mid - EWMA decays while the mid stands; a mid change adds to it in full
          s[S_X] = (s[S_LAST_TS] - s[S_MID_T]) * k[K_INV_MOM_TAU];
          expNegAt(s, S_X);
          s[S_MOM] = s[S_MOM] * s[S_X] + dm;
        }
        s[S_MID_T] = s[S_LAST_TS];
        s[S_MID_MOVES]++;
      }
      s[S_MID] = mid;
      if (this.all) {
        s[S_DEPTH_L1] = depth;
        s[S_SPREAD] = ba - bb;
        // What microprice and the imbalances are computed from when read.
        s[S_TS_BID] = bb;
        s[S_TS_ASK] = ba;
        s[S_TS_BID_SZ] = bs;
        s[S_TS_ASK_SZ] = as;
        s[S_TS_W_BID] = s[S_W_BID];
        s[S_TS_W_ASK] = s[S_W_ASK];
      }
    }
  }

  private addToBuckets(side: number, qty: number): void {
    const s = this.s;
    const cap = this.k[K_BUCKET_VOLUME];
    let q = qty;
    while (q > 0) {
      const room = cap - s[S_BUCKET_BUY] - s[S_BUCKET_SELL];
      const take = q < room ? q : room;
      if (side === ASK) s[S_BUCKET_BUY] += take;
      else s[S_BUCKET_SELL] += take;
      q -= take;
      if (take < room) break;
      // bucket full
      const d = s[S_BUCKET_BUY] - s[S_BUCKET_SELL];
      this.buckets[this.bucketHead] = (d < 0 ? -d : d) / cap;
      this.bucketHead = this.bucketHead + 1 === this.buckets.length ? 0 : this.bucketHead + 1;
      if (this.vpinFilled < this.buckets.length) this.vpinFilled++;
      s[S_BUCKET_BUY] = s[S_BUCKET_SELL] = 0;
      // Exact mean over the ring (only on a full bucket: no drift from running sums).
      let sum = 0;
      for (let i = 0; i < this.vpinFilled; i++) sum += this.buckets[i];
      s[S_VPIN] = sum / this.vpinFilled;
    }
  }
}
