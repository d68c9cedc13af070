// Synthetic exchange-side market: a queue-reactive L2 order-flow model (in the spirit of
// Huang, Lehalle & Rosenbaum) driven by a latent efficient price, simulated as a
// continuous-time event process (Gillespie: total intensity, exponential waiting time, pick the
// event by its share of the intensity).
//
// Model
// - Latent efficient price v (ticks): a random walk whose variance rate is
//   sigma^2 * U(t) * exp(h(t) + hDay). U is an intraday U-shape (busier near the 09:30 open and
//   the 16:00 close), h a mean-reverting OU log-variance (volatility clustering), hDay a
//   per-session level (calm and busy days). Order-flow intensities are multiplied by
//   U(t) * exp(c (h + hDay)) * options.activity (c < 1: activity rises with volatility, less than
//   one for one). The latent path has its own random stream, so it does not depend on the flow.
// - With the profile's continuousPath, the day's open, close and hDay come from the daily path
//   (daily-path.ts): v starts at the open at the root's regular open and is a Brownian bridge to
//   the close at its regular close (drift (close - v) / time left, noise scaled to the bridge's
//   variance; past the close a plain random walk again). The latent grid starts at the regular
//   open whatever the window, and a window opening later first runs the latent steps up to its
//   start, so v over [start, end) is the same as within the whole session. Without it, v starts
//   at a price drawn uniformly over the contract's range at the window's start.
// - Best levels (queue sizes qb, qa): limit adds arrive at a rate decreasing in the queue size,
//   cancels at a rate proportional to it, market orders at a rate that rises when the opposite
//   queue is the smaller one (queue imbalance). Each best queue mean-reverts to the profile's
//   queueTarget, and the price moves only when a best queue is depleted.
// - Informed flow: with g = (v + eps - mid) / sqrt(variance factor) (eps: a fast OU transient
//   pressure; the scaling keeps the reaction comparable across volatility regimes), buy market
//   orders and ask cancels are multiplied by exp(kappa g) and ask adds divided by
//   exp(kappa_add g) (mirror image on the bid side). The mid tracks v with a lag: order-flow
//   imbalance predicts the next mid change, and a passive order is filled preferentially just
//   before the price moves through it (positive markouts against the passive side).
// - A spread wider than one tick is closed by orders arriving inside it (rate insideRate, side
//   chosen by g); the new level starts with a burst-sized ADD (a refill). When the spread widens,
//   fast participants race for the level that opened: with probability raceProb the first of
//   them arrives after an exponential delay of mean raceMeanUs (tens of microseconds, as on CME),
//   so an order that reacts to the gap through market-data and order-entry latency usually finds
//   them ahead of it.
// - Deep levels (1..MAX_DEPTH ticks behind the best) receive adds following a humped size
//   profile and lose contracts at a size-proportional hazard; an empty level within MAX_DEPTH is
//   re-layered with a burst at emptyLevelFillRate; a level farther than MAX_DEPTH ticks from its
//   side's best is removed with an MD_CANCEL of its full size.
// - Market orders take geometric-mixture sizes and may walk several levels: one MD_TRADE per
//   level touched, all at the same timestamp (the unfilled rest of a walk past maxSweepLevels
//   is dropped, as by an IOC limit).
//
// Every emitted event is applied to `book`, so a consumer applying the same stream to its own
// DenseBook holds an identical book. The book is never crossed, never has an empty side, sizes
// are positive integers, prices integer ticks. Each internal step emits exactly one event, so
// `book` always equals the book built from the events delivered so far.
//
// Hot path (hot-path rules 2 and 3): random numbers are drawn in blocks into typed arrays
// (uniforms for the order flow, normals for the latent process) and read from there, and the
// event is passed to its single emit site through fields: no per-event call returns or takes a
// fractional double.

import * as ev from '../core/events.ts';
import type { RecordRing } from '../core/ring.ts';
import { Rng, hashSeed } from '../core/rng.ts';
import { DenseBook } from '../book/dense-book.ts';
import type { ContractSpec } from './instruments.ts';
import { dailyPath, pathHours } from './daily-path.ts';
import { MOD_DOWN, MOD_MOVE_FROM, MOD_MOVE_TO, MOD_UP } from './modify-tags.ts';
import { profileFor, ticksPerSqrtSecond } from './profiles.ts';
import type { MarketProfile } from './market-profile.ts';
import { RTH_CLOSE_NS, RTH_OPEN_NS } from './regular-hours.ts';

export interface GeneratorOptions {
  sessionStartNs: number;
  sessionEndNs: number;
  /** Multiplies every order-flow intensity (not the efficient price's volatility). Default 1. */
  activity?: number;
  /** Overrides of the root's profile (tuning, tests). */
  profile?: Partial<MarketProfile>;
}

/** Levels are kept within this many ticks of their side's best price. */
export const MAX_DEPTH = 40;
/**
 * Capacity (ticks) of the generator's DenseBook. A consumer's DenseBook holds every level of
 * this stream when capacity/4 - 1 >= MAX_DEPTH + spread, i.e. any power of two >= 256.
 */
export const GENERATOR_BOOK_CAPACITY = 1024;

// Module-local copies of the record layout: a transpiler may turn imported bindings into getter
// calls (tsx does), which costs more than the rest of the hot path.
const BID = ev.BID;
const ASK = ev.ASK;
const MD_ADD = ev.MD_ADD;
const MD_CANCEL = ev.MD_CANCEL;
const MD_TRADE = ev.MD_TRADE;
const EV_TS = ev.EV_TS;
const EV_KIND = ev.EV_KIND;
const EV_SIDE = ev.EV_SIDE;
const EV_PRICE = ev.EV_PRICE;
const EV_QTY = ev.EV_QTY;
const EV_RECV = ev.EV_RECV;
const EV_STRIDE = ev.EV_STRIDE;

const NS = 1e9;
const SLOW_STEP_NS = 1 * NS; // update period of the U-shape and the log-variance factor
const DEPTH_TABLE_SIZE = 1024;
const UNIFORM_BLOCK = 1024;
const NORMAL_BLOCK = 256;
const TWO_POW_32 = 4294967296;
const KAPPA_CLIP = 5; // |kappa g| is clipped here (exp(5) ~ 148x)

