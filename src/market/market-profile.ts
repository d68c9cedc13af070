// The parameters of a root's synthetic market (the generator's MarketProfile). A contract spec may
// carry one (instruments.ts); the calibrated values and the derivation per root are in profiles.ts.
// Units: sizes in contracts, rates in events per second per book side at activity factor 1 (the
// intraday U-shape and stochastic activity multiply them), hazards per second per resting contract.

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
