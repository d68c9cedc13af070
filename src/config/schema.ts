// Engine configuration schema (config/config.toml). Keys keep their TOML snake_case names so the
// file, the docs and the code all say the same thing. Every section and key is optional; omitted
// values take the defaults below. Unknown keys are errors (strict objects), so typos get caught.
//
// Every check carries an "expected ..." text; load.ts turns zod issues into messages such as
//   config.toml: risk.max_drawdown_pct = 6: expected a fraction in (0, 1], e.g. 0.06 for 6%

import { isIP } from 'node:net';
import { QUEUE_MODELS } from '../exchange/queue-model.ts';
import { z } from 'zod';
import { CALENDAR_FIRST_YEAR, CALENDAR_LAST_YEAR, firstSessionDate, inCalendarYears, parseClock, parseDate } from '../market/calendar.ts';
import { expiryMessage, lastSessionDate } from '../market/contract-calendar.ts';
import { contractsOf, EXPIRY_RULES, knownRoots, parseSymbol, PRODUCT_GROUPS, ROOT_RE, SymbolError, ticksPerPoint } from '../market/instruments.ts';
import { marketMissing } from '../market/profiles.ts';
import { withSelectedProfile } from '../market/profile-file.ts';
import * as B from '../wire/bounds.ts';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// ---------------------------------------------------------------------------------------------
// Field builders: one "expected" text per field, used for the type check and every range check.

function intField(min: number, max?: number, what = ''): z.ZodNumber {
  const expected = `an integer >= ${min}${what}${max === undefined ? '' : `, at most ${max}`}`;
  let s = z.number(expected).int(expected).min(min, expected);
  if (max !== undefined) s = s.max(max, expected);
  return s;
}

/** A number > 0 (or, with `min`, >= min) and <= max. */
function positive(max: number, what = '', min?: number): z.ZodNumber {
  const expected = `a number ${min === undefined ? '> 0' : `>= ${min}`}${what}, at most ${max}`;
  const s = z.number(expected).max(max, expected);
  return min === undefined ? s.gt(0, expected) : s.min(min, expected);
}

function nonNegative(max: number, what = ''): z.ZodNumber {
  const expected = `a number >= 0${what}, at most ${max}`;
  return z.number(expected).min(0, expected).max(max, expected);
}

function bool(): z.ZodBoolean {
  return z.boolean('true or false (a TOML boolean, without quotes)');
}

