// One MES fee schedule for the per-product fee tests: the config section and the schedule the
// engine must report for it (result `fee_schedule`, `/api/state`).
export const MES_SECTION = '[fees.MES]\nmaker_fee = 0.10\ntaker_fee = 0.25\nexchange_fee = 0.35\n';

export const MES_SCHEDULE = {
  root: 'MES',
  source: 'fees.MES',
  maker_fee: 0.1,
  taker_fee: 0.25,
  exchange_fee: 0.35,
  maker_per_contract: 0.1 + 0.35,
  taker_per_contract: 0.25 + 0.35,
};
