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
import { EPS, HORIZON_S, IN_COUNT, IN_SIGMA, IN_SIGMA_LO, IN_SIGNAL, MIN_SIGMA, Q_ASK, Q_ASK_SIZE, Q_BID, Q_BID_SIZE, Q_COUNT, Q_SHIFT } from './quote-constants.ts';

export interface QuoteParams {
  orderSize: number;
  spreadMultiplier: number;
  skewFactor: number;
  inventoryLimit: number;
  volSpreadFactor: number;
  useML: boolean;
  mlWeight: number;
}

export { IN_SIGMA, IN_SIGMA_LO, IN_SIGNAL };

export class MarketMaker {
  readonly p: QuoteParams;
  readonly inputs = new Float64Array(IN_COUNT);
  // Outputs in a typed array: plain number fields that take both small integers and doubles
  // can make V8 box a double on the way in.
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
    this.quote(this.out, IN_SIGMA, bestBid, bestAsk, position, reduceOnly);
  }

  /**
   * After decide(), with the same arguments: true when the volatility inputs[IN_SIGMA_LO] (at or
   * below inputs[IN_SIGMA]) gives the same prices and inventory shift as decide() did. Then so
   * does every volatility between the two, everything else equal: every step of the quote is
   * monotone in the volatility (IEEE operations round monotonically), the shift is, and for a
   * fixed shift so are both prices; sizes do not depend on it. The engine skips decide() while
   * its inputs stay in such a band (Engine.quotesStand).
   */
  sameQuotesAt(bestBid: number, bestAsk: number, position: number, reduceOnly: boolean): boolean {
    const o = this.out;
    const t = this.trial;
    this.quote(t, IN_SIGMA_LO, bestBid, bestAsk, position, reduceOnly);
    return t[Q_BID] === o[Q_BID] && t[Q_ASK] === o[Q_ASK] && t[Q_SHIFT] === o[Q_SHIFT];
  }

  /** The quotes for the volatility inputs[sigmaSlot] into `out` (a slot, not the double: an argument V8 does not inline would be boxed). */
  private quote(out: Float64Array, sigmaSlot: number, bestBid: number, bestAsk: number, position: number, reduceOnly: boolean): void {
    const p = this.p;
    const sigma = this.inputs[sigmaSlot];
    const signalTicks = this.inputs[IN_SIGNAL];
    const mid = (bestBid + bestAsk) * 0.5;
    // Math.max, not `sigma > MIN_SIGMA ? sigma : MIN_SIGMA`, which gives MIN_SIGMA for a NaN
    // sigma where Math.max gives NaN (and, while MIN_SIGMA was a module variable holding a heap
    // number, boxed sigma on every call).
    const s = Math.max(sigma, MIN_SIGMA);
    const shift = p.skewFactor * position * s * s * HORIZON_S;
    // Nearest half tick, halves away from zero (symmetric for long and short).
    const half = shift >= 0 ? Math.round(shift * 2) * 0.5 : -Math.round(-shift * 2) * 0.5;
    let r = mid - half;
    if (p.useML && signalTicks === signalTicks) r += p.mlWeight * signalTicks;
    const volHalf = p.volSpreadFactor * s * Math.sqrt(HORIZON_S);
    const d = p.spreadMultiplier * Math.max(volHalf, 0.5);

    let bid = Math.floor(r - d + EPS);
    let ask = Math.ceil(r + d - EPS);
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
