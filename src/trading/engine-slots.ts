// Engine's constants (engine.ts): the slots of its per-event doubles and the order cap per side.
// In a module that imports nothing because esbuild inlines module constants into the bundle
// only from such a module: declared in engine.ts, every `c[C_...]` on the per-event path first
// loaded the index from the module context and checked and untagged it. Internal to engine.ts.

export const MAX_ORDERS_PER_SIDE = 4; // working + cancels in flight

// The engine's per-event doubles, in one Float64Array (`clock`): a double stored into a number
// field V8 has not settled as a double, or passed to or returned from a call it does not inline,
// is boxed in a fresh HeapNumber, an allocation per event. Callees read pairs of adjacent slots.
export const C_NOW = 0; // engine clock: receive time of the last input, ns (latency.orderEntry reads it)
export const C_EQUITY = 1; // the value of the last equity check (risk.checkEquity reads C_NOW, C_EQUITY)
export const C_EXCH = 2; // exchange time of the last market event, ns
export const C_MID = 3; // book mid at the last two-sided market event, ticks (markouts.resolve reads C_EXCH, C_MID)
export const C_CHECKED_MID = 4; // the mid and the portfolio's fill count of the last equity check (NaN: none yet)
export const C_CHECKED_FILLS = 5;
export const C_NEXT_SAMPLE = 6; // next equity sample time, ns
export const C_NEXT_QUOTE = 7; // next quote sample time, ns (Infinity: not sampling)
export const C_NEXT_PREDICT = 8; // next model evaluation, exchange ns
export const C_SIGNAL = 9; // latest model output, ticks (NaN: none)
export const C_SIGNAL_TS = 10; // its exchange time (-1: none)
export const C_DUE = 11; // the earliest of the markouts' due time and the three above (Engine.timedChecks)
export const C_QUIET_UNTIL = 12; // a quiet event (Engine.quietBounds) comes before this exchange time: C_DUE and QS_UNTIL's earlier
export const C_COUNT = 13;

// The inputs of the last requote that left the quotes standing (Engine.quotesStand): while they
// hold, decide() would give the same quotes and the requote would send nothing.
export const QS_BID = 0; // touch, ticks
export const QS_ASK = 1;
export const QS_POS = 2; // position, contracts
export const QS_SUM_LO = 3; // the lowest volatility sum (FeatureExtractor.writeVolatilitySum) that gives the same quotes
export const QS_SUM_NOW = 4; // the sum at the requote (the trials are fractions of it)
export const QS_UNTIL = 5; // exchange time the reduce-only window starts (Infinity: already in it)
export const QS_TRIAL_SUM = 6; // a trial sum and its volatility (FeatureExtractor.volatilityFor)
export const QS_TRIAL_SIGMA = 7;
export const QS_SIGNAL_LO = 8; // the range of model signals in which decide() gives the same quotes
export const QS_SIGNAL_HI = 9; // (MarketMaker.signalBand): the signal alone without a band, NaN without a signal
export const QS_VOL_MOVES = 10; // FeatureExtractor.volatilityStandInto: the mid changes so far, and the
export const QS_VOL_UNTIL = 11; // exchange time up to which the sum stays in the band (adjacent)
export const QS_COUNT = 12;

// Trial lower ends of the band, as fractions of the sum at the requote: 0 (every volatility
// down to the floor), then about 6 % and 0.8 % of the sum (3 % and 0.4 % of the volatility; with
// the default 10 s horizon the sum decays by about 0.1 % per event between mid changes).
export const BAND_TRIALS = [0, 1 - 1 / 16, 1 - 1 / 128];
