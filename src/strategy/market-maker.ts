// Market maker in the Avellaneda-Stoikov spirit, on an integer tick grid:
//   reservation r = mid + mlWeight x signal - half(skewFactor x position x sigma^2 x H)
//   half spread d = spreadMultiplier x max(0.5 tick, volSpreadFactor x sigma x sqrt(H))
//   bid = floor(r - d), ask = ceil(r + d), never crossing the opposite best (quotes are post-only)
// sigma is the mid's short-horizon volatility in ticks per sqrt(second), H = 1 s. half() rounds
// the inventory shift to the nearest half tick (halves away from zero), the grid the mid lives
// on: unrounded, floor/ceil moved a quote at the touch a whole tick for any shift above zero, so
// every skew_factor > 0 acted alike (position 1 already pulled the quote). Rounded, a quote
// leaves the touch once the shift is worth a quarter tick, at |position| >= 0.25 / (skew x
// sigma^2): later for a smaller skew_factor. With no inventory, no signal and calm markets the
// quotes sit at the touch. An order is never larger than what is left to the inventory limit
// (the position the order would create stays within it); near the session end only the side
// that reduces the position is quoted.

import { NO_PRICE } from '../book/dense-book.ts';
import { ASK, BID } from '../core/events.ts';
import {
  BAND_INSIDE,
  EPS,
  HORIZON_S,
  IN_COUNT,
  IN_SIGMA,
  IN_SIGMA_LO,
  IN_SIGNAL,
  IN_SIGNAL_TRIAL,
  MIN_SIGMA,
  Q_ASK,
  Q_ASK_RAW,
  Q_ASK_SIZE,
  Q_BID,
  Q_BID_RAW,
  Q_BID_SIZE,
  Q_COUNT,
  Q_SHIFT,
} from './quote-constants.ts';

export interface QuoteParams {
  orderSize: number;
  spreadMultiplier: number;
  skewFactor: number;
  inventoryLimit: number;
  volSpreadFactor: number;
  useML: boolean;
  mlWeight: number;
}

export { IN_SIGMA, IN_SIGMA_LO, IN_SIGNAL, IN_SIGNAL_TRIAL };

export class MarketMaker {
  readonly p: QuoteParams;
  readonly inputs = new Float64Array(IN_COUNT);
  // Outputs in a typed array (hot-path rule 4).
  private readonly out = new Float64Array(Q_COUNT);
  private readonly trial = new Float64Array(Q_COUNT);

  /** Desired bid/ask price in ticks (NO_PRICE: do not quote that side). */
  get bidPrice(): number {
    return this.out[Q_BID];
  }
  get askPrice(): number {
    return this.out[Q_ASK];
  }
  get bidSize(): number {
    return this.out[Q_BID_SIZE];
  }
  get askSize(): number {
    return this.out[Q_ASK_SIZE];
  }

  constructor(p: QuoteParams) {
    this.p = p;
    this.out[Q_BID] = NO_PRICE;
    this.out[Q_ASK] = NO_PRICE;
  }

  /**
   * Computes the desired quotes into bidPrice/askPrice (NO_PRICE = do not quote that side),
   * from the touch, the position and `inputs` (volatility; the model's signal, used with useML).
   */
  decide(bestBid: number, bestAsk: number, position: number, reduceOnly: boolean): void {
    this.quote(this.out, IN_SIGMA, IN_SIGNAL, bestBid, bestAsk, position, reduceOnly);
  }

  /**
   * After decide(), with the same arguments: true when the volatility inputs[IN_SIGMA_LO] (at or
   * below inputs[IN_SIGMA]) gives the same prices and inventory shift as decide() did. Then so
   * does every volatility between the two, everything else equal: every step of the quote is
   * monotone in the volatility (IEEE operations round monotonically), the shift is, and for a
   * fixed shift so are both prices; sizes do not depend on it. The engine skips decide() while
   * its inputs stay in such a band (Trader.quotesStand).
   */
  sameQuotesAt(bestBid: number, bestAsk: number, position: number, reduceOnly: boolean): boolean {
    return this.sameQuotesWith(IN_SIGMA_LO, IN_SIGNAL, bestBid, bestAsk, position, reduceOnly);
  }

