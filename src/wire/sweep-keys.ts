// The keys a sweep may vary: one row per key, the config key as written in the config file
// (the CLI's --sweep) and the request's camelCase name (the HTTP grid). A key with a request
// field varies that field of the request; any other key varies the config the point runs with
// (the request has no field for it), validated by the config schema. Either way a value is
// checked by the same bounds as a single run (src/wire/bounds.ts).

export type SweepSection = 'strategy' | 'risk' | 'execution' | 'params';

export interface SweepKey {
  /** Config key as written in the config file, e.g. spread_multiplier. */
  key: string;
  section: SweepSection;
  /** camelCase name: the request field it sets, or the grid name of a config-only key. */
  name: string;
  /** True when the request has this field; false: the point's config is changed instead. */
  requestField: boolean;
  /** 'param': a strategy's declared parameter, a number or a boolean (its declaration checks it). */
  kind: 'number' | 'boolean' | 'string' | 'param';
}

const row = (key: string, section: SweepSection, name: string, requestField: boolean, kind: SweepKey['kind'] = 'number'): SweepKey => ({
  key,
  section,
  name,
  requestField,
  kind,
});

export const SWEEP_KEYS: readonly SweepKey[] = Object.freeze([
  row('spread_multiplier', 'strategy', 'spreadMultiplier', true),
  row('skew_factor', 'strategy', 'skewFactor', true),
  row('inventory_limit', 'strategy', 'inventoryLimit', true),
  row('use_ml', 'strategy', 'useML', true, 'boolean'),
  row('order_size', 'strategy', 'orderSize', false),
  row('ml_weight', 'strategy', 'mlWeight', false),
  row('vol_spread_factor', 'strategy', 'volSpreadFactor', false),
  row('flatten_minutes', 'strategy', 'flattenMinutes', false),
  // risk.max_position sets the run's hard position limit, which is the request's positionLimit.
  row('max_position', 'risk', 'positionLimit', true),
  row('max_drawdown_pct', 'risk', 'maxDrawdown', true),
  row('queue_model', 'execution', 'queueModel', false, 'string'),
  row('queue_power', 'execution', 'queuePower', false),
]);

/** `params.NAME`: any declared parameter of the run's strategy (checked against its declaration per point). */
const PARAM_KEY = /^params\.[a-z][a-z0-9_]{0,63}$/;

/** The row for a config key (CLI) or camelCase name (HTTP), or a `params.NAME`; undefined when it cannot be swept. */
export function sweepKey(keyOrName: string): SweepKey | undefined {
  if (PARAM_KEY.test(keyOrName)) return row(keyOrName, 'params', keyOrName, true, 'param');
  return SWEEP_KEYS.find((k) => k.key === keyOrName || k.name === keyOrName);
}

export const SWEEP_KEY_LIST = `${SWEEP_KEYS.map((k) => k.key).join(', ')}, params.NAME (a parameter of the run's strategy)`;
export const SWEEP_KEY_NAMES = `${SWEEP_KEYS.map((k) => k.name).join(', ')}, params.NAME (a parameter of the run's strategy)`;