function nonEmptyString(what: string, maxChars = B.PATH_CHARS): z.ZodString {
  const expected = `a non-empty string of at most ${maxChars} characters (${what})`;
  return z.string(expected).min(1, expected).max(maxChars, expected);
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`);
}

const DATE_EXPECTED = 'a calendar date "YYYY-MM-DD", e.g. "2024-01-02"';
function dateField() {
  return z.string(DATE_EXPECTED).refine((s) => parseDate(s) !== null, DATE_EXPECTED);
}

const CLOCK_EXPECTED = 'a New York session time "HH:MM" (24-hour), e.g. "09:30"';
function clockField() {
  return z.string(CLOCK_EXPECTED).refine((s) => parseClock(s) !== null, CLOCK_EXPECTED);
}

const contracts = (what: string) => intField(B.CONTRACT_COUNT.min, B.CONTRACT_COUNT.max, what);
const nanos = (max: number = B.LATENCY_NS.max) => intField(0, max, ' (nanoseconds)');

const FEE = ' (USD per contract per fill; negative = rebate)';
function fee() {
  const expected = `a number${FEE} in [${B.FEE_USD.min}, ${B.FEE_USD.max}]`;
  return z.number(expected).min(B.FEE_USD.min, expected).max(B.FEE_USD.max, expected);
}

// ---------------------------------------------------------------------------------------------
// Sections. The raw strict objects are kept in SECTION_SHAPES so the loader can list the known
// keys of a table when it reports an unknown one.

const SYMBOLS_EXPECTED = 'a non-empty array of month-coded contract symbols, e.g. ["ESH24"]';

const tradingShape = {
  live_enabled: bool().default(false),
  symbols: z.array(z.string('a month-coded contract symbol such as "ESH24"'), SYMBOLS_EXPECTED).min(1, SYMBOLS_EXPECTED).default(['ESH24']),
  // Each symbol is checked at the top level: its root may be a [contracts] table's.
  initial_capital: positive(B.CAPITAL_USD.max, ' (USD)', B.CAPITAL_USD.min).default(1_000_000),
  max_position: contracts(' (contracts, absolute net position)').default(50),
  max_order_size: contracts(' (contracts per order)').default(10),
};

const latencyShape = {
  order_latency_ns: nanos().default(100_000),
  market_data_latency_ns: nanos().default(50_000),
  jitter_ns: nanos(B.JITTER_NS.max).default(10_000),
  // Default: equal to order_latency_ns (filled in by the section transform below).
  response_latency_ns: nanos().optional(),
};

const DRAWDOWN_EXPECTED = 'a fraction in (0, 1], e.g. 0.06 for 6%';
const riskShape = {
  max_position: contracts(' (contracts)').default(50),
  max_drawdown_pct: z.number(DRAWDOWN_EXPECTED).gt(0, DRAWDOWN_EXPECTED).max(1, DRAWDOWN_EXPECTED).default(0.06),
  max_daily_loss: positive(B.CAPITAL_USD.max, ' (USD)', B.CAPITAL_USD.min).default(100_000),
  enable_kill_switch: bool().default(true),
  // After a trip, close the position with IOC orders through the exchange (default off: CME's
  // own kill switch cancels orders and blocks new ones; it does not flatten). docs/metrics.md.
  flatten_on_kill: bool().default(false),
};

const table = <T extends z.core.$ZodLooseShape>(name: string, shape: T) => z.strictObject(shape, `a table [${name}]`);

const feesShape = {
  maker_fee: fee().default(0.25),
  taker_fee: fee().default(0.85),
  exchange_fee: fee().default(1.18),
};

// A root's own schedule, [fees.MES]: the same three keys, all required. A section is a whole
// schedule, never a patch on the flat table, so a forgotten key is an error rather than an E-mini
// figure silently charged on a micro. A built-in root without a section pays the flat [fees]
// table; a [contracts.<ROOT>] root must have its own (checked below): the flat table's figures
// are E-mini ones, and charging them on a Treasury or a metal would be a guess.
const rootFeesShape = { maker_fee: fee(), taker_fee: fee(), exchange_fee: fee() };
const FEE_KEYS = Object.keys(feesShape);
const ROOT_FEES_EXPECTED =
  `a table [fees.<ROOT>] (${Object.keys(rootFeesShape).join(', ')}) for a contract root, or a known [fees] key ` + `(${FEE_KEYS.join(', ')})`;

/** A fee schedule as written in the config: [fees] or a root's [fees.<ROOT>] (USD per contract per fill). */
export interface FeeTable {
  maker_fee: number;
  taker_fee: number;
  exchange_fee: number;
}
/** [fees]: the flat table, plus a section per root that has its own (keyed by root, e.g. MES). */
export type FeesConfig = FeeTable & { readonly [root: string]: FeeTable | number | undefined };
// The roots come from the contract tables (built-in and [contracts]) and from recorded data's
// definition records, so zod cannot infer the keyed sections; the top-level check below refuses
// a malformed root.
const feesSection = table('fees', feesShape).catchall(z.strictObject(rootFeesShape, ROOT_FEES_EXPECTED)) as unknown as z.ZodType<FeesConfig, unknown>;

// [contracts.<ROOT>]: a CME future beyond the built-in table (instruments.ts, same shape). Every
// key but the regular hours and the market profile is required: a contract spec is never guessed.
const ROOT_EXPECTED = 'a contract root of 1 to 3 capital letters and digits, a letter first or second, e.g. ZN or 6E';
const TICK_EXPECTED = 'a tick size that divides one point into a whole number of ticks and is a whole number of 1e-9 price units, e.g. 0.015625 (1/64)';
const CHICAGO_EXPECTED = 'a Chicago time "HH:MM" (24-hour), e.g. "07:20"';
const marketShape = {
  price_low: positive(1e9, ' (price)'),
  price_high: positive(1e9, ' (price)'),
  annual_vol: positive(5, ' (annualised volatility, a fraction, e.g. 0.05)'),
  queue: positive(1e6, ' (contracts at a best level)'),
  order_size: positive(1e4, ' (contracts per order)'),
};
const contractShape = {
  product: nonEmptyString('product name', 200),
  tick_size: positive(1e6, ' (price units per tick)').refine((t) => ticksPerPoint(t) !== null && Math.abs(t * 1e9 - Math.round(t * 1e9)) < 1e-6, TICK_EXPECTED),
  point_value: positive(1e9, ' (USD per 1.0 of price)'),
  currency: oneOf(['USD'] as const),
  group: oneOf(PRODUCT_GROUPS),
  expiry: oneOf(EXPIRY_RULES),
  regular_open: z
    .string(CHICAGO_EXPECTED)
    .refine((s) => parseClock(s) !== null, CHICAGO_EXPECTED)
    .optional(),
  regular_close: z
    .string(CHICAGO_EXPECTED)
    .refine((s) => parseClock(s) !== null, CHICAGO_EXPECTED)
    .optional(),
  market: table('contracts.<ROOT>.market', marketShape)
    .refine((m) => !(m.price_high < m.price_low), { message: 'price_high >= price_low', path: ['price_high'] })
    .optional(),
};
const contractTable = table('contracts.<ROOT>', contractShape).superRefine((t, ctx) => {
  const open = t.regular_open === undefined ? null : parseClock(t.regular_open);
  const close = t.regular_close === undefined ? null : parseClock(t.regular_close);
  if ((t.regular_open === undefined) !== (t.regular_close === undefined)) {
    const key = t.regular_open === undefined ? 'regular_open' : 'regular_close';
    ctx.addIssue({ code: 'custom', path: [key], input: undefined, message: `${CHICAGO_EXPECTED}: regular_open and regular_close go together` });
  } else if (open !== null && close !== null && close <= open) {
    ctx.addIssue({ code: 'custom', path: ['regular_close'], input: t.regular_close, message: `a time after regular_open (${JSON.stringify(t.regular_open)})` });
  }
});
const contractsSection = z.record(z.string().regex(ROOT_RE, ROOT_EXPECTED), contractTable, 'tables [contracts.<ROOT>], one per contract root');

export const MARKET_SOURCES = ['synthetic', 'replay'] as const;
/** How the engine thread waits for its next input (src/runtime/idle-policy.ts). */
export const ENGINE_IDLE_POLICIES = ['spin', 'busy_poll', 'block'] as const;

const simulationShape = {
  seed: intField(0, B.SEED.max).default(42),
  start_date: dateField().default('2024-01-02'),
  end_date: dateField().default('2024-01-02'),
  session_start: clockField().default('09:30'),
  session_end: clockField().default('16:00'),
  speed: positive(B.SPEED.max, ' (simulated seconds per wall-clock second)').default(1.0),
  activity: positive(B.ACTIVITY.max, ' (market event intensity multiplier)').default(1.0),
  // Where the live simulation's market comes from: the synthetic generator, or recorded DBN data
  // (replay_path: a .dbn/.dbn.zst file or a directory of daily files) paced to the wall clock.
  source: oneOf(MARKET_SOURCES).default('synthetic'),
  replay_path: z.string('a path to a .dbn or .dbn.zst file or a directory of them').default(''),
  // Recorded data replays every record whatever its time of day; true keeps 09:30-16:00 New York.
  regular_hours_only: bool().default(false),
  // How the engine thread waits for its next input: "spin" sleeps until 100 µs before it is due,
  // warms its order path and spins the rest, "busy_poll" never sleeps (one core), "block" sleeps
  // in Atomics.wait (src/runtime/idle-policy.ts).
  engine_idle: oneOf(ENGINE_IDLE_POLICIES).default('spin'),
};

// [market]: the synthetic market. `profile`: a market profile file (JSON, docs/calibration.md)
// whose profile replaces its root's own in every synthetic session; relative to the working
// directory, as the config's other paths.
const marketSectionShape = {
  profile: nonEmptyString('path of a market profile file (JSON, as npm run calibrate writes)').optional(),
};

const executionShape = {
  queue_model: oneOf(QUEUE_MODELS).default('power'),
  queue_power: positive(B.ACTIVITY.max, ' (exponent n of the queue model f(x) = x^n)').default(2),
};

const STRATEGY_NAME_EXPECTED = 'a registered strategy name (lower case letters, digits and underscores, starting with a letter; see GET /api/strategies)';
const strategyShape = {
  // The strategy a run uses when the request names none; the keys below are the built-in
  // market_maker's parameters, [strategy.<name>] tables those of other strategies.
  name: z
    .string(STRATEGY_NAME_EXPECTED)
    .regex(/^[a-z][a-z0-9_]{0,63}$/, STRATEGY_NAME_EXPECTED)
    .default('market_maker'),
  // Strategy files (TypeScript or JavaScript) or directories of them, loaded at start.
  files: z
    .array(z.string('a path to a strategy file or directory').min(1).max(B.PATH_CHARS), 'an array of paths to strategy files or directories')
    .max(100)
    .default(() => []),
  order_size: contracts(' (contracts per quote)').default(1),
  spread_multiplier: positive(B.SPREAD_MULTIPLIER.max).default(1.0),
  skew_factor: nonNegative(B.WEIGHT.max).default(0.5),
  inventory_limit: contracts(' (contracts)').default(20),
  ml_weight: nonNegative(B.WEIGHT.max).default(1.0),
  use_ml: bool().default(false),
  flatten_minutes: nonNegative(B.FLATTEN_MINUTES.max, ' (minutes before the session end)').default(5),
  vol_spread_factor: nonNegative(B.WEIGHT.max).default(0.5),
};

/** [strategy.<name>]: that strategy's parameters (checked against its declaration once it is loaded). */
const STRATEGY_TABLE_EXPECTED =
  `a table [strategy.<name>] of a strategy's parameters (numbers and booleans), or a known [strategy] key ` + `(${Object.keys(strategyShape).join(', ')})`;
const strategyParamsTable = z.record(
  z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'a parameter name'),
  z.union([z.number(), z.boolean()], 'a number or a boolean'),
  STRATEGY_TABLE_EXPECTED,
);

