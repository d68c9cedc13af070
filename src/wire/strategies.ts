// What GET /api/strategies answers: the strategies this engine has loaded, each with what a
// request needs to name it and set its parameters (the JSON Schema generated from its declaration).

import { z } from 'zod';

export const strategyInfoSchema = z
  .object({
    name: z.string().meta({ description: 'the name a backtest request gives as `strategy`', examples: ['market_maker'] }),
    version: z.string().describe("the strategy's declared version"),
    hash: z.string().describe('SHA-256 of the compiled strategy file (of the engine version and name for a built-in): runs record it, queue workers check it'),
    builtin: z.boolean().describe('part of the engine (false: loaded from a file)'),
    description: z.string().describe("the strategy's own description"),
    wakes: z.enum(['touch', 'touch_and_trades', 'book']).describe('what market events wake it: touch price changes, those and trades, or every book event'),
    book: z.enum(['touch', 'depth']).describe('what of the book it reads'),
    features: z.enum(['volatility', 'all']).describe('which features it reads'),
    levels: z.int().describe('quote levels per side (0: imperative orders only)'),
    params: z.record(z.string(), z.unknown()).describe('JSON Schema of its parameters (names, types, defaults, bounds, units)'),
  })
  .describe('One loaded strategy.');
export type StrategyInfo = z.infer<typeof strategyInfoSchema>;

export const strategyListSchema = z
  .object({
    default: z.string().describe('the strategy of a request that names none ([strategy] name)'),
    strategies: z.array(strategyInfoSchema).describe('loaded strategies by name'),
  })
  .describe('The strategies a backtest, a sweep or the live simulation may run.');
export type StrategyList = z.infer<typeof strategyListSchema>;