const geoLn = (mean: number): number => (mean <= 1 ? -Infinity : Math.log(1 - 1 / mean));

/** The order-flow structure's fields (profiles.ts) in their domains, or an error naming the field. */
function checkFlow(p: MarketProfile): void {
  checkSize1('addSize1Prob', p.addSize1Prob);
  checkSize1('deepAddSize1Prob', p.deepAddSize1Prob);
  checkSize1('cancelSize1Prob', p.cancelSize1Prob);
  checkShare('tradeSize1Prob', p.tradeSize1Prob);
  checkShare('modifyDownShare', p.modifyDownShare);
  checkShare('modifyUpShare', p.modifyUpShare);
  if (!(p.modifyDownShare + p.modifyUpShare <= 1))
    throw new Error(`profile modifyDownShare + modifyUpShare must be at most 1, got ${p.modifyDownShare} + ${p.modifyUpShare}`);
  if (!(p.modifyPerCancel >= 0)) throw new Error(`profile modifyPerCancel must be >= 0 (modifies per best-level cancel), got ${p.modifyPerCancel}`);
  if (!(p.modifySize >= 1)) throw new Error(`profile modifySize must be >= 1 contract, got ${p.modifySize}`);
  if (!(p.burstBranching >= 0 && p.burstBranching < 1))
    throw new Error(`profile burstBranching must be in [0, 1) (stationary bursts), got ${p.burstBranching}`);
  if (!(p.burstDecayS > 0)) throw new Error(`profile burstDecayS must be > 0 seconds, got ${p.burstDecayS}`);
}

/** A size-1 share: below 1, so the rest of the sizes can keep the mean. */
function checkSize1(key: string, value: number): void {
  if (!(value >= 0 && value < 1)) throw new Error(`profile ${key} must be a probability in [0, 1), got ${value}`);
}

/** A profile probability must lie in [0, 1]. */
function checkShare(key: string, value: number): void {
  if (!(value >= 0 && value <= 1)) throw new Error(`profile ${key} must be a probability in [0, 1], got ${value}`);
}

// Kinds of the step that produced no event yet.
const STEP_EVENT = 1;
const STEP_RETRY = 0;
const STEP_END = -1;

export class MarketGenerator {
  readonly book: DenseBook;
  readonly startPriceTicks: number = 0;
  readonly profile: Readonly<MarketProfile>;
  readonly spec: ContractSpec;
  readonly date: string;
  readonly seed: number = 0;

  private readonly rng: Rng; // order flow
  private readonly latentRng: Rng; // efficient price and activity: same path whatever the flow parameters
  private readonly uniforms = new Float64Array(UNIFORM_BLOCK); // open interval (0, 1)
  private ui = UNIFORM_BLOCK;
  private readonly normals = new Float64Array(NORMAL_BLOCK);
  private ni = NORMAL_BLOCK;
  private readonly endNs: number = 0;
  private readonly activity: number = 0;
  private finished = false;
  private count = 0;

  // ---- clock and latent state ----
  private t = 0; // current time (ns, fractional)
  private ts = 0; // integer timestamp of the events being emitted
  private v = 0; // efficient price, ticks
  private h = 0; // log-variance OU state
  private hDay = 0; // the session's log-variance level
  private eps = 0; // transient pressure (ticks): the flow chases v + eps
  private gScale = 1; // varFactor^-kappaVolPower: informed sensitivity per tick, by volatility regime
  private readonly kappaVolPower: number = 0;
  private readonly epsDecay: number = 0; // per efficient-price step
  private readonly epsShock: number = 0;
  private varFactor = 1; // U(t) exp(h + hDay - s^2/2): variance-rate multiplier, mean 1
  private readonly sigma: number = 0; // ticks / sqrt(s) at varFactor = 1
  private readonly vStepNs: number = 0;
  private nextVNs = 0;
  private readonly bridgeEndNs: number = -Infinity; // the daily path's close time (continuousPath), else -Infinity: no bridge
  private readonly bridgeClose: number = 0; // the efficient price (ticks) there
  private raceNs = Infinity; // arrival of the first racer for the level a widened spread opened
  private readonly raceProb: number = 0;
  private readonly raceMeanNs: number = 0;
  private nextSlowNs = 0;
  private readonly uNorm: number = 0;
  private readonly spikeNorm: number = 1;

  // ---- intensity caches (recomputed when v, the activity or the touch changes) ----
  private cachedBid = 0;
  private cachedAsk = 0;
  private mUp = 1;
  private mDn = 1;
  private cUp = 1;
  private cDn = 1;
  private aUp = 1;
  private aDn = 1;
  private pBidInside = 0.5;
  private kAdd = 0; // best-level add events/s at q = queueTarget (times the queue factor)
  private kCan = 0; // best-level cancel events/s per resting contract
  private kMkt = 0; // market orders/s per side
  private kDeepAdd = 0; // deep add events/s per side
  private kDeepCan = 0; // deep cancel events/s per resting contract
  private kInside = 0;
  private kFill = 0; // re-layering events/s per empty level within MAX_DEPTH
  private kMod = 0; // best-level modify events/s per resting contract (modifyPerCancel x kCan)

  // ---- profile constants used per event ----
  private readonly qt: number = 0;
  private readonly kappaMarket: number = 0;
  private readonly kappaCancel: number = 0;
  private readonly kappaAdd: number = 0;
  private readonly kappaInside: number = 0;
  private readonly imbSens: number = 0;
  private readonly largeProb: number = 0;
  private readonly maxSweep: number = 0;
  private readonly lnAdd: number = 0;
  private readonly lnCancel: number = 0;
  private readonly lnTradeSmall: number = 0;
  private readonly lnTradeLarge: number = 0;
  private readonly lnBurst: number = 0;
  private readonly lnDeepAdd: number = 0;
  private readonly lnDeepCancel: number = 0;
  private readonly depthTable: Uint8Array; // uniform index -> distance 1..MAX_DEPTH, prop. to target size
  private readonly deepTarget: Float64Array; // target size at distance k
  private readonly baseAdd: number = 0;
  private readonly baseDeepAdd: number = 0;
  // Size mixtures: 1 with these probabilities, else the geometric (neutral 0: no draw changes).
  private readonly add1: number = 0;
  private readonly deepAdd1: number = 0;
  private readonly cancel1: number = 0;
  private readonly trade1: number = 0;
  private readonly add1Rest: number = 1; // 1 / (1 - p1): a multiplication per event, not a division
  private readonly deepAdd1Rest: number = 1;
  private readonly cancel1Rest: number = 1;
  private readonly trade1Rest: number = 1;
  private readonly modDown: number = 0; // shares of the modify kinds (the rest: price moves)
  private readonly modUp: number = 0;
  private readonly lnModSize: number = 0;