const strategyBase = table('strategy', strategyShape);
/** [strategy]: the default strategy, strategy files, the built-in's keys, and a [strategy.<name>] table per other strategy. */
export type StrategyConfig = z.output<typeof strategyBase> & { readonly [name: string]: unknown };
// The names of other strategies are known only once their files are loaded, so zod cannot infer the tables.
const strategySection = strategyBase.catchall(strategyParamsTable) as unknown as z.ZodType<StrategyConfig, unknown>;

const modelShape = {
  dir: nonEmptyString('directory of the model files').default('models'),
  enabled: bool().default(true),
};

function numberIn(min: number, max: number, what: string): z.ZodNumber {
  const expected = `a number in ${min}..${max}${what}`;
  return z.number(expected).min(min, expected).max(max, expected);
}

const backtestShape = {
  max_days: intField(1, B.MAX_DAYS.max, ' (business days, i.e. sessions, a backtest request may cover)').default(31),
  pool_size: intField(0, B.POOL_SIZE.max, ' (worker threads; 0 = number of CPUs)').default(0),
  // Admission counts sessions: two requests of max_days fit by default (checked >= max_days below).
  max_queued_sessions: intField(1, 100_000, ' (sessions running or waiting on the pool)').default(62),
  session_seconds_estimate: numberIn(0.1, 3600, ' (seconds one session takes, for Retry-After until one is measured)').default(30),
  // Research artifacts (GET /api/backtests/:id/report, ...) of recent runs, kept for repeated reads.
  artifact_cache_bytes: intField(0, 2 ** 40, ' (bytes of research artifacts kept in memory; 0 = none)').default(64 * 1024 * 1024),
};

