// Per-root parameters of the synthetic market (see generator.ts for the model they drive).
//
// Units: sizes in contracts, rates in events per second per book side at activity factor 1
// (the intraday U-shape and stochastic activity multiply them), hazards per second per resting
// contract. ES is calibrated against the stylized facts of docs/synthetic-market.md; the other roots reuse
// the ES structure with queue sizes scaled to their typical top-of-book depth and volatility
// expressed in ticks from their typical price and tick size. A root's inputs (annual volatility,
// queue, order size, price range) are its contract table's `market` (instruments.ts, or the
// config's [contracts.<ROOT>.market]); a root without one has no synthetic market.

import { CONTRACTS, type ContractSpec } from './instruments.ts';

export interface MarketProfile {
  /** Annualised volatility of the latent efficient price (fraction, e.g. 0.16). */
  annualVol: number;
  /** Stationary standard deviation of the log-variance OU factor h (volatility clustering). */
  volOfVol: number;
  /** Mean-reversion time of h, seconds. */
  volMeanReversionS: number;
  /** Order-flow activity follows exp(coupling * h): busier when volatile, less than one for one. */
  activityVolCoupling: number;
  /** Standard deviation of a per-session log-variance level added to h (calm and busy days). */
  dailyVolDispersion: number;
  /**
   * Transient pressure: a fast mean-reverting OU (ticks) added to the efficient price in what
   * the order flow chases (uninformed order-flow imbalance that later reverses): makes tick-level
   * price changes bounce instead of only trailing v.
   */
  pressureTicks: number;
  pressureReversionS: number;
  /** Target (stationary, at zero informed pressure) size of a best-level queue. */
  queueTarget: number;
  /** Mean size of a limit-order add at the best level. */
  addSize: number;
  /** Mean size of a cancel at the best level. */
  cancelSize: number;
  /** Hazard of a contract resting at the best level being cancelled, per second. */
  cancelHazard: number;
  /** Market orders per second per side (before informed and imbalance modulation). */
  marketRate: number;
  /** Market-order size: mixture of two geometrics (small with 1-largeProb, large with largeProb). */
  tradeSizeSmall: number;
  tradeSizeLarge: number;
  tradeLargeProb: number;
  /** Market orders walk at most this many levels (the rest is an unfilled IOC remainder). */
  maxSweepLevels: number;
  /** Queue imbalance sensitivity of market orders: the side with the smaller queue gets hit more. */
  imbalanceSensitivity: number;
  /** Informed-flow sensitivities to g = efficient price - mid (ticks): market orders, cancels, adds. */
  kappaMarket: number;
  kappaCancel: number;
  kappaAdd: number;
  /**
   * The informed sensitivities apply to g x varFactor^-kappaVolPower: with a positive power the
   * flow reacts to the mispricing relative to the current volatility, so the mid's lag behind v
   * (and what order-flow imbalance predicts) varies less between calm and volatile periods.
   */
  kappaVolPower: number;
  /** Rate (per second) at which an order arrives inside a spread wider than one tick. */
  insideRate: number;
  /**
   * The race for a new price level: when the spread widens past one tick (a best level emptied,
   * or the price moved), fast participants compete for the level that opened. With probability
   * raceProb the first of them reaches it raceMeanUs microseconds later on average (exponential);
   * otherwise the gap waits for the ordinary insideRate flow.
   */
  raceProb: number;
  raceMeanUs: number;
  /** Sensitivity of the side of the inside-spread order to g (logistic). */
  kappaInside: number;
  /** Mean size of the burst ADD that creates a new best level inside the spread. */
  burstSize: number;
  /** Deep levels (beyond the best): hazard of a resting contract being cancelled, per second. */
  deepCancelHazard: number;
  /** Rate (per second, per empty price level within MAX_DEPTH ticks of the touch) at which an
   * empty level is re-layered with a burst (a fraction of its target size). */
  emptyLevelFillRate: number;
  /** Mean size of deep adds and cancels. */
  deepAddSize: number;
  deepCancelSize: number;
  /** Deep-level size profile relative to queueTarget at distance 1 and at the far end. */
  deepShapeNear: number;
  deepShapePeak: number;
  deepShapeFar: number;
  /** Intraday U-shape: extra activity at the open / close, decaying with these time constants. */
  openBoost: number;
  openDecayS: number;
  closeBoost: number;
  closeDecayS: number;
  /**
   * One continuous price path across days (daily-path.ts): each session's efficient price runs
   * from its day's open to its day's close on the daily path, and the next day opens at that
   * close plus an overnight gap. false: each session opens at a price drawn uniformly over the
   * contract's range, unrelated to the day before.
   */
  continuousPath: boolean;
  /** Overnight gap (close to next open, log return): standard deviation on calm nights. */
  gapSd: number;
  /** Probability that a night is a news night, whose gap has standard deviation gapJumpSd. */
  gapJumpProb: number;
  gapJumpSd: number;
  /** Half-life (trading days) of the daily path's pull toward the middle of the contract's price range. */
  pathReversionDays: number;
  // ---- Order-flow structure (docs/synthetic-market.md "Order-flow structure"). Each has a neutral
  // value (NEUTRAL_FLOW's) under which the generator draws the same random numbers in the same
  // order as without it; ES_PROFILE holds the values that give real ES MBO's structure. ----
  /**
   * Sizes as a mixture: size 1 with this probability, else a geometric whose mean keeps the
   * mean size above (addSize, deepAddSize, cancelSize: (mean - p) / (1 - p)), so the contracts
   * per second, the queues and the event counts stay as calibrated. Real ES new orders are 75 %
   * 1-lots. Best-level adds; adds to an existing deep level; best-level cancels (contracts
   * removed); market orders (1-lots added to the two-geometric mixture: its mean falls).
   */
  addSize1Prob: number;
  deepAddSize1Prob: number;
  cancelSize1Prob: number;
  tradeSize1Prob: number;
  /**
   * Modifies at the best levels: modify events per best-level cancel event (both per resting
   * contract, before the informed tilt; so the modifies follow the root's cancel rate). A modify
   * reduces an order's size (share modifyDownShare; it keeps its queue place), increases it
   * (modifyUpShare; back of the queue) or moves it one tick (the rest; back of the queue at the
   * new price: half away from the touch, half from one tick behind onto the best). Changes and
   * moved orders have geometric sizes of mean modifySize.
   */
  modifyPerCancel: number;
  modifyDownShare: number;
  modifyUpShare: number;
  modifySize: number;
  /**
   * Self-exciting bursts (Hawkes, exponential kernel): every order-flow intensity is multiplied
   * by (1 - n) + X, X decaying with time constant burstDecayS and jumping at each random event
   * so that it triggers n = burstBranching further events on average (n < 1: stationary; the
   * mean multiplier stays 1).
   */
  burstBranching: number;
  burstDecayS: number;
  /** Fast spikes on top of the U-shape: extra activity at the 09:30 open / 16:00 close. */
  openSpikeBoost: number;
  openSpikeDecayS: number;
  closeSpikeBoost: number;
  closeSpikeDecayS: number;
}