  // ---- Hawkes bursts: every intensity x ((1 - n) + excite) ----
  private readonly burstOn: boolean = false; // off: the waiting time takes today's draws exactly
  private readonly burstBase: number = 1; // 1 - n
  private readonly burstBeta: number = 0; // decay rate of excite, per second
  private readonly burstJump: number = 0; // n x beta: excite jumps by this / total base intensity
  private excite = 0;
  private readonly uniPerEvent: number = 2; // uniforms a random step takes (3 with bursts)

  // ---- book bookkeeping ----
  private readonly bids: Int32Array;
  private readonly asks: Int32Array;
  private readonly mask: number = 0;
  private totBid = 0;
  private totAsk = 0;
  private bidLow = 0; // no bid rests below this price
  private askHigh = 0; // no ask rests above this price

  // ---- multi-event actions ----
  private sweepSide = -1;
  private sweepRem = 0;
  private sweepLevels = 0;
  private readonly initSide: Uint8Array;
  private readonly initPrice: Float64Array;
  private readonly initQty: Float64Array;
  private initIdx = 0;
  private moveSide = 0; // the pending second half (MOD_MOVE_TO add) of a price modify
  private movePrice = 0;
  private moveQty = 0;

  // ---- the event being emitted ----
  private out: Float64Array | null = null;
  private outRing: RecordRing | null = null;
  private eKind = 0;
  private eSide = 0;
  private ePrice = 0;
  private eQty = 0;
  private eTag = 0; // modify-tags.ts: what the MBO export makes of the event

