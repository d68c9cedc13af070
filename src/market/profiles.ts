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
import type { MarketProfile } from './market-profile.ts';

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
const FLOW_KEYS = [
  'addSize1Prob',
  'deepAddSize1Prob',
  'cancelSize1Prob',
  'tradeSize1Prob',
  'modifyPerCancel',
  'modifyDownShare',
  'modifyUpShare',
  'modifySize',
  'burstBranching',
  'burstDecayS',
  'openSpikeBoost',
  'openSpikeDecayS',
  'closeSpikeBoost',
  'closeSpikeDecayS',
] as const;
type FlowFields = Pick<MarketProfile, (typeof FLOW_KEYS)[number]>;

/** The default market's order-flow structure (ES_PROFILE's), as profile overrides. */
export const REALISTIC_FLOW: Readonly<FlowFields> = Object.freeze(Object.fromEntries(FLOW_KEYS.map((k) => [k, ES_PROFILE[k]])) as FlowFields);

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