export const ES_PROFILE: Readonly<MarketProfile> = Object.freeze({
  annualVol: 0.145,
  volOfVol: 1.0,
  volMeanReversionS: 1200,
  activityVolCoupling: 0.3,
  dailyVolDispersion: 0.2,
  pressureTicks: 0.5,
  pressureReversionS: 2,
  queueTarget: 320,
  addSize: 9,
  cancelSize: 9,
  cancelHazard: 0.9,
  marketRate: 7,
  tradeSizeSmall: 3,
  tradeSizeLarge: 30,
  tradeLargeProb: 0.07,
  maxSweepLevels: 8,
  imbalanceSensitivity: 0.5,
  kappaMarket: 0.4,
  kappaCancel: 2.5,
  kappaAdd: 1.2,
  insideRate: 120,
  raceProb: 0.95,
  raceMeanUs: 20,
  kappaInside: 2.5,
  kappaVolPower: 0.5,
  burstSize: 90,
  deepCancelHazard: 0.012,
  emptyLevelFillRate: 0.5,
  deepAddSize: 14,
  deepCancelSize: 14,
  deepShapeNear: 1.2,
  deepShapePeak: 1.6,
  deepShapeFar: 0.8,
  openBoost: 4,
  openDecayS: 1200,
  closeBoost: 4,
  closeDecayS: 1200,
  continuousPath: true,
  gapSd: 0.0035,
  gapJumpProb: 0.1,
  gapJumpSd: 0.009,
  pathReversionDays: 60,
  // Order-flow structure of real ES MBO (docs/synthetic-market.md "Order-flow structure"): 1-lot
  // dominated sizes (the rest larger, so the mean sizes stay as calibrated), modifies, Hawkes
  // bursts and the open/close spikes. The calibrated mean sizes and rates are left alone, so it
  // applies to every root's profile.
  addSize1Prob: 0.6,
  deepAddSize1Prob: 0.6,
  cancelSize1Prob: 0.6,
  tradeSize1Prob: 0.2,
  modifyPerCancel: 0.9,
  modifyDownShare: 0.4,
  modifyUpShare: 0.2,
  modifySize: 1.5,
  burstBranching: 0.85,
  burstDecayS: 0.002,
  openSpikeBoost: 7,
  openSpikeDecayS: 40,
  closeSpikeBoost: 5,
  closeSpikeDecayS: 60,
});