  constructor(spec: ContractSpec, date: string, seed: number, opts: GeneratorOptions) {
    if (!(opts.sessionEndNs > opts.sessionStartNs)) throw new Error('session end must be after its start');
    this.spec = spec;
    this.date = date;
    this.seed = seed;
    const p = profileFor(spec, opts.profile);
    checkFlow(p);
    this.profile = Object.freeze(p);
    this.activity = opts.activity ?? 1;
    if (!(this.activity > 0)) throw new Error(`activity must be positive, got ${opts.activity}`);
    this.rng = new Rng(hashSeed(`${spec.root}|${date}`, seed));
    const rng = this.rng;

    // Start price: uniform over the contract's typical range, on the tick grid (drawn with the
    // continuous path too, which overrides it, so the flow's random stream is the same).
    const lo = Math.ceil(spec.typicalLow / spec.tickSize - 1e-9);
    const hi = Math.floor(spec.typicalHigh / spec.tickSize + 1e-9);
    this.startPriceTicks = lo + rng.int(hi - lo + 1);
    const path = p.continuousPath ? dailyPath(spec, p, seed) : null;
    const day = path ? path.dayIndex(date) : -1;
    const hours = path ? pathHours(spec, date) : null;

    this.book = new DenseBook(GENERATOR_BOOK_CAPACITY);
    this.bids = this.book.bids;
    this.asks = this.book.asks;
    this.mask = this.book.mask;

    // The latent grid's origin: the window's start, or with the daily path the day's regular
    // open (the window's start when it opens earlier).
    const origin = hours ? Math.min(opts.sessionStartNs, hours.openNs) : opts.sessionStartNs;
    this.t = origin;
    this.ts = opts.sessionStartNs;
    this.endNs = opts.sessionEndNs;
    this.v = path ? path.openTicks[day] : this.startPriceTicks + 0.5;
    this.sigma = ticksPerSqrtSecond(p.annualVol, path ? path.openTicks[day] : this.startPriceTicks);
    if (path && hours) {
      this.bridgeEndNs = hours.closeNs;
      this.bridgeClose = path.closeTicks[day];
    }
    // Efficient-price step: ~0.25 tick standard deviation, between 5 ms and 50 ms.
    const stepS = Math.min(0.05, Math.max(0.005, (0.25 / this.sigma) ** 2));
    this.vStepNs = Math.round(stepS * NS);
    this.nextVNs = this.t; // the constructor's first latent step sets the intensities
    this.nextSlowNs = this.t;
    this.latentRng = new Rng(rng.nextU32());
    this.h = p.volOfVol * this.latentRng.normal(); // stationary start
    this.hDay = p.dailyVolDispersion * this.latentRng.normal();
    if (path) this.hDay = path.hDay[day];
    this.epsDecay = Math.exp(-stepS / p.pressureReversionS);
    this.epsShock = p.pressureTicks * Math.sqrt(1 - this.epsDecay * this.epsDecay);
    this.eps = p.pressureTicks * this.latentRng.normal();

    // U-shape normalised to mean 1 over the regular session.
    const L = (RTH_CLOSE_NS - RTH_OPEN_NS) / NS;
    const meanO = p.openBoost * (p.openDecayS / L) * (1 - Math.exp(-L / p.openDecayS));
    const meanC = p.closeBoost * (p.closeDecayS / L) * (1 - Math.exp(-L / p.closeDecayS));
    const meanOS = p.openSpikeBoost * (p.openSpikeDecayS / L) * (1 - Math.exp(-L / p.openSpikeDecayS));
    const meanCS = p.closeSpikeBoost * (p.closeSpikeDecayS / L) * (1 - Math.exp(-L / p.closeSpikeDecayS));
    this.uNorm = 1 / (1 + meanO + meanC);
    this.spikeNorm = 1 / (1 + meanOS + meanCS); // 1 without spikes

    this.qt = p.queueTarget;
    this.kappaMarket = p.kappaMarket;
    this.kappaCancel = p.kappaCancel;
    this.kappaAdd = p.kappaAdd;
    this.kappaInside = p.kappaInside;
    this.raceProb = p.raceProb;
    this.raceMeanNs = p.raceMeanUs * 1e3;
    this.kappaVolPower = p.kappaVolPower;
    this.imbSens = p.imbalanceSensitivity;
    this.largeProb = p.tradeLargeProb;
    this.maxSweep = p.maxSweepLevels;
    // A size-1 share p1 keeps the mean size: the rest are geometric of mean (mean - p1) / (1 - p1)
    // (the mean itself when p1 = 0).
    this.lnAdd = geoLn((p.addSize - p.addSize1Prob) / (1 - p.addSize1Prob));
    this.lnCancel = geoLn((p.cancelSize - p.cancelSize1Prob) / (1 - p.cancelSize1Prob));
    this.lnTradeSmall = geoLn(p.tradeSizeSmall);
    this.lnTradeLarge = geoLn(p.tradeSizeLarge);
    this.lnBurst = geoLn(p.burstSize);
    this.lnDeepAdd = geoLn((p.deepAddSize - p.deepAddSize1Prob) / (1 - p.deepAddSize1Prob));
    this.lnDeepCancel = geoLn(p.deepCancelSize);
    this.add1 = p.addSize1Prob;
    this.deepAdd1 = p.deepAddSize1Prob;
    this.cancel1 = p.cancelSize1Prob;
    this.trade1 = p.tradeSize1Prob;
    this.add1Rest = 1 / (1 - p.addSize1Prob);
    this.deepAdd1Rest = 1 / (1 - p.deepAddSize1Prob);
    this.cancel1Rest = 1 / (1 - p.cancelSize1Prob);
    this.trade1Rest = 1 / (1 - p.tradeSize1Prob);
    this.modDown = p.modifyDownShare;
    this.modUp = p.modifyUpShare;
    this.lnModSize = geoLn(p.modifySize);
    this.burstOn = p.burstBranching > 0;
    this.burstBase = 1 - p.burstBranching;
    this.burstBeta = 1 / p.burstDecayS;
    this.burstJump = p.burstBranching * this.burstBeta;
    this.uniPerEvent = this.burstOn ? 3 : 2;
    // Market orders' size-1 share adds 1-lots to today's mixture: p x 1 + (1 - p) x its mean (= the
    // mean exactly when p = 0).
    const meanTrade = p.tradeSize1Prob + (1 - p.tradeSize1Prob) * ((1 - p.tradeLargeProb) * p.tradeSizeSmall + p.tradeLargeProb * p.tradeSizeLarge);
    // Contracts/s modifies take out of a best queue at queueTarget (moves: as many in as out).
    const modOut = ((p.modifyPerCancel * p.cancelHazard) / p.cancelSize) * p.queueTarget * (p.modifyDownShare - p.modifyUpShare) * p.modifySize;
    // Best-level balance at q = queueTarget: adds = cancels + market orders + modifies (contracts/s).
    this.baseAdd = (p.cancelHazard * p.queueTarget + p.marketRate * meanTrade + modOut) / p.addSize;

    // Deep profile: near (distance 1) -> peak (distance 4) -> far (MAX_DEPTH).
    this.deepTarget = new Float64Array(MAX_DEPTH + 1);
    let sumTarget = 0;
    for (let k = 1; k <= MAX_DEPTH; k++) {
      const s =
        k <= 4
          ? p.deepShapeNear + ((p.deepShapePeak - p.deepShapeNear) * (k - 1)) / 3
          : p.deepShapePeak + ((p.deepShapeFar - p.deepShapePeak) * (k - 4)) / (MAX_DEPTH - 4);
      this.deepTarget[k] = s * p.queueTarget;
      sumTarget += this.deepTarget[k];
    }
    this.depthTable = new Uint8Array(DEPTH_TABLE_SIZE);
    for (let i = 0, k = 1, cum = this.deepTarget[1]; i < DEPTH_TABLE_SIZE; i++) {
      const x = ((i + 0.5) / DEPTH_TABLE_SIZE) * sumTarget;
      while (x > cum && k < MAX_DEPTH) cum += this.deepTarget[++k];
      this.depthTable[i] = k;
    }
    this.baseDeepAdd = (p.deepCancelHazard * sumTarget) / p.deepAddSize;

    if (path) {
      // The latent steps from the regular open up to the window's start (only the first when
      // the window starts there), then the book opens around v.
      while (this.nextVNs <= opts.sessionStartNs) {
        this.t = this.nextVNs;
        this.advanceLatent();
      }
      this.t = opts.sessionStartNs;
      this.startPriceTicks = Math.floor(this.v);
    }

    // Initial book: best bid = start, best ask = start + 1, MAX_DEPTH levels behind each.
    const n = 2 * (MAX_DEPTH + 1);
    this.initSide = new Uint8Array(n);
    this.initPrice = new Float64Array(n);
    this.initQty = new Float64Array(n);
    let i = 0;
    for (let side = BID; side <= ASK; side++) {
      for (let k = 0; k <= MAX_DEPTH; k++) {
        const target = k === 0 ? p.queueTarget : this.deepTarget[k];
        this.initSide[i] = side;
        this.initPrice[i] = side === BID ? this.startPriceTicks - k : this.startPriceTicks + 1 + k;
        this.initQty[i] = Math.max(1, Math.round(target * (0.6 + 0.8 * rng.next())));
        i++;
      }
    }
    this.bidLow = this.startPriceTicks - MAX_DEPTH;
    this.askHigh = this.startPriceTicks + 1 + MAX_DEPTH;
    if (!path) this.advanceLatent();
  }

  get done(): boolean {
    return this.finished;
  }

  get eventsGenerated(): number {
    return this.count;
  }

  /** Efficient (latent) price in ticks: diagnostics and tests only, not visible to the engine. */
  get efficientPrice(): number {
    return this.v;
  }

  /** Exchange time (ns) of the last event generated (the session end once done). */
  get timeNs(): number {
    return this.ts;
  }

