// Market maker in the Avellaneda-Stoikov spirit, on an integer tick grid:
//   reservation r = mid + mlWeight x signal - skewFactor x position x sigma^2 x H
//   half spread d = spreadMultiplier x max(0.5 tick, volSpreadFactor x sigma x sqrt(H))
//   bid = floor(r - d), ask = ceil(r + d), never crossing the opposite best (quotes are post-only)
// sigma is the mid's short-horizon volatility in ticks per sqrt(second), H = 1 s. With no
// inventory, no signal and calm markets the quotes sit at the touch. A side is not quoted when
// the position is already at the inventory limit in that direction; near the session end only
// the side that reduces the position is quoted.

import { NO_PRICE } from '../book/dense-book.ts';

export interface QuoteParams {
  orderSize: number;
  spreadMultiplier: number;
  skewFactor: number;
  inventoryLimit: number;
  volSpreadFactor: number;
  useML: boolean;
  mlWeight: number;
}

const HORIZON_S = 1;
const MIN_SIGMA = 0.05; // ticks / sqrt(s): floor so a silent market still has a defined spread
const EPS = 1e-9;

export class MarketMaker {
  readonly p: QuoteParams;
  bidPrice = NO_PRICE;
  askPrice = NO_PRICE;
  bidSize = 0;
  askSize = 0;
  reservation = NaN;
  halfSpread = NaN;

  constructor(p: QuoteParams) {
    this.p = p;
  }

  /**
   * Computes the desired quotes into bidPrice/askPrice (NO_PRICE = do not quote that side).
   * `signalTicks` is the model's expected mid move in ticks (ignored unless useML).
   */
  decide(bestBid: number, bestAsk: number, sigma: number, position: number, signalTicks: number, reduceOnly: boolean): void {
    const p = this.p;
    const mid = (bestBid + bestAsk) * 0.5;
    const s = sigma > MIN_SIGMA ? sigma : MIN_SIGMA;
    let r = mid - p.skewFactor * position * s * s * HORIZON_S;
    if (p.useML && signalTicks === signalTicks) r += p.mlWeight * signalTicks;
    const volHalf = p.volSpreadFactor * s * Math.sqrt(HORIZON_S);
    const d = p.spreadMultiplier * (volHalf > 0.5 ? volHalf : 0.5);
    this.reservation = r;
    this.halfSpread = d;

    let bid = Math.floor(r - d + EPS);
    let ask = Math.ceil(r + d - EPS);
    if (bid >= bestAsk) bid = bestAsk - 1;
    if (ask <= bestBid) ask = bestBid + 1;

    let bidSize = p.orderSize;
    let askSize = p.orderSize;
    if (position >= p.inventoryLimit) bidSize = 0;
    if (position <= -p.inventoryLimit) askSize = 0;
    if (reduceOnly) {
      bidSize = position < 0 ? Math.min(bidSize, -position) : 0;
      askSize = position > 0 ? Math.min(askSize, position) : 0;
    }
    this.bidPrice = bidSize > 0 ? bid : NO_PRICE;
    this.askPrice = askSize > 0 ? ask : NO_PRICE;
    this.bidSize = bidSize;
    this.askSize = askSize;
  }
}