/** The order-flow fields of the profile (REALISTIC_FLOW and NEUTRAL_FLOW set exactly these). */
type FlowFields = Pick<
  MarketProfile,
  | 'addSize1Prob'
  | 'deepAddSize1Prob'
  | 'cancelSize1Prob'
  | 'tradeSize1Prob'
  | 'modifyPerCancel'
  | 'modifyDownShare'
  | 'modifyUpShare'
  | 'modifySize'
  | 'burstBranching'
  | 'burstDecayS'
  | 'openSpikeBoost'
  | 'openSpikeDecayS'
  | 'closeSpikeBoost'
  | 'closeSpikeDecayS'
>;

/** The default market's order-flow structure (ES_PROFILE's), as profile overrides. */
export const REALISTIC_FLOW: Readonly<FlowFields> = Object.freeze({
  addSize1Prob: ES_PROFILE.addSize1Prob,
  deepAddSize1Prob: ES_PROFILE.deepAddSize1Prob,
  cancelSize1Prob: ES_PROFILE.cancelSize1Prob,
  tradeSize1Prob: ES_PROFILE.tradeSize1Prob,
  modifyPerCancel: ES_PROFILE.modifyPerCancel,
  modifyDownShare: ES_PROFILE.modifyDownShare,
  modifyUpShare: ES_PROFILE.modifyUpShare,
  modifySize: ES_PROFILE.modifySize,
  burstBranching: ES_PROFILE.burstBranching,
  burstDecayS: ES_PROFILE.burstDecayS,
  openSpikeBoost: ES_PROFILE.openSpikeBoost,
  openSpikeDecayS: ES_PROFILE.openSpikeDecayS,
  closeSpikeBoost: ES_PROFILE.closeSpikeBoost,
  closeSpikeDecayS: ES_PROFILE.closeSpikeDecayS,
});

/**
 * The neutral order-flow structure: every size from its geometric, no modifies, no bursts, no
 * spikes. With it the generator draws the same random numbers in the same order as before the
 * flow fields existed (the market of v0.1.0's first releases; the calibration's base, the facts
 * command's `--flow neutral`).
 */
export const NEUTRAL_FLOW: Readonly<FlowFields> = Object.freeze({
  addSize1Prob: 0,
  deepAddSize1Prob: 0,
  cancelSize1Prob: 0,
  tradeSize1Prob: 0,
  modifyPerCancel: 0,
  modifyDownShare: 0.4,
  modifyUpShare: 0.2,
  modifySize: 1.5,
  burstBranching: 0,
  burstDecayS: 0.05,
  openSpikeBoost: 0,
  openSpikeDecayS: 60,
  closeSpikeBoost: 0,
  closeSpikeDecayS: 60,
});

