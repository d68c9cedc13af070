// The backtest request (POST /api/backtest and the CLI) and the request with every default filled
// in. Each error message here is what a 400 says after "expected " for that field; the checks
// that need the config or the calendar (symbol, dates, model) are in src/backtest/request.ts.

import { z } from 'zod';
import { CAPITAL_USD, CONTRACT_COUNT, SEED, SPREAD_MULTIPLIER, WEIGHT } from './bounds.ts';

export const DATE_EXPECTED = 'a calendar date "YYYY-MM-DD"';
const FRACTION = 'a fraction in (0, 1], e.g. 0.06 for 6%';
const CONTRACTS = `an integer in ${CONTRACT_COUNT.min}..${CONTRACT_COUNT.max} (contracts)`;
const CAPITAL = `a number in [${CAPITAL_USD.min}, ${CAPITAL_USD.max}] (USD)`;
const STRATEGY_NAME = 'a registered strategy name: lower case letters, digits and underscores, starting with a letter (GET /api/strategies)';
export const STRATEGY_NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;
// A parameter's value: a number or a boolean (anyOf, not a type list, for strict JSON Schema tools).
const paramValue = z.union([z.number().describe('a number'), z.boolean().describe('a boolean')]);
const PARAMS = "an object of the strategy's parameters: names to numbers or booleans";
const SYMBOL = 'a contract root such as "ES" (or a month-coded symbol such as "ESH24")';
/** Longest symbol accepted, surrounding spaces included ("ESH2024" is 7). */
const SYMBOL_MAX_CHARS = 16;
const DATASET_EXPECTED = 'a dataset name under <data_dir>/market/ (letters, digits, ".", "_", "-", sub-directories with "/"; no "..", no leading "/")';
// A name, never a path of its own: no leading "/", no empty, "." or ".." segment, no backslash.
const DATASET_NAME = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;

/** A "YYYY-MM-DD" string; the calendar checks (real date, CME calendar years) are in src/backtest/request.ts. */
const date = (description: string) =>
  z
    .string(DATE_EXPECTED)
    .regex(/^\d{4}-\d{2}-\d{2}$/, DATE_EXPECTED)
    .meta({ description, format: 'date', examples: ['2024-01-02'] });
const contracts = (description: string) =>
  z.number(CONTRACTS).int(CONTRACTS).min(CONTRACT_COUNT.min, CONTRACTS).max(CONTRACT_COUNT.max, CONTRACTS).describe(`contracts: ${description}`);