const MIB = 1024 * 1024;
const storageShape = {
  max_runs: intField(1, 1_000_000, ' (runs kept in the backtest journal)').default(10_000),
  max_bytes: intField(MIB, 2 ** 50, ' (bytes the backtest journal may occupy)').default(512 * MIB),
  max_age_days: intField(1, 36_500, ' (days a finished run is kept)').default(90),
  max_record_bytes: intField(8192, 64 * MIB, ' (bytes of one journaled run)').default(MIB),
  idempotency_ttl_hours: intField(1, 8760, ' (hours an Idempotency-Key names its run)').default(24),
};

// Sweeps (src/sweep): admitted by cost, grid points x sessions, like backtests by sessions.
const sweepShape = {
  max_points: intField(1, 1_000_000, ' (grid points one sweep may have)').default(1000),
  max_queued_sessions: intField(1, 100_000_000, ' (sessions of sweeps running or waiting: grid points x sessions each)').default(5000),
  max_kept: intField(1, 100_000, ' (finished sweeps kept in <data_dir>/sweeps, oldest deleted first)').default(100),
};

const CORS_EXPECTED = 'an array of origins, e.g. ["http://localhost:3000"], or ["*"] for any origin';
const ORIGIN_EXPECTED = 'an origin scheme://host[:port] such as "http://localhost:3000" (no path, no trailing slash), or "*" alone for any origin';
const STREAM_HZ_EXPECTED = 'a number in (0, 100] (updates per second)';
const BIND_EXPECTED = 'an IP address to listen on, e.g. "127.0.0.1" (loopback only), "0.0.0.0" or "::" (every interface), or "localhost"';
const HOST_NAME_EXPECTED = 'a host name or IP address without a port, e.g. "engine", "mm.example.com" or "[::1]", or "*" for any Host';
const MAX_LIST = 100;