  /**
   * After decide() and a sameQuotesAt() that held (inputs[IN_SIGMA_LO] its volatility, or
   * inputs[IN_SIGMA] when none did), with the same arguments: writes to band[at] and
   * band[at + 1] a range of signals around inputs[IN_SIGNAL] in which decide() gives the same
   * quotes for every volatility between the two. Both prices are monotone in the signal (the
   * reservation price moves with mlWeight >= 0 times it) and, for a fixed shift, in the
   * volatility (the bid falls and the ask rises with it). So when the four corners of the box
   * give the decided quotes, every point inside does. The range is estimated from how far the
   * reservation price can move before the bid's floor or the ask's ceiling changes, kept 0.1 %
   * inside that, and then checked at the corners. When a corner differs, or no signal is in
   * use, the range is the signal alone. The engine skips decide() for a new signal inside the
   * range (Trader.quotesStand): on the bench's session with the model, 96 % of the requotes a
   * new prediction caused sent nothing.
   */
  signalBand(bestBid: number, bestAsk: number, position: number, reduceOnly: boolean, band: Float64Array, at: number): void {
    const inp = this.inputs;
    const o = this.out;
    const t = this.trial;
    const w = this.p.mlWeight;
    band[at] = inp[IN_SIGNAL];
    band[at + 1] = inp[IN_SIGNAL];
    if (!this.p.useML || !(w > 0) || inp[IN_SIGNAL] !== inp[IN_SIGNAL]) return;
    // The raw bid is lowest at the higher volatility (o) and highest at the lower one (t); the raw
    // ask the other way round. The reservation price may move by any x in [lo, hi] before
    // either rounds to another tick.
    this.quote(t, IN_SIGMA_LO, IN_SIGNAL, bestBid, bestAsk, position, reduceOnly);
    const bidFloor = Math.floor(o[Q_BID_RAW]);
    const askCeil = Math.ceil(o[Q_ASK_RAW]);
    let lo = bidFloor - o[Q_BID_RAW];
    if (askCeil - 1 - t[Q_ASK_RAW] > lo) lo = askCeil - 1 - t[Q_ASK_RAW];
    let hi = bidFloor + 1 - t[Q_BID_RAW];
    if (askCeil - o[Q_ASK_RAW] < hi) hi = askCeil - o[Q_ASK_RAW];
    if (!(lo <= 0 && hi >= 0)) return;
    const sLo = inp[IN_SIGNAL] + (lo * BAND_INSIDE) / w;
    const sHi = inp[IN_SIGNAL] + (hi * BAND_INSIDE) / w;
    inp[IN_SIGNAL_TRIAL] = sLo;
    if (!this.sameQuotesWith(IN_SIGMA, IN_SIGNAL_TRIAL, bestBid, bestAsk, position, reduceOnly)) return;
    if (!this.sameQuotesWith(IN_SIGMA_LO, IN_SIGNAL_TRIAL, bestBid, bestAsk, position, reduceOnly)) return;
    inp[IN_SIGNAL_TRIAL] = sHi;
    if (!this.sameQuotesWith(IN_SIGMA, IN_SIGNAL_TRIAL, bestBid, bestAsk, position, reduceOnly)) return;
    if (!this.sameQuotesWith(IN_SIGMA_LO, IN_SIGNAL_TRIAL, bestBid, bestAsk, position, reduceOnly)) return;
    band[at] = sLo;
    band[at + 1] = sHi;
  }

  /**
   * After decide() with these arguments: an estimate of the lowest volatility at which decide()
   * still gives its prices and shift, from where each of them changes as the volatility falls
   * (with everything else equal): the shift where skewFactor x position x sigma^2 crosses the
   * rounding boundary below it, a price where the half-spread, above its floor, has shrunk
   * enough for the bid's floor or the ask's ceiling to reach the next tick. Only an estimate, a
   * hair above the highest of those thresholds, for a trial that sameQuotesAt checks exactly;
   * NaN when it is not below the volatility decided at. Written to out[i] (a double returned
   * from a call is boxed: hot-path rule 3).
   */
  lowestSigmaEstimate(bestBid: number, bestAsk: number, position: number, out: Float64Array, i: number): void {
    const p = this.p;
    const o = this.out;
    const s0 = Math.max(this.inputs[IN_SIGMA], MIN_SIGMA);
    // The highest threshold so far, kept in out[i] rather than a local that also holds the
    // constant (hot-path rule 4).
    out[i] = MIN_SIGMA;
    // The shift is m/2 ticks (m = 2 |shift| rounded) down to 2 |skew x position| sigma^2 = m - 0.5.
    const k = Math.abs(p.skewFactor * position * HORIZON_S);
    const m = Math.abs(o[Q_SHIFT]) * 2;
    if (m >= 1 && k > 0) {
      const sh = Math.sqrt((m - 0.5) / (2 * k));
      if (sh > out[i]) out[i] = sh;
    }
    // The half-spread d = slope x sigma down to its floor (0.5 x spreadMultiplier at sFloor).
    const slope = p.spreadMultiplier * p.volSpreadFactor * Math.sqrt(HORIZON_S);
    const sFloor = 0.5 / (p.volSpreadFactor * Math.sqrt(HORIZON_S));
    if (slope > 0 && s0 > sFloor) {
      const r = (o[Q_BID_RAW] + o[Q_ASK_RAW]) * 0.5;
      // The bid rises a tick once r - d + EPS reaches bid + 1, unless that is past the clamp
      // below the best ask (there it stays); the ask falls once r + d - EPS reaches ask - 1,
      // unless that is past the clamp above the best bid.
      if (o[Q_BID] !== NO_PRICE && o[Q_BID] + 1 < bestAsk) {
        const sb = (r + EPS - o[Q_BID] - 1) / slope;
        if (sb > sFloor && sb > out[i]) out[i] = sb;
      }
      if (o[Q_ASK] !== NO_PRICE && o[Q_ASK] - 1 > bestBid) {
        const sa = (o[Q_ASK] - 1 - r + EPS) / slope;
        if (sa > sFloor && sa > out[i]) out[i] = sa;
      }
    }
    out[i] *= 1 + 1e-9;
    if (!(out[i] < s0)) out[i] = Number.NaN;
  }

