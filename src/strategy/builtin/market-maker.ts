// The built-in market maker (src/strategy/market-maker.ts, its quoting math) on the strategy
// port: the strategy of a request that names none. It quotes one level a side from quote(), and
// keeps the port's standing promise, so the backtest skips the events that cannot change its
// quotes: with the touch and the position unchanged, its quotes stand while the volatility stays
// in a band where the quotes come out the same (sameQuotesAt) and the model's signal in another
// (signalBand). Its parameters are the [strategy] keys of the config and the request's
// spreadMultiplier, skewFactor, inventoryLimit and useML.

import * as B from '../../wire/bounds.ts';
import {
  BAND_TRIALS,
  MS_ASK,
  MS_BID,
  MS_COUNT,
  MS_POS,
  MS_REDUCE,
  MS_SIGNAL_HI,
  MS_SIGNAL_LO,
  MS_SUM_LO,
  MS_SUM_NOW,
  MS_TRIAL_SIGMA,
  MS_TRIAL_SUM,
  MS_VOL_MOVES,
  MS_VOL_UNTIL,
} from './market-maker-slots.ts';
import { IN_SIGMA, IN_SIGMA_LO, IN_SIGNAL, MarketMaker, type QuoteParams } from '../market-maker.ts';
import type { FeatureBand, ParamValues, QuoteTargets, StandingPromise, Strategy, StrategyContext, StrategyDefinition } from '../port.ts';

export const MARKET_MAKER = 'market_maker';

/** The built-in's parameters from its declared values (snake_case, as in TOML). */
export function quoteParamsOf(p: ParamValues): QuoteParams {
  return {
    orderSize: p.order_size as number,
    spreadMultiplier: p.spread_multiplier as number,
    skewFactor: p.skew_factor as number,
    inventoryLimit: p.inventory_limit as number,
    volSpreadFactor: p.vol_spread_factor as number,
    useML: p.use_ml as boolean,
    mlWeight: p.ml_weight as number,
  };
}

/** The declared values of QuoteParams (the inverse of quoteParamsOf). */
export function paramValuesOf(q: QuoteParams): ParamValues {
  return {
    order_size: q.orderSize,
    spread_multiplier: q.spreadMultiplier,
    skew_factor: q.skewFactor,
    inventory_limit: q.inventoryLimit,
    vol_spread_factor: q.volSpreadFactor,
    use_ml: q.useML,
    ml_weight: q.mlWeight,
  };
}

export class MarketMakerStrategy implements Strategy, StandingPromise {
  readonly mm: MarketMaker;
  readonly standing: StandingPromise = this;
  private readonly f: FeatureBand;
  private readonly band = new Float64Array(MS_COUNT);
  /** The trial fractions of settle(): BAND_TRIALS with, after the first, the estimate's (NaN: none). */
  private readonly trials = Float64Array.from([BAND_TRIALS[0], Number.NaN, ...BAND_TRIALS.slice(1)]);

  constructor(p: QuoteParams, ctx: StrategyContext) {
    this.mm = new MarketMaker(p);
    this.f = ctx.band;
  }

  quote(ctx: StrategyContext, t: QuoteTargets): void {
    const mm = this.mm;
    const bb = ctx.bestBid;
    const ba = ctx.bestAsk;
    const pos = ctx.position;
    const reduceOnly = ctx.reduceOnly;
    this.f.writeVolatility(mm.inputs, IN_SIGMA);
    ctx.writeSignal(mm.inputs, IN_SIGNAL);
    mm.decide(bb, ba, pos, reduceOnly);
    t.price[0] = mm.bidPrice;
    t.price[1] = mm.askPrice;
    t.size[0] = mm.bidSize;
    t.size[1] = mm.askSize;
    // Orders are never larger than what is left to the inventory limit with every open order filled.
    t.maxPosition = mm.p.inventoryLimit;
    const b = this.band;
    b[MS_BID] = bb;
    b[MS_ASK] = ba;
    b[MS_POS] = pos;
    b[MS_REDUCE] = reduceOnly ? 1 : 0;
  }