/** "http://host[:port]" exactly as URL parsing would normalise it (so a browser's Origin header matches it). */
function isOrigin(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === s;
  } catch {
    return false;
  }
}

const hostName = z
  .string(HOST_NAME_EXPECTED)
  .max(253, HOST_NAME_EXPECTED)
  .refine(
    (s) =>
      s === '*' || /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(s) || /^\[[0-9A-Fa-f:.]+\]$/.test(s),
    HOST_NAME_EXPECTED,
  );

const httpShape = {
  cors_origins: z
    .array(
      z.string(ORIGIN_EXPECTED).refine((s) => s === '*' || isOrigin(s), ORIGIN_EXPECTED),
      CORS_EXPECTED,
    )
    .max(MAX_LIST, `${CORS_EXPECTED}, at most ${MAX_LIST} entries`)
    .refine((a) => !a.includes('*') || a.length === 1, `${CORS_EXPECTED}: "*" must be the only entry`)
    .default(() => ['http://localhost:3000', 'http://127.0.0.1:3000']),
  // Loopback by default: exposing the API is a deliberate act (HOST overrides, the image sets 0.0.0.0).
  host: z
    .string(BIND_EXPECTED)
    .refine((s) => s === 'localhost' || isIP(s) !== 0, BIND_EXPECTED)
    .default('127.0.0.1'),
  // Host headers accepted besides localhost, 127.0.0.1 and [::1] (any port): defends against DNS rebinding.
  allowed_hosts: z
    .array(hostName, `an array of host names, e.g. ["engine"]`)
    .max(MAX_LIST, `at most ${MAX_LIST} host names`)
    .default(() => []),
  // The bearer token, in a file (first line); ENGINE_API_TOKEN takes precedence. Unset: no authentication.
  api_token_file: nonEmptyString('path of a file holding the API token').optional(),
  require_auth_for_reads: bool().default(false),
  rate_limit_requests: intField(0, 1_000_000, ' (POST and DELETE requests per client per window; 0 = no limit)').default(300),
  rate_limit_window_s: intField(1, 86_400, ' (seconds)').default(60),
  stream_hz: z.number(STREAM_HZ_EXPECTED).gt(0, STREAM_HZ_EXPECTED).max(100, STREAM_HZ_EXPECTED).default(10),
  max_sse_clients: intField(1, B.SSE_CLIENTS.max).default(100),
};

const PORT_EXPECTED = 'an integer in 1..65535 (TCP port)';
const rootShape = {
  name: nonEmptyString('engine name', 200).default('futures-mm-engine'),
  log_level: oneOf(LOG_LEVELS).default('info'),
  metrics_port: z.number(PORT_EXPECTED).int(PORT_EXPECTED).min(1, PORT_EXPECTED).max(65535, PORT_EXPECTED).default(9090),
  data_dir: nonEmptyString('directory for journals and results').default('data'),
};

/** Known keys of each table ('' = top level), for "unknown key" messages. */
export const SECTION_SHAPES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  '': [
    ...Object.keys(rootShape),
    'trading',
    'latency',
    'risk',
    'fees',
    'contracts',
    'market',
    'simulation',
    'execution',
    'strategy',
    'model',
    'backtest',
    'storage',
    'sweep',
    'http',
  ],
  trading: Object.keys(tradingShape),
  latency: Object.keys(latencyShape),
  risk: Object.keys(riskShape),
  fees: FEE_KEYS,
  'fees.<ROOT>': Object.keys(rootFeesShape),
  'contracts.<ROOT>': Object.keys(contractShape),
  'contracts.<ROOT>.market': Object.keys(marketShape),
  market: Object.keys(marketSectionShape),
  simulation: Object.keys(simulationShape),
  execution: Object.keys(executionShape),
  strategy: Object.keys(strategyShape),
  model: Object.keys(modelShape),
  backtest: Object.keys(backtestShape),
  storage: Object.keys(storageShape),
  sweep: Object.keys(sweepShape),
  http: Object.keys(httpShape),
});

