// Engine configuration schema (config/config.toml). Keys keep their TOML snake_case names so the
// file, the docs and the code all say the same thing. Every section and key is optional; omitted
// values take the defaults below. Unknown keys are errors (strict objects), so typos get caught.
//
// Every check carries an "expected ..." text; load.ts turns zod issues into messages such as
//   config.toml: risk.max_drawdown_pct = 6: expected a fraction in (0, 1], e.g. 0.06 for 6%

import { QUEUE_MODELS } from '../exchange/queue-model.ts';
import { z } from 'zod';
import { CALENDAR_FIRST_YEAR, CALENDAR_LAST_YEAR, firstSessionDate, inCalendarYears, parseClock, parseDate } from '../market/calendar.ts';
import { expiryMessage, lastSessionDate } from '../market/contract-calendar.ts';
import { CONTRACTS, parseSymbol, SymbolError } from '../market/instruments.ts';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];


// ---------------------------------------------------------------------------------------------
// Field builders: one "expected" text per field, used for the type check and every range check.

function intField(min: number, max?: number, what = ''): z.ZodNumber {
  const range = max === undefined ? `>= ${min}` : `in ${min}..${max}`;
  const expected = `an integer ${range}${what}`;
  let s = z.number(expected).int(expected).min(min, expected);
  if (max !== undefined) s = s.max(max, expected);
  return s;
}

function positive(what = ''): z.ZodNumber {
  const expected = `a number > 0${what}`;
  return z.number(expected).gt(0, expected);
}

function nonNegative(what = ''): z.ZodNumber {
  const expected = `a number >= 0${what}`;
  return z.number(expected).min(0, expected);
}

function bool(): z.ZodBoolean {
  return z.boolean('true or false (a TOML boolean, without quotes)');
}

function nonEmptyString(what: string): z.ZodString {
  const expected = `a non-empty string (${what})`;
  return z.string(expected).min(1, expected);
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

const FEE = ' (USD per contract per fill; negative = rebate)';
function fee() {
  const expected = `a number${FEE}`;
  return z.number(expected);
}

// ---------------------------------------------------------------------------------------------
// Sections. The raw strict objects are kept in SECTION_SHAPES so the loader can list the known
// keys of a table when it reports an unknown one.

const SYMBOLS_EXPECTED = 'a non-empty array of month-coded contract symbols, e.g. ["ESH24"]';

const tradingShape = {
  live_enabled: bool().default(false),
  symbols: z
    .array(z.string('a month-coded contract symbol such as "ESH24"'), SYMBOLS_EXPECTED)
    .min(1, SYMBOLS_EXPECTED)
    .default(['ESH24'])
    .superRefine((symbols, ctx) => {
      const seen = new Map<string, number>();
      symbols.forEach((sym, i) => {
        let canonical: string;
        try {
          const ins = parseSymbol(sym);
          canonical = `${ins.root}${ins.monthCode}${ins.year}`;
        } catch (e) {
          const why = e instanceof SymbolError ? e.message : String(e);
          ctx.addIssue({ code: 'custom', path: [i], input: sym, message: `a month-coded contract symbol such as "ESH24" (${why})` });
          return;
        }
        const first = seen.get(canonical);
        if (first !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [i],
            input: sym,
            message: `unique symbols (same contract as trading.symbols[${first}] = ${JSON.stringify(symbols[first])})`,
          });
        } else seen.set(canonical, i);
      });
    }),
  initial_capital: positive(' (USD)').default(1_000_000),
  max_position: intField(1, undefined, ' (contracts, absolute net position)').default(50),
  max_order_size: intField(1, undefined, ' (contracts per order)').default(10),
};

const latencyShape = {
  order_latency_ns: intField(0, undefined, ' (nanoseconds)').default(100_000),
  market_data_latency_ns: intField(0, undefined, ' (nanoseconds)').default(50_000),
  jitter_ns: intField(0, undefined, ' (nanoseconds)').default(10_000),
  // Default: equal to order_latency_ns (filled in by the section transform below).
  response_latency_ns: intField(0, undefined, ' (nanoseconds)').optional(),
};

const DRAWDOWN_EXPECTED = 'a fraction in (0, 1], e.g. 0.06 for 6%';
const riskShape = {
  max_position: intField(1, undefined, ' (contracts)').default(50),
  max_drawdown_pct: z.number(DRAWDOWN_EXPECTED).gt(0, DRAWDOWN_EXPECTED).max(1, DRAWDOWN_EXPECTED).default(0.06),
  max_daily_loss: positive(' (USD)').default(100_000),
  enable_kill_switch: bool().default(true),
};

const table = <T extends z.core.$ZodLooseShape>(name: string, shape: T) => z.strictObject(shape, `a table [${name}]`);

const feesShape = {
  maker_fee: fee().default(0.25),
  taker_fee: fee().default(0.85),
  exchange_fee: fee().default(1.18),
};

// A root's own schedule, [fees.MES]: the same three keys, all required. A section is a whole
// schedule, never a patch on the flat table, so a forgotten key is an error rather than an E-mini
// figure silently charged on a micro. A root without a section pays the flat [fees] table.
const rootFeesShape = { maker_fee: fee(), taker_fee: fee(), exchange_fee: fee() };
const FEE_ROOTS = Object.keys(CONTRACTS);
const rootFeesSections = Object.fromEntries(FEE_ROOTS.map((root) => [root, table(`fees.${root}`, rootFeesShape).optional()]));

