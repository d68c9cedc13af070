// The fee schedule a product trades under (docs/execution.md, "Fees per product"), as a backtest result and the live
// /api/state show it: a fill of q contracts pays q x maker_per_contract (passive) or
// q x taker_per_contract (aggressive).

import { z } from 'zod';

const usdPerContract = (what: string) => z.number().describe(`${what}, USD per contract per fill (negative = rebate)`);

export const feeScheduleSchema = z
  .object({
    root: z.string().describe('contract root the schedule applies to'),
    source: z
      .string()
      .meta({ description: 'config table it came from: fees.<ROOT>, or fees (the flat table) for a root without a section', examples: ['fees.MES', 'fees'] }),
    maker_fee: usdPerContract('maker fee'),
    taker_fee: usdPerContract('taker fee'),
    exchange_fee: usdPerContract('exchange fee, every fill'),
    maker_per_contract: usdPerContract('what a passive fill pays: maker_fee + exchange_fee'),
    taker_per_contract: usdPerContract('what an aggressive fill pays: taker_fee + exchange_fee'),
  })
  .describe('The fee schedule used: its [fees.<ROOT>] config section, else the flat [fees] table.');
export type FeeScheduleView = z.infer<typeof feeScheduleSchema>;
