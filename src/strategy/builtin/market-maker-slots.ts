// The built-in market maker's constants (market-maker.ts), in a module that imports nothing
// (hot-path rule 6).

// Slots of the settled decision (`band`): what it rested on, and the bands it stands in.
export const MS_BID = 0; // touch, ticks
export const MS_ASK = 1;
export const MS_POS = 2;
export const MS_REDUCE = 3; // 1: decided in the reduce-only window
export const MS_SUM_LO = 4; // the lowest volatility sum (FeatureBand.writeVolatilitySum) that gives the same quotes
export const MS_SUM_NOW = 5; // the sum at the decision (the trials are fractions of it)
export const MS_TRIAL_SUM = 6; // a trial sum and its volatility (FeatureBand.volatilityFor; adjacent)
export const MS_TRIAL_SIGMA = 7;
export const MS_SIGNAL_LO = 8; // the range of model signals in which decide() gives the same quotes
export const MS_SIGNAL_HI = 9; // (MarketMaker.signalBand): the signal alone without a band, NaN without a signal
export const MS_VOL_MOVES = 10; // FeatureBand.volatilityStandInto: the mid changes so far, and the
export const MS_VOL_UNTIL = 11; // exchange time up to which the sum stays in the band (adjacent)
export const MS_COUNT = 12;

// Trial lower ends of the band, as fractions of the sum at the decision: 0 (every volatility
// down to the floor), then about 6 % and 0.8 % of the sum (3 % and 0.4 % of the volatility; with
// the default 10 s horizon the sum decays by about 0.1 % per event between mid changes). settle()
// tries the estimate of where the quotes change (MarketMaker.lowestSigmaEstimate) after the
// first: on the bench's session it holds in nearly every settle, and the band then lasts until
// the quotes would change rather than a fixed fraction (33k requotes that sent nothing, of 131k,
// fell to 1.7k).
export const BAND_TRIALS = [0, 1 - 1 / 16, 1 - 1 / 128];
