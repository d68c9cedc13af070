// MarketMaker's constants (market-maker.ts), in a module that imports nothing (hot-path rule 6).

/** Float inputs of decide(), written by the caller into `inputs` (hot-path rule 3). */
export const IN_SIGMA = 0; // mid volatility, ticks per sqrt(second)
export const IN_SIGNAL = 1; // model's expected mid move, ticks (NaN: none)
export const IN_SIGMA_LO = 2; // a lower volatility sameQuotesAt() tries
export const IN_SIGNAL_TRIAL = 3; // a signal signalBand() tries
export const IN_COUNT = 4;

// Slots of a quote (decide()'s outputs; sameQuotesAt() and signalBand() compare the shift too).
export const Q_BID = 0; // ticks, NO_PRICE: do not quote
export const Q_ASK = 1;
export const Q_BID_SIZE = 2; // contracts
export const Q_ASK_SIZE = 3;
export const Q_SHIFT = 4; // the inventory shift of the reservation price, rounded to half ticks
export const Q_BID_RAW = 5; // what the bid and ask are the floor and ceiling of (signalBand())
export const Q_ASK_RAW = 6;
export const Q_COUNT = 7;

/** signalBand() keeps its range this far inside the estimated one (0.1 %), so float error at its edge cannot change a tick. */
export const BAND_INSIDE = 0.999;

export const HORIZON_S = 1;
export const MIN_SIGMA = 0.05; // ticks / sqrt(s): floor so a silent market still has a defined spread
export const EPS = 1e-9;