  /**
   * Writes up to maxEvents records into ring (the caller guarantees ring.free() >= maxEvents),
   * publishes them, and returns how many; 0 once the session end is reached. With `tags`
   * (length >= maxEvents), tags[i] says which records of this call are order modifies
   * (modify-tags.ts): only the MBO export needs them, L2 consumers see the level changes.
   */
  generate(ring: RecordRing, maxEvents: number, tags?: Uint8Array): number {
    if (ring.stride !== EV_STRIDE) throw new Error(`market ring stride ${ring.stride} != EV_STRIDE ${EV_STRIDE}`);
    if (tags !== undefined && tags.length < maxEvents) throw new RangeError(`generate: ${tags.length} tags for up to ${maxEvents} events`);
    this.outRing = ring;
    this.out = ring.data;
    const initLen = this.initQty.length;
    let n = 0;
    while (n < maxEvents && !this.finished) {
      let r: number;
      if (this.initIdx < initLen) r = this.initStep();
      else if (this.sweepSide >= 0) r = this.sweepStep();
      else if (this.moveQty > 0) r = this.moveStep();
      else if (this.book.bestBid - this.bidLow > MAX_DEPTH || this.askHigh - this.book.bestAsk > MAX_DEPTH) r = this.pruneStep();
      else r = this.randomStep();
      if (r === STEP_EVENT) {
        this.emit();
        if (tags !== undefined) tags[n] = this.eTag;
        this.eTag = 0;
        n++;
      } else if (r === STEP_END) {
        this.finished = true;
        this.ts = this.endNs;
      }
    }
    if (n > 0) ring.publish();
    this.outRing = null;
    this.out = null;
    this.count += n;
    return n;
  }

  /** Writes the pending event (eKind, eSide, ePrice, eQty at ts) and applies it to the book. */
  private emit(): void {
    const kind = this.eKind;
    const side = this.eSide;
    const price = this.ePrice;
    const qty = this.eQty;
    const off = (this.outRing as RecordRing).claimUnchecked();
    const d = this.out as Float64Array;
    d[off + EV_TS] = this.ts;
    d[off + EV_KIND] = kind;
    d[off + EV_SIDE] = side;
    d[off + EV_PRICE] = price;
    d[off + EV_QTY] = qty;
    d[off + EV_RECV] = this.ts;
    const delta = kind === MD_ADD ? qty : -qty;
    this.book.update(side, price, delta); // = book.apply(kind, side, price, qty)
    if (side === BID) {
      this.totBid += delta;
      if (price < this.bidLow && kind === MD_ADD) this.bidLow = price;
    } else {
      this.totAsk += delta;
      if (price > this.askHigh && kind === MD_ADD) this.askHigh = price;
    }
    if (this.book.bestBid !== this.cachedBid || this.book.bestAsk !== this.cachedAsk) {
      const wasGap = this.cachedAsk - this.cachedBid > 1;
      this.cachedBid = this.book.bestBid;
      this.cachedAsk = this.book.bestAsk;
      this.informed();
      const gap = this.cachedAsk - this.cachedBid > 1;
      if (!gap) this.raceNs = Infinity;
      else if (!wasGap && this.initIdx >= this.initQty.length) this.startRace();
    }
  }

  /** The spread just widened: maybe a racer for the opened level, at t + an exponential delay. */
  private startRace(): void {
    if (this.ui > UNIFORM_BLOCK - 2) this.refillUniforms();
    const race = this.uniforms[this.ui] < this.raceProb;
    const delay = -Math.log(this.uniforms[this.ui + 1]) * this.raceMeanNs;
    this.ui += 2;
    this.raceNs = race ? this.t + delay : Infinity;
  }

  /** The first racer reaches the gap: a burst ADD on the side the informed pressure favours. */
  private raceStep(): number {
    this.raceNs = Infinity;
    if (this.ui > UNIFORM_BLOCK - 2) this.refillUniforms();
    const pb = this.pBidInside;
    const x = this.uniforms[this.ui];
    const y = this.uniforms[this.ui + 1];
    this.ui += 2;
    const q = 1 + Math.floor(Math.log(Math.max(1e-12, 1 - y)) / this.lnBurst);
    return x < pb ? this.set(MD_ADD, BID, this.book.bestBid + 1, q) : this.set(MD_ADD, ASK, this.book.bestAsk - 1, q);
  }

  private set(kind: number, side: number, price: number, qty: number): number {
    this.eKind = kind;
    this.eSide = side;
    this.ePrice = price;
    this.eQty = qty;
    return STEP_EVENT;
  }

  /** A modify's level change, tagged for the MBO export. */
  private setMod(kind: number, side: number, price: number, qty: number, tag: number): number {
    this.eTag = tag;
    return this.set(kind, side, price, qty);
  }

  /** The second half of a price modify: the order arrives at its new price (same timestamp). */
  private moveStep(): number {
    const q = this.moveQty;
    this.moveQty = 0;
    return this.setMod(MD_ADD, this.moveSide, this.movePrice, q, MOD_MOVE_TO);
  }

  private initStep(): number {
    const i = this.initIdx++;
    return this.set(MD_ADD, this.initSide[i], this.initPrice[i], this.initQty[i]);
  }

  // ---- latent process ----