/** The market before issue 49 (each session on its own, neutral flow), for tests and comparisons. */
export const NEUTRAL_MARKET: Readonly<Partial<MarketProfile>> = Object.freeze({ continuousPath: false, ...NEUTRAL_FLOW });

/** Why a root cannot run on the synthetic market: its contract table has no market profile. */
export function marketMissing(root: string, source: string): string {
  return `${root} (${source}) has no synthetic market profile: add [contracts.${root}.market] with ${MARKET_KEYS.join(', ')}, or replay recorded data`;
}

/** The keys of [contracts.<ROOT>.market]. */
export const MARKET_KEYS = ['price_low', 'price_high', 'annual_vol', 'queue', 'order_size'] as const;

/** Volatility of the efficient price in ticks per sqrt(second) at activity 1. */
export function ticksPerSqrtSecond(annualVol: number, priceTicks: number): number {
  return (annualVol * priceTicks) / Math.sqrt(252 * 23400);
}

/**
 * The profile of a root. ES is hand-calibrated; another root scales order sizes by its order
 * size relative to ES and queues to its own queue, and speeds up its order flow by
 * `speed` = (price changes per second it needs relative to ES, i.e. its variance in ticks^2
 * relative to ES) x (orders per queue relative to ES, the events each change takes), clamped
 * to [0.5, 5] so a session stays within a few million to ~15 million events, and scales the
 * informed-flow sensitivities (per tick of g) down by its volatility in ticks relative to ES.
 */
export function profileFor(spec: ContractSpec, overrides?: Partial<MarketProfile>): MarketProfile {
  // A selected profile file is the root's whole profile (loaded complete: profile-file.ts).
  if (spec.profile !== undefined) return { ...spec.profile, ...overrides };
  const base: MarketProfile = { ...ES_PROFILE };
  const root = spec.market;
  if (root === null) throw new Error(marketMissing(spec.root, spec.source));
  if (spec.root !== 'ES') {
    const es = CONTRACTS.ES.market!;
    const typicalTicks = (c: ContractSpec): number => (c.typicalLow + c.typicalHigh) / 2 / c.tickSize;
    const midTicks = typicalTicks(spec);
    const esMidTicks = typicalTicks(CONTRACTS.ES);
    const varRatio = (ticksPerSqrtSecond(root.annualVol, midTicks) / ticksPerSqrtSecond(es.annualVol, esMidTicks)) ** 2;
    const ordersRatio = root.queue / root.orderSize / (es.queue / es.orderSize);
    const speed = Math.max(0.5, Math.min(5, varRatio * ordersRatio));
    const k = root.orderSize / es.orderSize; // order-size scale
    const q = root.queue / es.queue; // queue scale
    base.annualVol = root.annualVol;
    base.queueTarget = root.queue;
    base.addSize = root.orderSize;
    base.cancelSize = root.orderSize;
    base.tradeSizeSmall = Math.max(1, base.tradeSizeSmall * k);
    base.tradeSizeLarge = Math.max(3, base.tradeSizeLarge * k);
    base.burstSize = Math.max(1, base.burstSize * q);
    base.deepAddSize = Math.max(1, base.deepAddSize * k);
    base.deepCancelSize = Math.max(1, base.deepCancelSize * k);
    base.marketRate *= speed;
    base.cancelHazard *= speed;
    base.insideRate *= Math.max(1, speed);
    base.deepCancelHazard *= Math.max(1, Math.sqrt(speed));
    base.emptyLevelFillRate *= Math.max(1, speed);
    // Informed-flow sensitivities are per tick of g: a root whose efficient price moves more
    // ticks per second gets proportionally smaller ones, so the mid lags it by a similar time.
    const kScale = Math.min(1, 1 / Math.sqrt(varRatio));
    base.kappaMarket *= kScale;
    base.kappaCancel *= kScale;
    base.kappaAdd *= kScale;
    base.kappaInside *= kScale;
    // Overnight gaps in proportion to the root's volatility.
    base.gapSd *= root.annualVol / es.annualVol;
    base.gapJumpSd *= root.annualVol / es.annualVol;
  }
  return { ...base, ...overrides };
}