  /** True when the inputs in the given slots give the prices and shift decide() gave. */
  private sameQuotesWith(sigmaSlot: number, signalSlot: number, bestBid: number, bestAsk: number, position: number, reduceOnly: boolean): boolean {
    const o = this.out;
    const t = this.trial;
    this.quote(t, sigmaSlot, signalSlot, bestBid, bestAsk, position, reduceOnly);
    return t[Q_BID] === o[Q_BID] && t[Q_ASK] === o[Q_ASK] && t[Q_SHIFT] === o[Q_SHIFT];
  }

  /** The quotes for the volatility and signal in inputs' slots into `out` (slots, not doubles: hot-path rule 3). */
  private quote(out: Float64Array, sigmaSlot: number, signalSlot: number, bestBid: number, bestAsk: number, position: number, reduceOnly: boolean): void {
    const p = this.p;
    const sigma = this.inputs[sigmaSlot];
    const signalTicks = this.inputs[signalSlot];
    const mid = (bestBid + bestAsk) * 0.5;
    // Math.max, not `sigma > MIN_SIGMA ? sigma : MIN_SIGMA`, which gives MIN_SIGMA for a NaN
    // sigma where Math.max gives NaN (and hot-path rule 4).
    const s = Math.max(sigma, MIN_SIGMA);
    const shift = p.skewFactor * position * s * s * HORIZON_S;
    // Nearest half tick, halves away from zero (symmetric for long and short).
    const half = shift >= 0 ? Math.round(shift * 2) * 0.5 : -Math.round(-shift * 2) * 0.5;
    let r = mid - half;
    if (p.useML && signalTicks === signalTicks) r += p.mlWeight * signalTicks;
    const volHalf = p.volSpreadFactor * s * Math.sqrt(HORIZON_S);
    const d = p.spreadMultiplier * Math.max(volHalf, 0.5);

    out[Q_BID_RAW] = r - d + EPS;
    out[Q_ASK_RAW] = r + d - EPS;
    let bid = Math.floor(out[Q_BID_RAW]);
    let ask = Math.ceil(out[Q_ASK_RAW]);
    if (bid >= bestAsk) bid = bestAsk - 1;
    if (ask <= bestBid) ask = bestBid + 1;

    let bidSize = this.room(BID, position, 0);
    let askSize = this.room(ASK, position, 0);
    if (reduceOnly) {
      bidSize = position < 0 ? Math.min(bidSize, -position) : 0;
      askSize = position > 0 ? Math.min(askSize, position) : 0;
    }
    out[Q_BID] = NO_PRICE;
    out[Q_ASK] = NO_PRICE;
    if (bidSize > 0) out[Q_BID] = bid;
    if (askSize > 0) out[Q_ASK] = ask;
    out[Q_BID_SIZE] = bidSize;
    out[Q_ASK_SIZE] = askSize;
    out[Q_SHIFT] = half;
  }

  /**
   * Largest order on `side` (up to orderSize) that keeps the position within the inventory limit
   * even if it and every other open order on that side (`open`, contracts; e.g. orders whose
   * cancel is in flight) are filled; 0 when there is no room.
   */
  room(side: number, position: number, open: number): number {
    const left = side === BID ? this.p.inventoryLimit - position - open : this.p.inventoryLimit + position - open;
    return left <= 0 ? 0 : left < this.p.orderSize ? left : this.p.orderSize;
  }
}