/** A fee schedule as written in the config: [fees] or a root's [fees.<ROOT>] (USD per contract per fill). */
export interface FeeTable {
  maker_fee: number;
  taker_fee: number;
  exchange_fee: number;
}
/** [fees]: the flat table, plus a section per root that has its own (keyed by root, e.g. MES). */
export type FeesConfig = FeeTable & { readonly [root: string]: FeeTable | number | undefined };
// The roots come from the contract table at run time, so zod cannot infer the keyed sections.
const feesSection = table('fees', { ...feesShape, ...rootFeesSections }) as unknown as z.ZodType<FeesConfig, unknown>;

export const MARKET_SOURCES = ['synthetic', 'replay'] as const;

const simulationShape = {
  seed: intField(0).default(42),
  start_date: dateField().default('2024-01-02'),
  end_date: dateField().default('2024-01-02'),
  session_start: clockField().default('09:30'),
  session_end: clockField().default('16:00'),
  speed: positive(' (simulated seconds per wall-clock second)').default(1.0),
  activity: positive(' (market event intensity multiplier)').default(1.0),
  // Where the live simulation's market comes from: the synthetic generator, or recorded DBN data
  // (replay_path: a .dbn/.dbn.zst file or a directory of daily files) paced to the wall clock.
  source: oneOf(MARKET_SOURCES).default('synthetic'),
  replay_path: z.string('a path to a .dbn or .dbn.zst file or a directory of them').default(''),
  // Recorded data replays every record whatever its time of day; true keeps 09:30-16:00 New York.
  regular_hours_only: bool().default(false),
};

const executionShape = {
  queue_model: oneOf(QUEUE_MODELS).default('power'),
  queue_power: positive(' (exponent n of the queue model f(x) = x^n)').default(2),
};

const strategyShape = {
  order_size: intField(1, undefined, ' (contracts per quote)').default(1),
  spread_multiplier: positive().default(1.0),
  skew_factor: nonNegative().default(0.5),
  inventory_limit: intField(1, undefined, ' (contracts)').default(20),
  ml_weight: nonNegative().default(1.0),
  use_ml: bool().default(false),
  flatten_minutes: nonNegative(' (minutes before the session end)').default(5),
  vol_spread_factor: nonNegative().default(0.5),
};

const modelShape = {
  dir: nonEmptyString('directory of the model files').default('models'),
  enabled: bool().default(true),
};

const backtestShape = {
  max_days: intField(1, undefined, ' (business days, i.e. sessions, a backtest request may cover)').default(31),
  pool_size: intField(0, undefined, ' (worker threads; 0 = number of CPUs)').default(0),
};

const CORS_EXPECTED = 'an array of origin strings, e.g. ["http://localhost:3000"]';
const STREAM_HZ_EXPECTED = 'a number in (0, 100] (updates per second)';
const httpShape = {
  cors_origins: z
    .array(nonEmptyString('an origin such as "http://localhost:3000"'), CORS_EXPECTED)
    .default(() => ['http://localhost:3000', 'http://127.0.0.1:3000']),
  stream_hz: z.number(STREAM_HZ_EXPECTED).gt(0, STREAM_HZ_EXPECTED).max(100, STREAM_HZ_EXPECTED).default(10),
  max_sse_clients: intField(1).default(100),
};

const rootShape = {
  name: nonEmptyString('engine name').default('futures-mm-engine'),
  log_level: oneOf(LOG_LEVELS).default('info'),
  metrics_port: intField(1, 65535, ' (TCP port)').default(9090),
  data_dir: nonEmptyString('directory for journals and results').default('data'),
};

/** Known keys of each table ('' = top level), for "unknown key" messages. */
export const SECTION_SHAPES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  '': [...Object.keys(rootShape), 'trading', 'latency', 'risk', 'fees', 'simulation', 'execution', 'strategy', 'model', 'backtest', 'http'],
  trading: Object.keys(tradingShape),
  latency: Object.keys(latencyShape),
  risk: Object.keys(riskShape),
  fees: [...Object.keys(feesShape), ...FEE_ROOTS],
  ...Object.fromEntries(FEE_ROOTS.map((root) => [`fees.${root}`, Object.keys(rootFeesShape)])),
  simulation: Object.keys(simulationShape),
  execution: Object.keys(executionShape),
  strategy: Object.keys(strategyShape),
  model: Object.keys(modelShape),
  backtest: Object.keys(backtestShape),
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
    ctx.addIssue({ code: 'custom', path: ['end_date'], input: s.end_date, message: `a date on or after simulation.start_date (${JSON.stringify(s.start_date)})` });
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
    ctx.addIssue({ code: 'custom', path: ['session_end'], input: s.session_end, message: `a time after simulation.session_start (${JSON.stringify(s.session_start)})` });
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
      simulation: simulationSection.prefault({}),
      execution: table('execution', executionShape).prefault({}),
      strategy: table('strategy', strategyShape).prefault({}),
      model: table('model', modelShape).prefault({}),
      backtest: table('backtest', backtestShape).prefault({}),
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
    // The live simulation trades each configured contract from its first session on.
    const sim = c.simulation;
    const startNs = typeof sim === 'object' ? parseClock(sim.session_start) : null;
    const endNs = typeof sim === 'object' ? parseClock(sim.session_end) : null;
    if (!Array.isArray(c.trading.symbols) || startNs === null || endNs === null) return;
    c.trading.symbols.forEach((sym, i) => {
      try {
        const ins = parseSymbol(sym);
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
