// Loading the strategies a process runs, once at start: the files the config lists
// ([strategy] files) and those named with --strategy-file, then the config's strategy choices
// checked against them ([strategy] name, each [strategy.<name>] table), each error naming its key.

import { type EngineConfig, SECTION_SHAPES } from '../config/schema.ts';
import { MARKET_MAKER, paramValuesOf } from './builtin/market-maker.ts';
import type { QuoteParams } from './market-maker.ts';
import type { ParamValues, StrategyDefinition } from './port.ts';
import { loadStrategies } from './load.ts';
import { applyParams, defaults } from './params.ts';
import { type Registered, registeredStrategies, strategyByName } from './registry.ts';

/** The built-in market maker's parameters from the config's [strategy] (and [trading] max_order_size). */
export function quoteParams(c: EngineConfig): QuoteParams {
  return {
    orderSize: Math.min(c.strategy.order_size, c.trading.max_order_size),
    spreadMultiplier: c.strategy.spread_multiplier,
    skewFactor: c.strategy.skew_factor,
    inventoryLimit: c.strategy.inventory_limit,
    volSpreadFactor: c.strategy.vol_spread_factor,
    useML: c.strategy.use_ml,
    mlWeight: c.strategy.ml_weight,
  };
}

/** The [strategy] keys that are not a strategy's parameter table (the schema's own keys). */
const OWN_KEYS = new Set(SECTION_SHAPES.strategy);

/** Loads the configured and the extra strategy files; returns an error message, or null when all is well. */
export async function setUpStrategies(config: EngineConfig, extraFiles: readonly string[] = []): Promise<string | null> {
  try {
    await loadStrategies([...config.strategy.files, ...extraFiles]);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  return configuredStrategyProblem(config);
}

/** The config's strategy keys checked against the registry (after loading): a message naming the key, or null. */
export function configuredStrategyProblem(config: EngineConfig): string | null {
  const name = config.strategy.name;
  if (!strategyByName(name))
    return `strategy.name = ${JSON.stringify(name)}: expected a loaded strategy (${loadedNames()}); load its file with [strategy] files or --strategy-file`;
  for (const key of Object.keys(config.strategy)) {
    if (OWN_KEYS.has(key)) continue;
    if (key === MARKET_MAKER)
      return `[strategy.${key}]: the built-in's parameters are the [strategy] keys themselves (e.g. spread_multiplier = 1.5 under [strategy])`;
    const r = strategyByName(key);
    if (!r) return `[strategy.${key}]: no strategy named '${key}' is loaded (${loadedNames()})`;
    const p = configParams(config, r);
    if (!p.ok) return p.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  }
  return null;
}

function loadedNames(): string {
  return `loaded: ${registeredStrategies()
    .map((r) => r.def.name)
    .join(', ')}`;
}

/**
 * The strategy the config names ([strategy] name) with its parameters from the config: the
 * built-in's [strategy] keys, or another's [strategy.<name>] table over its defaults. The live
 * simulation runs it; a backtest request without `strategy` resolves the same way.
 */
export function configuredStrategy(config: EngineConfig): { def: StrategyDefinition; params: ParamValues; hash: string } {
  const name = config.strategy.name;
  const r = strategyByName(name);
  if (!r) throw new Error(`strategy.name = ${JSON.stringify(name)}: no such strategy is loaded`);
  const p = configParams(config, r);
  if (!p.ok) throw new Error(p.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  return { def: r.def, params: p.values, hash: r.hash };
}

/** The built-in market maker, whose parameters are the [strategy] keys and the seed's request fields. */
export function isMarketMaker(r: Registered): boolean {
  return r.file === null && r.def.name === MARKET_MAKER;
}

/**
 * A strategy's parameters as the config sets them: the built-in market maker's are the [strategy] keys
 * (already checked by the config schema), another's its [strategy.<name>] table over its declared
 * defaults (errors name `strategy.<name>.<key>`).
 */
export function configParams(config: EngineConfig, r: Registered): ReturnType<typeof applyParams> {
  if (isMarketMaker(r)) return { ok: true, values: paramValuesOf(quoteParams(config)) };
  const name = r.def.name;
  return applyParams(r.def.params, defaults(r.def.params), (config.strategy as Record<string, unknown>)[name], `strategy.${name}`);
}

/** The live engine's strategy as the state reports it (null when the config names one not loaded here). */
export function liveStrategy(config: EngineConfig): { name: string; version: string; hash: string } | null {
  const r = strategyByName(config.strategy.name);
  return r ? { name: r.def.name, version: r.def.version, hash: r.hash } : null;
}
