// Quote levels a side from a first bid and ask outward, shared by the built-ins that quote
// several levels (glft, grid).

import { ASK, BID, NO_PRICE, type QuoteTargets, type StrategyContext } from '../port.ts';

/**
 * Writes `levels` levels a side into q (of `L` levels declared): the bid side from `bid` down,
 * the ask side from `ask` up, every `step` ticks, `size` contracts each. In the reduce-only
 * window only the side that reduces the position is quoted; unused levels stay NO_PRICE.
 */
export function writeLadder(q: QuoteTargets, c: StrategyContext, L: number, levels: number, bid: number, ask: number, step: number, size: number): void {
  q.price.fill(NO_PRICE);
  const pos = c.position;
  const buys = !(c.reduceOnly && pos >= 0);
  const sells = !(c.reduceOnly && pos <= 0);
  for (let l = 0; l < levels; l++) {
    if (buys) q.price[BID * L + l] = bid - l * step;
    if (sells) q.price[ASK * L + l] = ask + l * step;
    q.size[BID * L + l] = size;
    q.size[ASK * L + l] = size;
  }
}