  /**
   * Latent step at this.t: every SLOW_STEP_NS the U-shape, the log-variance factor and the
   * intensities derived from them; every vStepNs the efficient price. One method, so the
   * once-a-second part runs in the same optimised code as the frequent one (a separately
   * called cold function may run unoptimised, and unoptimised code boxes every double).
   */
  private advanceLatent(): void {
    const p = this.profile;
    if (this.t >= this.nextSlowNs) {
      const tod = this.t;
      // Activity peaks at the 09:30 open and the 16:00 close and decays away from both.
      const sinceOpen = Math.abs(tod - RTH_OPEN_NS) / NS;
      const toClose = Math.abs(RTH_CLOSE_NS - tod) / NS;
      const u = this.uNorm * (1 + p.openBoost * Math.exp(-sinceOpen / p.openDecayS) + p.closeBoost * Math.exp(-toClose / p.closeDecayS));
      // The spikes at the open and the close: order flow only (1 exactly without them).
      const spike =
        this.spikeNorm * (1 + p.openSpikeBoost * Math.exp(-sinceOpen / p.openSpikeDecayS) + p.closeSpikeBoost * Math.exp(-toClose / p.closeSpikeDecayS));
      // Log-normal factors normalised to mean 1 across sessions.
      const s2 = p.volOfVol * p.volOfVol + p.dailyVolDispersion * p.dailyVolDispersion;
      const c = p.activityVolCoupling;
      const h = this.h + this.hDay;
      this.varFactor = u * Math.exp(h - 0.5 * s2);
      this.gScale = Math.pow(this.varFactor, -this.kappaVolPower);
      const a = u * Math.exp(c * h - 0.5 * c * c * s2) * this.activity * spike;
      this.kAdd = a * this.baseAdd;
      this.kCan = (a * p.cancelHazard) / p.cancelSize;
      this.kMkt = a * p.marketRate;
      this.kDeepAdd = a * this.baseDeepAdd;
      this.kDeepCan = (a * p.deepCancelHazard) / p.deepCancelSize;
      this.kInside = a * p.insideRate;
      this.kFill = a * p.emptyLevelFillRate;
      this.kMod = this.kCan * p.modifyPerCancel;
      // OU step of h for the next interval (exact discretisation).
      const r = Math.exp(-SLOW_STEP_NS / NS / p.volMeanReversionS);
      if (this.ni === NORMAL_BLOCK) this.refillNormals();
      this.h = this.h * r + p.volOfVol * Math.sqrt(1 - r * r) * this.normals[this.ni++];
      this.nextSlowNs += SLOW_STEP_NS;
    }
    if (this.ni === NORMAL_BLOCK) this.refillNormals();
    const left = this.bridgeEndNs - this.t;
    if (left > 0) {
      // Brownian bridge to the day's close: f of the way there, and the bridge's share of the noise.
      const f = Math.min(1, this.vStepNs / left);
      this.v += (this.bridgeClose - this.v) * f + this.sigma * Math.sqrt((this.varFactor * this.vStepNs * (1 - f)) / NS) * this.normals[this.ni++];
    } else {
      this.v += this.sigma * Math.sqrt((this.varFactor * this.vStepNs) / NS) * this.normals[this.ni++];
    }
    if (this.ni === NORMAL_BLOCK) this.refillNormals();
    this.eps = this.eps * this.epsDecay + this.epsShock * this.normals[this.ni++];
    this.nextVNs += this.vStepNs;
    this.informed();
  }

  /** Informed-flow multipliers from g = (v + eps - mid) x gScale (|kappa g| clipped at KAPPA_CLIP). */
  private informed(): void {
    // Written out without helpers (hot-path rule 7) and clipped with Math.min/max (hot-path rule
    // 4: a ternary mixing a small-integer constant with a double boxed the result on every call).
    const g = (this.v + this.eps - 0.5 * (this.cachedBid + this.cachedAsk)) * this.gScale;
    let x = this.kappaMarket * g;
    x = Math.max(-KAPPA_CLIP, Math.min(KAPPA_CLIP, x));
    this.mUp = Math.exp(x);
    this.mDn = 1 / this.mUp;
    x = this.kappaCancel * g;
    x = Math.max(-KAPPA_CLIP, Math.min(KAPPA_CLIP, x));
    this.cUp = Math.exp(x);
    this.cDn = 1 / this.cUp;
    x = this.kappaAdd * g;
    x = Math.max(-KAPPA_CLIP, Math.min(KAPPA_CLIP, x));
    this.aUp = Math.exp(x);
    this.aDn = 1 / this.aUp;
    x = this.kappaInside * g;
    x = Math.max(-KAPPA_CLIP, Math.min(KAPPA_CLIP, x));
    this.pBidInside = 1 / (1 + Math.exp(-x));
  }

  // ---- event steps ----