  /**
   * The band of the volatility's sum in which the quotes just decided stand: from the lowest trial
   * sum whose volatility gives the same quotes (MarketMaker.sameQuotesAt) up to the sum now. The
   * volatility is a monotone function of the sum, so every sum in the band gives a volatility
   * between the two tried. Between mid changes the sum only decays, so the band holds until a
   * mid change or until the time the sum falls past the trial (volatilityStandInto). Then the band of
   * the model's signal in which the quotes stand for every volatility in that band (a new
   * prediction moves the signal either way, usually by less than a tick's worth).
   */
  settle(_ctx: StrategyContext): void {
    const q = this.band;
    const mm = this.mm;
    const f = this.f;
    const bb = q[MS_BID];
    const ba = q[MS_ASK];
    const pos = q[MS_POS];
    const reduceOnly = q[MS_REDUCE] === 1;
    f.writeVolatilitySum(q, MS_SUM_NOW);
    q[MS_SUM_LO] = q[MS_SUM_NOW];
    // After the whole range, the estimate of where the quotes change (MarketMaker.lowestSigmaEstimate),
    // as a fraction of the sum (the volatility goes as its square root above the features' floor).
    const tr = this.trials;
    mm.lowestSigmaEstimate(bb, ba, pos, tr, 1);
    tr[1] /= mm.inputs[IN_SIGMA];
    tr[1] *= tr[1];
    let found = false;
    for (let i = 0; i < tr.length && !found; i++) {
      if (tr[i] !== tr[i]) continue;
      q[MS_TRIAL_SUM] = q[MS_SUM_NOW] * tr[i];
      f.volatilityFor(q, MS_TRIAL_SUM);
      mm.inputs[IN_SIGMA_LO] = q[MS_TRIAL_SIGMA];
      found = mm.sameQuotesAt(bb, ba, pos, reduceOnly);
    }
    if (found) q[MS_SUM_LO] = q[MS_TRIAL_SUM];
    else mm.inputs[IN_SIGMA_LO] = mm.inputs[IN_SIGMA];
    f.volatilityStandInto(q, MS_SUM_LO, MS_VOL_MOVES);
    mm.signalBand(bb, ba, pos, reduceOnly, q, MS_SIGNAL_LO);
  }

  /** The model's signal band and the volatility's (see settle), which the engine checks at each event. */
  bands(out: Float64Array, at: number): void {
    const q = this.band;
    out[at] = q[MS_SIGNAL_LO]; // NaN when the decision had no signal
    out[at + 1] = q[MS_SIGNAL_HI];
    out[at + 2] = q[MS_VOL_MOVES];
    out[at + 3] = q[MS_VOL_UNTIL];
  }

  bounds(out: Float64Array, at: number): void {
    out[at] = Infinity;
    out[at + 1] = this.band[MS_VOL_UNTIL];
  }
}

export const marketMaker: StrategyDefinition = {
  name: MARKET_MAKER,
  version: '1.0.0',
  description:
    'Avellaneda-Stoikov style market maker on the tick grid: quotes around a reservation price skewed by inventory and (with useML) the ' +
    'model signal, half-spread from the volatility',
  wakes: 'book',
  book: 'touch',
  features: 'volatility',
  levels: 1,
  params: {
    order_size: {
      type: 'integer',
      default: 1,
      min: B.CONTRACT_COUNT.min,
      max: B.CONTRACT_COUNT.max,
      unit: 'contracts',
      description: 'contracts per quote (at most [trading] max_order_size)',
    },
    spread_multiplier: {
      type: 'number',
      default: 1,
      min: 0,
      exclusiveMin: true,
      max: B.SPREAD_MULTIPLIER.max,
      description: 'multiplier of the quoted half-spread',
    },
    skew_factor: { type: 'number', default: 0.5, min: 0, max: B.WEIGHT.max, description: 'inventory skew of the reservation price' },
    inventory_limit: {
      type: 'integer',
      default: 20,
      min: B.CONTRACT_COUNT.min,
      max: B.CONTRACT_COUNT.max,
      unit: 'contracts',
      description: 'largest position the quotes may build',
    },
    vol_spread_factor: { type: 'number', default: 0.5, min: 0, max: B.WEIGHT.max, description: 'half-spread per unit of volatility (ticks per tick/sqrt(s))' },
    use_ml: { type: 'boolean', default: false, description: "skew the reservation price by the model's prediction" },
    ml_weight: { type: 'number', default: 1, min: 0, max: B.WEIGHT.max, description: "weight of the model's prediction (ticks per predicted tick)" },
  },
  create: (p, ctx) => new MarketMakerStrategy(quoteParamsOf(p), ctx),
};

/** An engine's strategy setup for the built-in with these parameters (tests, the live engine's warmer). */
export function marketMakerSetup(q: QuoteParams): { def: StrategyDefinition; params: ParamValues } {
  return { def: marketMaker, params: paramValuesOf(q) };
}
