// A GLFT market maker with online calibration (docs/strategy-glft.md): quotes from the closed
// form in glft-math.ts, with the trade intensity A·e^(−kδ) and the volatility σ fitted on a
// rolling window of the market it trades in, as hftbacktest's GLFT example does. Until the first
// usable fit it does not quote; a fit that fails its guards keeps the last good one. Both counts
// are kept in its state area (state[0]: fits used, state[1]: fits refused).

import * as B from '../../wire/bounds.ts';
import { NO_PRICE, type ParamValues, type QuoteTargets, type Strategy, type StrategyContext, type StrategyDefinition } from '../port.ts';
import { fitIntensity, glftQuote, IntensityWindow } from './glft-math.ts';
import { writeLadder } from './ladder.ts';

const LEVELS = 3; // most levels a side (the `levels` parameter picks how many are used)
const TIMER = 0;

class Glft implements Strategy {
  private readonly window: IntensityWindow;
  private readonly fit = new Float64Array(2); // A, k of the last usable fit
  private readonly quoteOut = new Float64Array(2); // half-spread, skew
  private sigma = NaN;
  private fitted = false;
  /** The interval under way: the mid at its start and the deepest depth its trades reached. */
  private mid0 = NaN;
  private start = 0;
  private deepest = 0;
  private sinceFit = 0;
  private readonly gamma: number;
  private readonly size: number;
  private readonly levels: number;
  private readonly spacing: number;
  private readonly cap: number;
  private readonly intervalS: number;
  private readonly refitEvery: number;
  private readonly minIntervals: number;

  constructor(p: ParamValues, ctx: StrategyContext) {
    this.gamma = p.gamma as number;
    this.size = p.order_size as number;
    this.levels = p.levels as number;
    this.spacing = p.level_spacing as number;
    this.cap = p.max_position as number;
    const intervalMs = p.interval_ms as number;
    this.intervalS = intervalMs / 1000;
    this.window = new IntensityWindow(Math.max(2, Math.round(((p.window_s as number) * 1000) / intervalMs)));
    this.refitEvery = Math.max(1, Math.round(((p.refit_s as number) * 1000) / intervalMs));
    this.minIntervals = p.min_intervals as number;
    ctx.wakeEvery(intervalMs * 1e6, TIMER);
  }

  /** Each trade (and touch change): how deep from the interval's starting mid trades reached. */
  onMarket(c: StrategyContext): void {
    if (this.mid0 !== this.mid0) {
      this.mid0 = c.mid;
      this.start = c.exchTs;
      return;
    }
    if (!(c.lastTradeTs >= this.start)) return;
    const d = Math.ceil(Math.abs(c.lastTradePrice - this.mid0) - 1e-9);
    if (d > this.deepest) this.deepest = d;
  }

  /** Closes the interval; every refit_s, fits A, k and σ on the window. */
  onTimer(c: StrategyContext): void {
    const mid = c.mid;
    if (mid !== mid) return; // a side empty: the interval goes on
    if (this.mid0 === this.mid0) this.window.push(this.deepest, mid - this.mid0);
    this.mid0 = mid;
    this.start = c.exchTs;
    this.deepest = 0;
    if (++this.sinceFit < this.refitEvery) return;
    this.sinceFit = 0;
    const sigma = this.window.moveStd() / Math.sqrt(this.intervalS);
    if (fitIntensity(this.window, this.intervalS, this.minIntervals, this.fit) && Number.isFinite(sigma)) {
      this.sigma = sigma;
      this.fitted = true;
      c.state[0]++;
    } else if (this.window.count >= this.minIntervals) c.state[1]++;
  }

  quote(c: StrategyContext, q: QuoteTargets): void {
    q.maxPosition = this.cap;
    if (!this.fitted) {
      q.price.fill(NO_PRICE);
      return;
    }
    const pos = c.position;
    const mid = (c.bestBid + c.bestAsk) / 2;
    glftQuote(this.fit[0], this.fit[1], this.sigma, this.gamma, this.size, this.quoteOut);
    const half = this.quoteOut[0];
    const skew = this.quoteOut[1];
    let bid = Math.floor(mid - (half + skew * pos));
    let ask = Math.ceil(mid + (half - skew * pos));
    if (bid > c.bestBid) bid = c.bestBid; // never crossing the touch
    if (ask < c.bestAsk) ask = c.bestAsk;
    writeLadder(q, c, LEVELS, this.levels, bid, ask, this.spacing, this.size);
  }
}

export const glft: StrategyDefinition = {
  name: 'glft',
  version: '1.0.0',
  description:
    'GLFT market maker (Guéant-Lehalle-Fernandez-Tapia closed form) with the trade intensity A·exp(-k·depth) and the volatility fitted ' +
    'online on a rolling window',
  wakes: 'touch_and_trades',
  levels: LEVELS,
  stateSlots: 2,
  params: {
    gamma: { type: 'number', default: 0.05, min: 0, exclusiveMin: true, max: 100, description: 'risk aversion γ (and ξ = γ), per tick' },
    order_size: {
      type: 'integer',
      default: 1,
      min: B.CONTRACT_COUNT.min,
      max: B.CONTRACT_COUNT.max,
      unit: 'contracts',
      description: 'contracts per quote (Δ in the formula)',
    },
    levels: { type: 'integer', default: 1, min: 1, max: LEVELS, description: 'quote levels per side' },
    level_spacing: { type: 'integer', default: 1, min: 1, max: 100, unit: 'ticks', description: 'distance between levels' },
    max_position: {
      type: 'integer',
      default: 20,
      min: B.CONTRACT_COUNT.min,
      max: B.CONTRACT_COUNT.max,
      unit: 'contracts',
      description: 'largest position the quotes may build',
    },
    interval_ms: {
      type: 'integer',
      default: 100,
      min: 10,
      max: 10_000,
      unit: 'ms',
      description: 'calibration interval: how deep trades reached is recorded per interval',
    },
    window_s: { type: 'integer', default: 600, min: 10, max: 3600, unit: 's', description: 'rolling calibration window' },
    refit_s: { type: 'integer', default: 5, min: 1, max: 600, unit: 's', description: 'time between fits' },
    min_intervals: { type: 'integer', default: 300, min: 2, max: 360_000, description: 'intervals in the window before a fit is used' },
  },
  create: (p, ctx) => new Glft(p, ctx),
};
