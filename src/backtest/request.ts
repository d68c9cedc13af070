// The backtest request (CLI and POST /api/backtest share it): validation with field-named
// errors, defaults from the config, and the expansion into one SessionSpec per CME trading day:
// a root trades the front month of each date, a month-coded symbol that contract only.

import { isAbsolute, join } from 'node:path';
import { backtestRequestSchema, DATE_EXPECTED as DATE, type ResolvedRequest } from '../api/backtest-request.ts';
import type { FieldError } from '../api/error.ts';
import { executionParams, quoteParams, riskLimits } from '../config/derive.ts';
import { formatValue } from '../config/load.ts';
import type { EngineConfig } from '../config/schema.ts';
import { packageRoot } from '../core/paths.ts';
import { loadModel, type ModelFile } from '../ml/model.ts';
import { parseDate } from '../market/calendar.ts';
import { CONTRACTS, parseSymbol } from '../market/instruments.ts';
import { parseRequestSymbol, resolveSessions, sessionBounds } from './session-dates.ts';
import type { SessionSpec } from './session.ts';

export { backtestRequestSchema, type BacktestRequest, type ResolvedRequest } from '../api/backtest-request.ts';
export type { FieldError } from '../api/error.ts';

// The model file a validated useML request loaded, handed to runBacktest without a second read
// and without putting its weights into the request (which is journaled and served by the API).
const loadedModels = new WeakMap<ResolvedRequest, ModelFile>();

/** Directory of the model files: config `[model] dir`, relative to the package root. */
export function modelDir(config: EngineConfig): string {
  const d = config.model.dir;
  return isAbsolute(d) ? d : join(packageRoot(), d);
}

/**
 * The model for a request with useML, or a message naming why it cannot be used: [model]
 * disabled, file missing or corrupt (loadModel's checks), or trained on another root.
 */
export function modelForRequest(root: string, config: EngineConfig): { ok: true; model: ModelFile; path: string } | { ok: false; error: string } {
  if (!config.model.enabled) return { ok: false, error: 'useML requires the model, but [model] enabled = false in the config' };
  const r = loadModel(modelDir(config));
  if (!r.ok) return { ok: false, error: `cannot use the model: ${r.error}` };
  if (!r.model.roots.includes(root)) {
    return { ok: false, error: `model ${r.model.modelVersion} (${r.path}) was trained on ${r.model.roots.join(', ')} and has no predictions for ${root}` };
  }
  return r;
}

/**
 * The model file of a resolved useML request (null without useML): the one validation loaded,
 * else loaded now. Throws when it cannot be loaded or is not the version validation saw.
 */
export function requestModel(req: ResolvedRequest, config: EngineConfig): ModelFile | null {
  if (!req.useML) return null;
  const cached = loadedModels.get(req);
  if (cached) return cached;
  const r = modelForRequest(req.root, config);
  if (!r.ok) throw new Error(r.error);
  if (req.model && r.model.modelVersion !== req.model.version) {
    throw new Error(`model file ${r.path} changed since the request was validated (${req.model.version} -> ${r.model.modelVersion})`);
  }
  return r.model;
}

export type Validation = { ok: true; request: ResolvedRequest } | { ok: false; errors: FieldError[] };

const unknownContract = (symbol: string): FieldError => ({
  field: 'symbol',
  message: `unknown contract '${symbol}': expected one of ${Object.keys(CONTRACTS).join(', ')} (or a month-coded symbol such as ESH24)`,
});

