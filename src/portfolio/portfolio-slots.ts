// Slots of the portfolio's scalar state (portfolio.ts), in a module that imports nothing
// (hot-path rule 6). Internal to portfolio.ts.

export const POS = 0,
  REALIZED = 1,
  FEES = 2,
  VOLUME = 3,
  FILLS = 4,
  MAX_ABS = 5,
  LOT_HEAD = 6,
  LOT_COUNT = 7,
  OPEN_COST = 8;
export const T_COUNT = 9,
  T_WINS = 10,
  T_LOSSES = 11,
  T_GROSS_WIN = 12,
  T_GROSS_LOSS = 13,
  LAST_TRADE_PNL = 14,
  LAST_REALIZED = 15;
export const SCALARS = 16;