const latencySection = table('latency', latencyShape).transform((l) => ({
  order_latency_ns: l.order_latency_ns,
  market_data_latency_ns: l.market_data_latency_ns,
  jitter_ns: l.jitter_ns,
  response_latency_ns: l.response_latency_ns ?? l.order_latency_ns,
}));

const simulationSection = table('simulation', simulationShape).superRefine((s, ctx) => {
  // zod runs this even when a field check failed; only compare values that are valid.
  if (parseDate(s.start_date) !== null && parseDate(s.end_date) !== null && s.end_date < s.start_date) {
    ctx.addIssue({
      code: 'custom',
      path: ['end_date'],
      input: s.end_date,
      message: `a date on or after simulation.start_date (${JSON.stringify(s.start_date)})`,
    });
  }
  for (const key of ['start_date', 'end_date'] as const) {
    if (parseDate(s[key]) !== null && !inCalendarYears(s[key])) {
      ctx.addIssue({ code: 'custom', path: [key], input: s[key], message: `a date in the CME calendar's years ${CALENDAR_FIRST_YEAR}-${CALENDAR_LAST_YEAR}` });
    }
  }
  if (s.source === 'replay' && s.replay_path === '') {
    ctx.addIssue({ code: 'custom', path: ['replay_path'], input: s.replay_path, message: 'a DBN file or directory: [simulation] source = "replay" needs one' });
  }
  const start = parseClock(s.session_start);
  const end = parseClock(s.session_end);
  if (start !== null && end !== null && end <= start) {
    ctx.addIssue({
      code: 'custom',
      path: ['session_end'],
      input: s.session_end,
      message: `a time after simulation.session_start (${JSON.stringify(s.session_start)})`,
    });
  }
});

