// Trader's constants (trader.ts): the slots of its per-event doubles and the order cap per side,
// in a module that imports nothing (hot-path rule 6). Internal to src/trading (the engine, its
// order manager and session recorder).

export const MAX_ORDERS_PER_SIDE = 4; // working + cancels in flight

// The engine's per-event doubles, in one Float64Array (`Trader.slots`; hot-path rules 3 and
// 4): its clocks, and the equity, mid and model signal it last saw. Callees
// read pairs of adjacent slots.
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
export const C_DUE = 11; // the earliest of the markouts' due time and the three above (Trader.timedChecks)
export const C_QUIET_UNTIL = 12; // a quiet event (Trader.quietBounds) comes before this exchange time: C_SAMPLES_DUE and QS_UNTIL's earlier
export const C_SAMPLES_DUE = 13; // C_DUE without the markouts: the samples and the model, which a quiet run stops at (Trader.takeQuiet)
export const C_COUNT = 14;

// The inputs of the last requote that left the quotes standing (Trader.decisionStands): while
// they hold, and the strategy's standing promise with them, a requote would send nothing.
export const QS_BID = 0; // touch, ticks
export const QS_ASK = 1;
export const QS_POS = 2; // position, contracts
export const QS_UNTIL = 3; // exchange time the reduce-only window starts (Infinity: already in it)
export const QS_BEFORE = 4; // the promise's bounds (StandingPromise.bounds): before, and up to (adjacent)
export const QS_UPTO = 5;
export const QS_SIGNAL_LO = 6; // the promise's bands (StandingPromise.bands): the signal's range,
export const QS_SIGNAL_HI = 7;
export const QS_VOL_MOVES = 8; // and the volatility band (FeatureBand.volatilityStandInto; NaN: none)
export const QS_VOL_UNTIL = 9;
export const QS_COUNT = 10;

/** Timer ids a strategy may use (wakeAt, wakeEvery): 0 .. MAX_TIMERS - 1. */
export const MAX_TIMERS = 16;
