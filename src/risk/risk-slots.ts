// Slots of the risk state (risk-manager.ts), in a module that imports nothing (hot-path rule 6).

export const ST_KILLED = 0,
  ST_REASON = 1,
  ST_KILL_TS = 2,
  ST_PEAK = 3,
  ST_DAY_START = 4,
  ST_DAY = 5,
  ST_BASE = 6,
  ST_KILL_VALUE = 7,
  ST_MAX_DD = 8;
export const RISK_STATE_FIELDS = 9;
