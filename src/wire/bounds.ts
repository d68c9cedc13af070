// Lower and upper bounds shared by the config file (config/schema.ts) and the backtest request
// (api/backtest-request.ts), so a value means the same thing and is accepted in the same range in
// both. The bounds keep the arithmetic exact: money stays below 1e10 USD, so sums of cents and
// fees over millions of fills stay far inside the 2^53 integer range of a double (cent precision
// up to ~9e13 USD), and no value is so small (5e-324) that a ratio of it overflows or rounds to 0.

/** USD of an account: at least one dollar, at most ten billion. */
export const CAPITAL_USD = { min: 1, max: 1e10 } as const;
/** Contracts of a position, order or quote. */
export const CONTRACT_COUNT = { min: 1, max: 100_000 } as const;
/** Multiplier of the quoted half-spread. */
export const SPREAD_MULTIPLIER = { max: 100 } as const;
/** Inventory skew and the other unitless strategy weights (>= 0). */
export const WEIGHT = { max: 1000 } as const;
/** Seed of the synthetic market: an unsigned 32-bit integer. */
export const SEED = { max: 2 ** 32 - 1 } as const;
/** USD per contract per fill, either sign (a negative fee is a rebate). */
export const FEE_USD = { min: -100, max: 100 } as const;
/** Latencies: up to one minute, in nanoseconds. */
export const LATENCY_NS = { max: 60e9 } as const;
/** Latency jitter: up to one second, in nanoseconds (the model draws it as int32 nanoseconds). */
export const JITTER_NS = { max: 1e9 } as const;
/** Simulated seconds per wall-clock second of the live simulation. */
export const SPEED = { max: 10_000 } as const;
/** Market event intensity multiplier and the queue model's exponent. */
export const ACTIVITY = { max: 100 } as const;
/** Minutes before the session end (a session is at most a day). */
export const FLATTEN_MINUTES = { max: 1440 } as const;
/** Sessions one backtest request may cover: a year of CME trading days at most. */
export const MAX_DAYS = { max: 366 } as const;
/** Backtest worker threads (0 = number of CPUs). */
export const POOL_SIZE = { max: 256 } as const;
/** Concurrent live-stream clients. */
export const SSE_CLIENTS = { max: 100_000 } as const;
/** Longest path or name written in the config. */
export const PATH_CHARS = 4096;