  /** Draws the next random event into e*; STEP_END when the session ends first. */
  private randomStep(): number {
    const book = this.book;
    const bb = book.bestBid;
    const ba = book.bestAsk;
    const qb = this.bids[bb & this.mask];
    const qa = this.asks[ba & this.mask];
    const qt = this.qt;
    const rBidAdd = (this.kAdd * this.aUp * 2 * qt) / (qb + qt);
    const rAskAdd = (this.kAdd * this.aDn * 2 * qt) / (qa + qt);
    const rBidCan = this.kCan * this.cDn * qb;
    const rAskCan = this.kCan * this.cUp * qa;
    const imb = (this.imbSens * (qb - qa)) / (qb + qa);
    const rSell = this.kMkt * this.mDn * (1 - imb);
    const rBuy = this.kMkt * this.mUp * (1 + imb);
    const rDeepAdd = this.kDeepAdd;
    const rBidDeepCan = this.kDeepCan * (this.totBid - qb);
    const rAskDeepCan = this.kDeepCan * (this.totAsk - qa);
    // Empty levels within MAX_DEPTH behind each touch (every level rests within it: pruned).
    const bidEmpty = MAX_DEPTH + 1 - book.bidLevels;
    const askEmpty = MAX_DEPTH + 1 - book.askLevels;
    const rBidFill = bidEmpty > 0 ? this.kFill * bidEmpty : 0;
    const rAskFill = askEmpty > 0 ? this.kFill * askEmpty : 0;
    const rInside = ba - bb > 1 ? this.kInside : 0;
    const rBidMod = this.kMod * qb;
    const rAskMod = this.kMod * qa;
    // Without modifies the last two terms add 0: the same total, bit for bit.
    const total =
      rBidAdd + rAskAdd + rBidCan + rAskCan + rSell + rBuy + 2 * rDeepAdd + rBidDeepCan + rAskDeepCan + rBidFill + rAskFill + rInside + rBidMod + rAskMod;

    // Two uniforms per event: the waiting time and the event choice (a third with bursts). Within
    // the chosen branch the position of u inside that branch's intensity is itself uniform and
    // independent of the choice; it supplies the branch's further draws (level, size) by the
    // same rescaling.
    if (this.ui > UNIFORM_BLOCK - this.uniPerEvent) this.refillUniforms();
    const uni = this.uniforms;
    let tn: number;
    let decay = 0; // e^(-beta wait) when the excitation's part of the intensity arrives first
    if (this.burstOn) {
      // Intensity total x (base + excite e^(-beta s)) over the wait s: exact sampling as the
      // earlier of the baseline's exponential arrival and the decaying part's (Dassios & Zhao),
      // whose e^(-beta s) is d itself (no exp for the excitation's decay below).
      let s = -Math.log(uni[this.ui]) / (total * this.burstBase);
      const b = total * this.excite;
      const d = 1 + (this.burstBeta * Math.log(uni[this.ui + 2])) / b; // -Infinity when b = 0
      if (d > 0) {
        const s2 = -Math.log(d) / this.burstBeta;
        if (s2 < s) {
          s = s2;
          decay = d;
        }
      }
      tn = this.t + s * NS;
    } else tn = this.t - (Math.log(uni[this.ui]) * NS) / total;
    let u = uni[this.ui + 1] * total;
    this.ui += this.uniPerEvent;
    if (this.raceNs <= tn && this.raceNs < this.nextVNs) {
      // The racer arrives before the next random event (memoryless: the draw is discarded).
      if (this.raceNs >= this.endNs) return STEP_END;
      if (this.burstOn) this.excite *= Math.exp((-this.burstBeta * (this.raceNs - this.t)) / NS);
      this.t = this.raceNs;
      this.ts = Math.floor(this.raceNs);
      return this.raceStep();
    }
    if (tn >= this.nextVNs) {
      // The efficient price moves first; intensities change: redraw (memoryless).
      if (this.nextVNs >= this.endNs) return STEP_END;
      if (this.burstOn) this.excite *= Math.exp((-this.burstBeta * (this.nextVNs - this.t)) / NS);
      this.t = this.nextVNs;
      this.advanceLatent();
      return STEP_RETRY;
    }
    if (tn >= this.endNs) return STEP_END;
    // The event excites: n x beta / total, so it triggers n events on average (n / total of
    // them per unit of excite-time at this intensity).
    if (this.burstOn) this.excite = this.excite * (decay > 0 ? decay : Math.exp((-this.burstBeta * (tn - this.t)) / NS)) + this.burstJump / total;
    this.t = tn;
    this.ts = Math.floor(tn);

    // Geometric sizes: 1 + floor(ln(1 - x) / ln(1 - 1/mean)) for a uniform x in [0, 1); a
    // size-1 share p1 first takes x < p1, the rest rescaled to (x - p1) x 1 / (1 - p1) (= x when
    // p1 = 0: the same sizes as without the mixture).
    // (u is reduced one intensity at a time, as the branch boundaries have always been computed.)
    const bidAdd = u < rBidAdd;
    if (bidAdd || u - rBidAdd < rAskAdd) {
      const bid = bidAdd;
      const x = bid ? u / rBidAdd : (u - rBidAdd) / rAskAdd;
      const p1 = this.add1;
      const q = x < p1 ? 1 : 1 + Math.floor(Math.log(Math.max(1e-12, 1 - (x - p1) * this.add1Rest)) / this.lnAdd);
      return bid ? this.set(MD_ADD, BID, bb, q) : this.set(MD_ADD, ASK, ba, q);
    }
    u -= rBidAdd;
    u -= rAskAdd;
    const bidCan = u < rBidCan;
    if (bidCan || u - rBidCan < rAskCan) {
      const bid = bidCan;
      const x = bid ? u / rBidCan : (u - rBidCan) / rAskCan;
      const p1 = this.cancel1;
      let q = x < p1 ? 1 : 1 + Math.floor(Math.log(Math.max(1e-12, 1 - (x - p1) * this.cancel1Rest)) / this.lnCancel);
      const qs = bid ? qb : qa;
      if (q >= qs) q = (bid ? book.bidLevels : book.askLevels) > 1 ? qs : qs - 1; // never empty a side
      return q > 0 ? this.set(MD_CANCEL, bid ? BID : ASK, bid ? bb : ba, q) : STEP_RETRY;
    }
    u -= rBidCan;
    u -= rAskCan;
    if (u < rSell + rBuy) {
      const sell = u < rSell;
      const x0 = sell ? u / rSell : (u - rSell) / rBuy;
      const p1 = this.trade1;
      this.sweepSide = sell ? BID : ASK;
      this.sweepLevels = 0;
      if (x0 < p1) {
        this.sweepRem = 1;
        return this.sweepStep();
      }
      const x = (x0 - p1) * this.trade1Rest;
      const p = this.largeProb;
      const large = x < p;
      const y = large ? x / p : (x - p) / (1 - p);
      this.sweepRem = 1 + Math.floor(Math.log(Math.max(1e-12, 1 - y)) / (large ? this.lnTradeLarge : this.lnTradeSmall));
      return this.sweepStep();
    }
    u -= rSell + rBuy;
    if (u < 2 * rDeepAdd) {
      const bid = u < rDeepAdd;
      const x = (bid ? u / rDeepAdd : u / rDeepAdd - 1) * DEPTH_TABLE_SIZE;
      const i = Math.min(DEPTH_TABLE_SIZE - 1, x | 0);
      const y = x - i;
      const k = this.depthTable[i];
      const price = bid ? bb - k : ba + k;
      const empty = (bid ? this.bids[price & this.mask] : this.asks[price & this.mask]) === 0;
      // A new level opens with a refill burst (10%-50% of its target size).
      const p1 = this.deepAdd1;
      const q = empty
        ? Math.max(1, Math.round(this.deepTarget[k] * (0.1 + 0.4 * y)))
        : y < p1
          ? 1
          : 1 + Math.floor(Math.log(Math.max(1e-12, 1 - (y - p1) * this.deepAdd1Rest)) / this.lnDeepAdd);
      return this.set(MD_ADD, bid ? BID : ASK, price, q);
    }
    u -= 2 * rDeepAdd;
    if (u < rBidDeepCan) {
      let r = u / this.kDeepCan; // uniform over the deep bid contracts: cancels prop. to size
      for (let price = bb - 1; price >= this.bidLow; price--) {
        const s = this.bids[price & this.mask];
        if (r < s) {
          const q = 1 + Math.floor(Math.log(Math.max(1e-12, 1 - r / s)) / this.lnDeepCancel);
          return this.set(MD_CANCEL, BID, price, q < s ? q : s);
        }
        r -= s;
      }
      return STEP_RETRY;
    }
    u -= rBidDeepCan;
    if (u < rAskDeepCan) {
      let r = u / this.kDeepCan;
      for (let price = ba + 1; price <= this.askHigh; price++) {
        const s = this.asks[price & this.mask];
        if (r < s) {
          const q = 1 + Math.floor(Math.log(Math.max(1e-12, 1 - r / s)) / this.lnDeepCancel);
          return this.set(MD_CANCEL, ASK, price, q < s ? q : s);
        }
        r -= s;
      }
      return STEP_RETRY;
    }
    u -= rAskDeepCan;
    if (u < rBidFill + rAskFill) {
      // Re-layer an empty level, uniformly among the empty ones: the j-th empty distance.
      const bid = u < rBidFill;
      const x = bid ? (u / rBidFill) * bidEmpty : ((u - rBidFill) / rAskFill) * askEmpty;
      let j = x | 0;
      const y = x - j;
      for (let k = 1; k <= MAX_DEPTH; k++) {
        const price = bid ? bb - k : ba + k;
        if ((bid ? this.bids[price & this.mask] : this.asks[price & this.mask]) === 0 && j-- === 0) {
          return this.set(MD_ADD, bid ? BID : ASK, price, Math.max(1, Math.round(this.deepTarget[k] * (0.1 + 0.4 * y))));
        }
      }
      return STEP_RETRY;
    }
    u -= rBidFill + rAskFill;
    if (u < rInside) {
      // Inside the spread: the new best level opens with a burst; its side follows g.
      const x = u / rInside;
      const pb = this.pBidInside;
      const bid = x < pb;
      const y = bid ? x / pb : (x - pb) / (1 - pb);
      const q = 1 + Math.floor(Math.log(Math.max(1e-12, 1 - y)) / this.lnBurst);
      return bid ? this.set(MD_ADD, BID, bb + 1, q) : this.set(MD_ADD, ASK, ba - 1, q);
    }
    u -= rInside;
    if (u < rBidMod + rAskMod) {
      // A modify of an order at the best: its size down or up, or its price one tick.
      const bid = u < rBidMod;
      const x = bid ? u / rBidMod : (u - rBidMod) / rAskMod;
      const side = bid ? BID : ASK;
      const best = bid ? bb : ba;
      const qs = bid ? qb : qa;
      const pd = this.modDown;
      const pu = this.modUp;
      if (x < pd + pu) {
        const down = x < pd;
        const y = down ? x / pd : (x - pd) / pu;
        const q = 1 + Math.floor(Math.log(Math.max(1e-12, 1 - y)) / this.lnModSize);
        // A size-down leaves the order (and the level) at least one contract.
        if (down) return q < qs ? this.setMod(MD_CANCEL, side, best, q, MOD_DOWN) : STEP_RETRY;
        return this.setMod(MD_ADD, side, best, q, MOD_UP);
      }
      // Price moves: half from the best one tick away from the touch, half from one tick
      // behind onto the best; the order (size q) leaves, then arrives at the back (moveStep).
      const z = (x - pd - pu) / (1 - pd - pu);
      const away = z < 0.5;
      const w = away ? 2 * z : 2 * z - 1;
      const q = 1 + Math.floor(Math.log(Math.max(1e-12, 1 - w)) / this.lnModSize);
      const behind = bid ? bb - 1 : ba + 1;
      const from = away ? best : behind;
      const avail = away ? qs : bid ? this.bids[behind & this.mask] : this.asks[behind & this.mask];
      if (away ? q >= avail : q > avail) return STEP_RETRY; // a move never empties the best
      this.moveSide = side;
      this.movePrice = away ? behind : best;
      this.moveQty = q;
      return this.setMod(MD_CANCEL, side, from, q, MOD_MOVE_FROM);
    }
    return STEP_RETRY; // rounding at the top of the cumulative intensities
  }

