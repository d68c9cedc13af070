// Slots of the risk state (risk-manager.ts), in a module that imports nothing because esbuild
// inlines module constants into the bundle only from such a module (declared in
// risk-manager.ts, each `st[ST_KILLED]` first loaded the index from the module context).

export const ST_KILLED = 0, ST_REASON = 1, ST_KILL_TS = 2, ST_PEAK = 3, ST_DAY_START = 4, ST_DAY = 5, ST_BASE = 6, ST_KILL_VALUE = 7, ST_MAX_DD = 8;
export const RISK_STATE_FIELDS = 9;
