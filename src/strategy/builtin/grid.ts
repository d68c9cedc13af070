// A grid market maker (docs/strategy-grid.md): N levels a side at a fixed tick spacing around a
// reference price (the mid, or the microprice from the touch's sizes), the grid shifted against
// the position. Grid prices are multiples of the spacing, so a small move of the reference
// leaves them where they were: the orders stay, keeping their place in the queue, and only the
// levels that leave or join the grid are cancelled or sent.

import * as B from '../../wire/bounds.ts';
import { writeLadder } from './ladder.ts';
import { ASK, BID, NO_PRICE, type ParamValues, type QuoteTargets, type Strategy, type StrategyContext, type StrategyDefinition } from '../port.ts';

const LEVELS = 5; // most levels a side (the `levels` parameter picks how many are used)

class Grid implements Strategy {
  private readonly levels: number;
  private readonly spacing: number;
  private readonly offset: number;
  private readonly skew: number;
  private readonly size: number;
  private readonly cap: number;
  private readonly micro: boolean;
  private readonly px = new Float64Array(1);
  private readonly sz = new Float64Array(1);

  constructor(p: ParamValues) {
    this.levels = p.levels as number;
    this.spacing = p.spacing as number;
    this.offset = p.offset as number;
    this.skew = p.skew as number;
    this.size = p.order_size as number;
    this.cap = p.max_position as number;
    this.micro = p.microprice as boolean;
  }

  /** The reference price, ticks: the mid, or the touch weighted by the opposite side's size. */
  private reference(c: StrategyContext): number {
    if (!this.micro) return (c.bestBid + c.bestAsk) / 2;
    if (c.levels(BID, 1, this.px, this.sz) < 1) return NaN;
    const bidSize = this.sz[0];
    if (c.levels(ASK, 1, this.px, this.sz) < 1) return NaN;
    const askSize = this.sz[0];
    return (c.bestBid * askSize + c.bestAsk * bidSize) / (bidSize + askSize);
  }

  quote(c: StrategyContext, q: QuoteTargets): void {
    q.maxPosition = this.cap;
    const ref = this.reference(c) - this.skew * c.position;
    if (ref !== ref) {
      q.price.fill(NO_PRICE);
      return;
    }
    const g = this.spacing;
    // The nearest grid prices at least `offset` ticks from the reference, never crossing the touch.
    let bid = Math.floor((ref - this.offset) / g) * g;
    let ask = Math.ceil((ref + this.offset) / g) * g;
    while (bid > c.bestBid) bid -= g;
    while (ask < c.bestAsk) ask += g;
    writeLadder(q, c, LEVELS, this.levels, bid, ask, g, this.size);
  }
}

export const grid: StrategyDefinition = {
  name: 'grid',
  version: '1.0.0',
  description:
    'grid market maker: levels a side at a fixed tick spacing around the mid or microprice, shifted against the position, orders kept while in the grid',
  wakes: 'touch',
  book: 'depth',
  levels: LEVELS,
  params: {
    levels: { type: 'integer', default: 3, min: 1, max: LEVELS, description: 'grid levels per side' },
    spacing: { type: 'integer', default: 2, min: 1, max: 1000, unit: 'ticks', description: 'distance between grid prices (prices are multiples of it)' },
    offset: { type: 'number', default: 0.5, min: 0, max: 1000, unit: 'ticks', description: 'least distance of the first level from the reference' },
    skew: {
      type: 'number',
      default: 0.1,
      min: 0,
      max: 100,
      unit: 'ticks per contract',
      description: 'the reference moves this much against each contract of position',
    },
    order_size: { type: 'integer', default: 1, min: B.CONTRACT_COUNT.min, max: B.CONTRACT_COUNT.max, unit: 'contracts', description: 'contracts per level' },
    max_position: {
      type: 'integer',
      default: 20,
      min: B.CONTRACT_COUNT.min,
      max: B.CONTRACT_COUNT.max,
      unit: 'contracts',
      description: 'largest position the grid may build',
    },
    microprice: {
      type: 'boolean',
      default: false,
      description: "reference at the microprice (the touch weighted by the opposite side's size) instead of the mid",
    },
  },
  create: (p) => new Grid(p),
};