export function validateBacktestRequest(body: unknown, config: EngineConfig): Validation {
  const parsed = backtestRequestSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => {
      const field = i.path.length ? i.path.join('.') : i.code === 'unrecognized_keys' ? (i as { keys?: string[] }).keys?.join(', ') ?? '(body)' : '(body)';
      // The value as sent, so a bound's message says what it refused (at most 80 characters of it).
      const shown = i.path.length && i.input !== undefined ? formatValue(i.input) : '';
      const got = shown === '' ? '' : `, got ${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown}`;
      const message = i.code === 'unrecognized_keys' ? `unknown field (known: ${Object.keys(backtestRequestSchema.shape).join(', ')})` : `expected ${i.message}${got}`;
      return { field, message };
    });
    // One answer names every bad field: the contract check too, though it runs after the schema.
    const raw = (body as { symbol?: unknown } | null)?.symbol;
    if (typeof raw === 'string' && !errors.some((e) => e.field === 'symbol') && !parseRequestSymbol(raw.trim().toUpperCase(), 2024)) errors.unshift(unknownContract(raw));
    return { ok: false, errors };
  }
  const r = parsed.data;
  const errors: FieldError[] = [];
  // Omitted: the root of the config's first symbol (the config schema checked it parses).
  const symbol = (r.symbol ?? parseSymbol(config.trading.symbols[0]).root).trim().toUpperCase();
  const sim = config.simulation;
  const startDate = r.startDate ?? sim.start_date;
  const endDate = r.endDate ?? (r.startDate ?? sim.end_date);
  const sym = parseRequestSymbol(symbol, Number(startDate.slice(0, 4)) || 2024);
  if (!sym) errors.push(unknownContract(symbol));
  if (!parseDate(startDate)) errors.push({ field: 'startDate', message: `'${startDate}' is not ${DATE}` });
  if (!parseDate(endDate)) errors.push({ field: 'endDate', message: `'${endDate}' is not ${DATE}` });
  let dates: string[] = [];
  let contracts: string[] = [];
  if (!errors.length) {
    const s = resolveSessions(startDate, endDate, sym!, config);
    ({ dates, contracts } = s);
    errors.push(...s.errors);
  }
  if (errors.length) return { ok: false, errors };
  const useML = r.useML ?? config.strategy.use_ml;
  let model: { model: ModelFile; path: string } | null = null;
  if (useML) {
    const m = modelForRequest(sym!.root, config);
    if (!m.ok) return { ok: false, errors: [{ field: 'useML', message: m.error }] };
    model = m;
  }
  const request: ResolvedRequest = {
    root: sym!.root,
    symbol,
    startDate,
    endDate,
    dates,
    contracts,
    initialCapital: r.initialCapital ?? config.trading.initial_capital,
    spreadMultiplier: r.spreadMultiplier ?? config.strategy.spread_multiplier,
    inventoryLimit: r.inventoryLimit ?? config.strategy.inventory_limit,
    skewFactor: r.skewFactor ?? config.strategy.skew_factor,
    useML,
    maxDrawdown: r.maxDrawdown ?? config.risk.max_drawdown_pct,
    positionLimit: r.positionLimit ?? riskLimits(config).positionLimit,
    seed: r.seed ?? config.simulation.seed,
    model: model ? { version: model.model.modelVersion, path: model.path } : null,
  };
  if (model) loadedModels.set(request, model.model);
  return { ok: true, request };
}

/** One SessionSpec per trading day of a resolved request; `model` goes to every session with useML. */
export function sessionSpecs(req: ResolvedRequest, config: EngineConfig, collectFills: boolean, model: ModelFile | null = null): SessionSpec[] {
  const c = config;
  return req.dates.map((date, i) => ({
    root: req.root,
    date,
    seed: req.seed,
    ...sessionBounds(parseSymbol(req.contracts[i]), date, c),
    activity: c.simulation.activity,
    carry: { capital: req.initialCapital, peak: null },
    limits: { ...riskLimits(c), positionLimit: req.positionLimit, maxDrawdownFrac: req.maxDrawdown },
    quote: { ...quoteParams(c), spreadMultiplier: req.spreadMultiplier, skewFactor: req.skewFactor, inventoryLimit: req.inventoryLimit, useML: req.useML },
    flattenMinutes: c.strategy.flatten_minutes,
    execution: executionParams(c, req.root),
    collectFills,
    model: req.useML ? model : null,
  }));
}