export const backtestRequestSchema = z
  .strictObject({
    symbol: z
      .string(SYMBOL)
      .max(SYMBOL_MAX_CHARS, `${SYMBOL}, at most ${SYMBOL_MAX_CHARS} characters`)
      .meta({
        description:
          'contract root such as "ES" (the front month of each date) or a month-coded symbol such as "ESH24" (that contract only, up to its ' +
          'last trading day); default: the root of the first [trading] symbols entry',
        examples: ['ES'],
      }),
    startDate: date('first session date (default [simulation] start_date)'),
    endDate: date('last session date (default startDate, or [simulation] end_date without startDate); at most [backtest] max_days trading days'),
    initialCapital: z
      .number(CAPITAL)
      .min(CAPITAL_USD.min, CAPITAL)
      .max(CAPITAL_USD.max, CAPITAL)
      .meta({ description: 'USD (default [trading] initial_capital)', examples: [100000] }),
    spreadMultiplier: z
      .number('a number > 0')
      .gt(0, 'a number > 0')
      .max(SPREAD_MULTIPLIER.max, `a number <= ${SPREAD_MULTIPLIER.max}`)
      .describe('scales the quoted half-spread (default [strategy] spread_multiplier)'),
    inventoryLimit: contracts('stop quoting the side that would grow inventory past it (default [strategy] inventory_limit)'),
    skewFactor: z
      .number('a number >= 0')
      .min(0, 'a number >= 0')
      .max(WEIGHT.max, `a number <= ${WEIGHT.max}`)
      .describe('inventory skew of the reservation price (default [strategy] skew_factor)'),
    useML: z.boolean('true or false').describe("shift quotes by the prediction of the traded root's model, models/<ROOT>.json (default [strategy] use_ml)"),
    maxDrawdown: z
      .number(FRACTION)
      .gt(0, FRACTION)
      .max(1, FRACTION)
      .describe(`kill-switch drawdown as ${FRACTION} of peak equity (default [risk] max_drawdown_pct)`),
    flattenOnKill: z
      .boolean('true or false')
      .describe(
        'after the kill switch trips, close the position with IOC orders through the simulated exchange (latency, fees, slippage; their ' +
          "fills are in the results); default [risk] flatten_on_kill, false: keep it, as CME's kill switch does",
      ),
    positionLimit: contracts('hard position limit (default: the smaller of [trading] max_position and [risk] max_position)'),
    dataset: z
      .string(DATASET_EXPECTED)
      .max(1024, DATASET_EXPECTED)
      .regex(DATASET_NAME, DATASET_EXPECTED)
      .refine((n) => !n.split('/').some((p) => p === '.' || p === '..'), DATASET_EXPECTED)
      .meta({
        description:
          'recorded market data to replay instead of the synthetic market: a DBN file or directory of daily files under <data_dir>/market/ ' +
          '(see GET /api/datasets); the sessions are the days the data holds',
        examples: ['glbx-mdp3-20240102.mbo.dbn.zst'],
      }),
    strategy: z
      .string(STRATEGY_NAME)
      .regex(STRATEGY_NAME_RE, STRATEGY_NAME)
      .meta({
        description: 'a registered strategy by name (GET /api/strategies; never a path or code); default [strategy] name, the built-in market_maker',
        examples: ['market_maker'],
      }),
    params: z
      .record(z.string(), paramValue, PARAMS)
      .refine((o) => Object.keys(o).length <= 256, PARAMS)
      .meta({
        description:
          "the strategy's parameters by their declared names (GET /api/strategies lists them, with bounds); an omitted one takes " +
          '[strategy.<name>], else its default',
        examples: [{ spread_multiplier: 1.5 }],
      }),
    seed: z
      .number('an integer >= 0')
      .int('an integer >= 0')
      .min(0, 'an integer >= 0')
      .max(SEED.max, 'an integer < 2^32')
      .describe('seed of the synthetic market (default [simulation] seed)'),
  })
  .partial()
  .describe('A backtest request. Every field is optional: an omitted field takes its default from the config file.');
export type BacktestRequest = z.infer<typeof backtestRequestSchema>;

/** The strategy a run used: in every run record and result. */
export const strategyIdentitySchema = z
  .object({
    name: z.string().describe('registered name'),
    version: z.string().describe("the strategy's declared version"),
    hash: z.string().describe('SHA-256 of the compiled strategy file (of the engine version and name for a built-in)'),
    params: z
      .record(z.string(), z.union([z.number().describe('a number parameter'), z.boolean().describe('a boolean parameter')]))
      .describe('every declared parameter, resolved'),
  })
  .describe('The strategy a run used, with every parameter resolved.');

export const resolvedRequestSchema = backtestRequestSchema
  .required()
  .omit({ params: true })
  .extend({
    strategy: strategyIdentitySchema,
    spreadMultiplier: z.number().nullable().describe("the built-in market_maker's spread_multiplier (null for another strategy)"),
    inventoryLimit: z.number().nullable().describe("the built-in market_maker's inventory_limit (null for another strategy)"),
    skewFactor: z.number().nullable().describe("the built-in market_maker's skew_factor (null for another strategy)"),
    root: z.string().describe('contract root'),
    dates: z.array(z.iso.date()).describe('CME trading days (one session each; weekends and CME holidays skipped)'),
    contracts: z
      .array(z.string())
      .describe('contract traded on each date (same order as dates): the symbol itself, or for a root the front month (see docs/instruments.md)'),
    dataset: z.string().nullable().describe('the recorded data replayed (null: the synthetic market)'),
    data_source: z.string().describe('where the market came from: "synthetic", or "dbn <name> (<schema>, <symbol>)"'),
    model: z
      .object({ version: z.string().describe('model version'), path: z.string().describe('model file') })
      .nullable()
      .describe("The model a useML run uses: the root's <ROOT>.json in [model] dir (null without useML)."),
  })
  .describe('The request with every default filled in.');
/** A validated request with every default filled in from the config. */
export type ResolvedRequest = z.infer<typeof resolvedRequestSchema>;
