// What the backtest and sweep forms make of a strategy as GET /api/strategies describes it (no DOM
// or fetch here: tested on its own; strategy-catalog.ts loads the list).
//
// A strategy's parameters are the JSON Schema the engine generates from its declaration
// (src/strategy/params.ts). The built-in market maker also takes its older request fields
// (spreadMultiplier, skewFactor, inventoryLimit, useML): for it the form sends those names, never
// the same parameter twice, since the engine resolves the old field into the parameter (and wants
// use_ml through useML, which also loads the model).

import type { StrategyInfo, StrategyList } from '../../wire/strategies.ts';
import { SWEEP_KEYS } from '../../wire/sweep-keys.ts';

export type { StrategyInfo, StrategyList };

/** The built-in that keeps the older request fields (src/strategy/builtin/market-maker.ts MARKET_MAKER). */
export const BUILTIN_MARKET_MAKER = 'market_maker';

/** The request's older names of the built-in's parameters: the strategy rows of the sweep keys that are request fields. */
const LEGACY_FIELD = new Map(SWEEP_KEYS.filter((k) => k.section === 'strategy' && k.requestField).map((k) => [k.key, k.name]));

function hasLegacyFields(s: StrategyInfo): boolean {
  return s.builtin && s.name === BUILTIN_MARKET_MAKER;
}

export interface ParamField {
  /** The declared parameter name. */
  param: string;
  /** Where the request carries it: `params.NAME`, or the built-in's older field (e.g. spreadMultiplier). */
  field: string;
  type: 'number' | 'integer' | 'boolean';
  default: number | boolean;
  /** Bounds (numbers only); `exclusiveMin`: the value must be greater than `min`. */
  min: number | null;
  max: number | null;
  exclusiveMin: boolean;
  description: string;
  /** The unit the declaration gives, or '' (the schema carries it at the end of the description). */
  unit: string;
}

interface SchemaProperty {
  type?: unknown;
  default?: unknown;
  minimum?: unknown;
  exclusiveMinimum?: unknown;
  maximum?: unknown;
  description?: unknown;
}

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/**
 * The form fields of a strategy's parameters, in declaration order. The built-in's use_ml is left
 * out: the form's "Use ML model" (useML) sets it. A property of a type the form cannot show is
 * skipped (the engine declares only numbers, integers and booleans).
 */
export function paramFields(s: StrategyInfo): ParamField[] {
  const props = (s.params as { properties?: Record<string, SchemaProperty> }).properties ?? {};
  const legacy = hasLegacyFields(s);
  const out: ParamField[] = [];
  for (const [param, p] of Object.entries(props)) {
    if (p.type !== 'number' && p.type !== 'integer' && p.type !== 'boolean') continue;
    const oldName = legacy ? LEGACY_FIELD.get(param) : undefined;
    if (oldName === 'useML') continue;
    const exclusive = num(p.exclusiveMinimum);
    out.push({
      param,
      field: oldName ?? `params.${param}`,
      type: p.type,
      default: typeof p.default === 'number' || typeof p.default === 'boolean' ? p.default : p.type === 'boolean' ? false : 0,
      min: exclusive ?? num(p.minimum),
      max: num(p.maximum),
      exclusiveMin: exclusive !== null,
      description: typeof p.description === 'string' ? p.description : '',
      unit: typeof p.description === 'string' ? unitOf(p.description) : '',
    });
  }
  return out;
}

/**
 * The unit of a schema description: the engine writes a declared unit as a last parenthesised
 * group ("contracts per quote (contracts)", src/strategy/params.ts); '' when there is none.
 */
export function unitOf(description: string): string {
  if (!description.endsWith(')')) return '';
  let depth = 0;
  for (let i = description.length - 1; i >= 0; i--) {
    if (description[i] === ')') depth++;
    else if (description[i] === '(' && --depth === 0) return i > 0 && description[i - 1] === ' ' ? description.slice(i + 1, -1) : '';
  }
  return '';
}

/** "> 0 … 100", "1 … 100" (the bounds as the engine checks them). */
export function rangeText(f: ParamField): string {
  if (f.type === 'boolean') return 'true or false';
  const lo = f.min === null ? '' : f.exclusiveMin ? `> ${f.min}` : `${f.min}`;
  const hi = f.max === null ? '' : `${f.max}`;
  return lo && hi ? `${lo} … ${hi}` : lo ? `≥ ${lo}` : hi ? `≤ ${hi}` : 'any';
}

/** The title of a parameter's input: its description, range and declared default. */
export function paramHint(f: ParamField): string {
  return `${f.description} · ${rangeText(f)} · default ${f.default}`;
}

/** Sweep keys every strategy may vary: the run's risk limits, queue model, and the model switch. */
const GENERAL_AXES = ['positionLimit', 'maxDrawdown', 'queueModel', 'queuePower', 'useML'];

/**
 * The grid keys the sweep form offers for a strategy: its parameters (`params.NAME`; for the
 * built-in the older names, as before), then the keys any strategy may vary. Without a known
 * strategy, the general keys only.
 */
export function sweepAxes(s: StrategyInfo | null): string[] {
  if (s === null) return [...GENERAL_AXES];
  const declared = Object.keys((s.params as { properties?: object }).properties ?? {});
  let own = declared.map((p) => `params.${p}`);
  if (hasLegacyFields(s)) {
    const named = SWEEP_KEYS.filter((k) => k.section === 'strategy' && declared.includes(k.key));
    own = [...named.map((k) => k.name), ...declared.filter((p) => !named.some((k) => k.key === p)).map((p) => `params.${p}`)];
  }
  return [...own, ...GENERAL_AXES.filter((a) => !own.includes(a))];
}

/** "imbalance_quoter 1.0.0" (a run's strategy as the result view names it). */
export function strategyLabel(s: { name: string; version: string }): string {
  return `${s.name} ${s.version}`;
}