export const EngineConfigSchema = z
  .strictObject(
    {
      ...rootShape,
      trading: table('trading', tradingShape).prefault({}),
      latency: latencySection.prefault({}),
      risk: table('risk', riskShape).prefault({}),
      fees: feesSection.prefault({}),
      contracts: contractsSection.prefault({}),
      market: table('market', marketSectionShape).prefault({}),
      simulation: simulationSection.prefault({}),
      execution: table('execution', executionShape).prefault({}),
      strategy: strategySection.prefault({}),
      model: table('model', modelShape).prefault({}),
      backtest: table('backtest', backtestShape).prefault({}),
      storage: table('storage', storageShape).prefault({}),
      sweep: table('sweep', sweepShape).prefault({}),
      http: table('http', httpShape).prefault({}),
    },
    'a TOML document',
  )
  .superRefine((c, ctx) => {
    if (typeof c.trading !== 'object' || typeof c.strategy !== 'object') return;
    const num = (v: unknown): v is number => typeof v === 'number';
    if (num(c.trading.max_order_size) && num(c.trading.max_position) && c.trading.max_order_size > c.trading.max_position) {
      ctx.addIssue({
        code: 'custom',
        path: ['trading', 'max_order_size'],
        input: c.trading.max_order_size,
        message: `an integer <= trading.max_position (${c.trading.max_position})`,
      });
    }
    if (num(c.strategy.order_size) && num(c.trading.max_order_size) && c.strategy.order_size > c.trading.max_order_size) {
      ctx.addIssue({
        code: 'custom',
        path: ['strategy', 'order_size'],
        input: c.strategy.order_size,
        message: `an integer <= trading.max_order_size (${c.trading.max_order_size})`,
      });
    }
    const bt = c.backtest;
    if (typeof bt === 'object' && num(bt.max_queued_sessions) && num(bt.max_days) && bt.max_queued_sessions < bt.max_days) {
      ctx.addIssue({
        code: 'custom',
        path: ['backtest', 'max_queued_sessions'],
        input: bt.max_queued_sessions,
        message: `an integer >= backtest.max_days (${bt.max_days}), or a request of max_days could never be admitted`,
      });
    }
    // The contract roots: the built-in ones and the config's [contracts] tables.
    const configuredRoots = typeof c.contracts === 'object' && c.contracts !== null ? Object.keys(c.contracts) : [];
    let table: ReturnType<typeof contractsOf> = {};
    try {
      table = contractsOf(typeof c.contracts === 'object' ? c.contracts : {});
    } catch {
      // A contract table with an invalid key: its own check reports it.
    }
    const profile = typeof c.market === 'object' ? c.market.profile : undefined;
    if (profile !== undefined) {
      try {
        withSelectedProfile(table, profile);
      } catch (e) {
        ctx.addIssue({
          code: 'custom',
          path: ['market', 'profile'],
          input: profile,
          message: `a market profile file (JSON, as npm run calibrate writes; docs/calibration.md): ${(e as Error).message}`,
        });
      }
    }
    if (typeof c.fees === 'object') {
      for (const key of Object.keys(c.fees)) {
        // A root neither table knows may come with recorded data's definition records, so any
        // well-formed root may have a schedule; a malformed key is a typo.
        if (FEE_KEYS.includes(key) || ROOT_RE.test(key)) continue;
        ctx.addIssue({
          code: 'custom',
          path: ['fees', key],
          input: c.fees[key],
          message:
            `${ROOT_FEES_EXPECTED}: a root of 1 to 3 capital letters (known roots: ${knownRoots(table).join(', ')}, or one that ` +
            `recorded data's definitions bring)`,
        });
      }
    }
    for (const root of configuredRoots) {
      if (typeof c.fees === 'object' && Object.prototype.hasOwnProperty.call(c.fees, root)) continue;
      ctx.addIssue({
        code: 'custom',
        path: ['fees', root],
        input: undefined,
        message:
          `a table [fees.${root}] (${Object.keys(rootFeesShape).join(', ')}): [contracts.${root}] is configured, and the flat [fees] ` +
          `table (E-mini figures) does not apply to a configured root`,
      });
    }
    if (Array.isArray(c.trading.symbols)) {
      const seen = new Map<string, number>();
      c.trading.symbols.forEach((sym, i) => {
        if (typeof sym !== 'string') return;
        let ins: ReturnType<typeof parseSymbol>;
        try {
          ins = parseSymbol(sym, 2024, table);
        } catch (e) {
          const why = e instanceof SymbolError ? e.message : String(e);
          ctx.addIssue({ code: 'custom', path: ['trading', 'symbols', i], input: sym, message: `a month-coded contract symbol such as "ESH24" (${why})` });
          return;
        }
        if (c.simulation?.source === 'synthetic' && ins.market === null) {
          ctx.addIssue({
            code: 'custom',
            path: ['trading', 'symbols', i],
            input: sym,
            message: `a contract the synthetic market can run ([simulation] source = "synthetic"): ${marketMissing(ins.root, ins.source)}`,
          });
        }
        const canonical = `${ins.root}${ins.monthCode}${ins.year}`;
        const first = seen.get(canonical);
        if (first !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['trading', 'symbols', i],
            input: sym,
            message: `unique symbols (same contract as trading.symbols[${first}] = ${JSON.stringify(c.trading.symbols[first])})`,
          });
        } else seen.set(canonical, i);
      });
    }
    // The live simulation trades each configured contract from its first session on.
    const sim = c.simulation;
    const startNs = typeof sim === 'object' ? parseClock(sim.session_start) : null;
    const endNs = typeof sim === 'object' ? parseClock(sim.session_end) : null;
    if (!Array.isArray(c.trading.symbols) || startNs === null || endNs === null) return;
    c.trading.symbols.forEach((sym, i) => {
      try {
        const ins = parseSymbol(sym, 2024, table);
        if (firstSessionDate(sim.start_date, startNs) > lastSessionDate(ins, startNs, endNs)) {
          const message = `a contract that trades at simulation.start_date (${JSON.stringify(sim.start_date)}): ${expiryMessage(ins, startNs, endNs)}`;
          ctx.addIssue({ code: 'custom', path: ['trading', 'symbols', i], input: sym, message });
        }
      } catch {
        // An invalid symbol or date: its own check reports it.
      }
    });
  });

/** The validated configuration with every default filled in; keys as in config.toml. */
export type EngineConfig = z.output<typeof EngineConfigSchema>;

/** A fresh config object holding only defaults (what an empty config.toml gives). */
export function defaultConfig(): EngineConfig {
  return EngineConfigSchema.parse({});
}