  private refillUniforms(): void {
    const rng = this.rng;
    const a = this.uniforms;
    for (let i = 0; i < UNIFORM_BLOCK; i++) a[i] = (rng.nextU32() + 0.5) / TWO_POW_32;
    this.ui = 0;
  }

  /** Standard normals by Box-Muller, both of each pair. */
  private refillNormals(): void {
    const rng = this.latentRng;
    const a = this.normals;
    for (let i = 0; i < NORMAL_BLOCK; i += 2) {
      const r = Math.sqrt(-2 * Math.log((rng.nextU32() + 0.5) / TWO_POW_32));
      const th = (2 * Math.PI * rng.nextU32()) / TWO_POW_32;
      a[i] = r * Math.cos(th);
      a[i + 1] = r * Math.sin(th);
    }
    this.ni = 0;
  }

  /** Next trade of a market order walking the book; STEP_RETRY when it cannot trade further. */
  private sweepStep(): number {
    const book = this.book;
    const side = this.sweepSide;
    const price = side === BID ? book.bestBid : book.bestAsk;
    const avail = side === BID ? this.bids[price & this.mask] : this.asks[price & this.mask];
    let q = this.sweepRem < avail ? this.sweepRem : avail;
    // Never empty a side: the last level keeps one contract.
    if (q === avail && (side === BID ? book.bidLevels : book.askLevels) === 1) q = avail - 1;
    this.sweepRem -= q;
    if (this.sweepRem <= 0 || ++this.sweepLevels >= this.maxSweep || q <= 0) this.sweepSide = -1;
    return q > 0 ? this.set(MD_TRADE, side, price, q) : STEP_RETRY;
  }

  /** Removes one level beyond MAX_DEPTH from its side's best, if any. */
  private pruneStep(): number {
    const bb = this.book.bestBid;
    while (bb - this.bidLow > MAX_DEPTH) {
      const price = this.bidLow++;
      const s = this.bids[price & this.mask];
      if (s > 0) return this.set(MD_CANCEL, BID, price, s);
    }
    const ba = this.book.bestAsk;
    while (this.askHigh - ba > MAX_DEPTH) {
      const price = this.askHigh--;
      const s = this.asks[price & this.mask];
      if (s > 0) return this.set(MD_CANCEL, ASK, price, s);
    }
    return STEP_RETRY;
  }
}
