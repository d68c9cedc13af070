// The backtest request (CLI and POST /api/backtest share it): validation with field-named
// errors, defaults from the config, and the expansion into one SessionSpec per CME trading day:
// a root trades the front month of each date, a month-coded symbol that contract only.

import { realpathSync } from 'node:fs';
import { basename, resolve, sep } from 'node:path';
import { type BacktestRequest, backtestRequestSchema, DATE_EXPECTED as DATE, type ResolvedRequest } from '../wire/backtest-request.ts';
import type { FieldError } from '../wire/error.ts';
import { executionParams, feesMissing, riskLimits } from '../config/derive.ts';
import { MARKET_MAKER } from '../strategy/builtin/market-maker.ts';
import { applyParams } from '../strategy/params.ts';
import { configParams, isMarketMaker } from '../strategy/setup.ts';
import { registeredStrategies, strategyByName } from '../strategy/registry.ts';
import { formatValue } from '../config/load.ts';
import type { EngineConfig } from '../config/schema.ts';
import type { ModelFile } from '../ml/inference/model.ts';
import { loadRootModel } from '../ml/inference/model-store.ts';
import { parseDate } from '../market/calendar.ts';
import { contractForRoot, knownRoots, parseSymbol } from '../market/instruments.ts';
import { marketMissing } from '../market/profiles.ts';
import { planReplay, type ReplayPlan } from '../market/replay/dataset.ts';
import { L3_QUEUE_MODEL } from '../exchange/queue-model.ts';
import { parseRequestSymbol, resolveSessions, sessionBounds } from './session-dates.ts';
import type { SessionSpec } from './session-spec.ts';

export { backtestRequestSchema, type BacktestRequest, type ResolvedRequest } from '../wire/backtest-request.ts';
export type { FieldError } from '../wire/error.ts';

// The model file a validated useML request loaded, handed to runBacktest without a second read
// and without putting its weights into the request (which is journaled and served by the API).
const loadedModels = new WeakMap<ResolvedRequest, ModelFile>();

/**
 * The model for a request with useML, or a message naming why it cannot be used: [model]
 * disabled, or the root's model missing, corrupt or trained on another root (loadRootModel).
 */
export function modelForRequest(root: string, config: EngineConfig): { ok: true; model: ModelFile; path: string } | { ok: false; error: string } {
  if (!config.model.enabled) return { ok: false, error: 'useML requires the model, but [model] enabled = false in the config' };
  const r = loadRootModel(config, root);
  return r.ok ? r : { ok: false, error: `cannot use the model: ${r.error}` };
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

// The replay plan (files, sessions) of a validated request with recorded data, kept like the model.
const replayPlans = new WeakMap<ResolvedRequest, ReplayPlan>();

/** Directory of the datasets a request may name: `<data_dir>/market`. */
export function marketDataDir(config: EngineConfig): string {
  return resolve(config.data_dir, 'market');
}

/**
 * Where a request's recorded data is: the CLI's --data path as given, or a dataset name under
 * `<data_dir>/market/` that must stay inside it (a symlink out of it is refused too).
 */
function datasetPath(name: string, config: EngineConfig): string {
  const root = marketDataDir(config);
  const p = resolve(root, name);
  let real: string;
  try {
    real = realpathSync(p);
  } catch {
    throw new Error(`no dataset '${name}' under ${root} (see GET /api/datasets)`);
  }
  const realRoot = realpathSync(root);
  if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new Error(`dataset '${name}' resolves outside ${root}`);
  return real;
}

/** The replay plan of a request with recorded data (null for the synthetic market). */
export function requestReplay(req: ResolvedRequest, config: EngineConfig): ReplayPlan | null {
  if (req.dataset === null) return null;
  const cached = replayPlans.get(req);
  if (cached) return cached;
  const plan = planFor(datasetPath(req.dataset, config), req, config);
  replayPlans.set(req, plan);
  return plan;
}

function planFor(path: string, r: { symbol?: string | null; startDate?: string | null; endDate?: string | null }, config: EngineConfig): ReplayPlan {
  return planReplay(path, {
    symbol: r.symbol ?? null,
    startDate: r.startDate ?? null,
    endDate: r.endDate ?? null,
    regularHoursOnly: config.simulation.regular_hours_only,
    perOrder: config.execution.queue_model === L3_QUEUE_MODEL,
  });
}

const L3_NEEDS_MBO = `[execution] queue_model = "${L3_QUEUE_MODEL}" needs order-level (MBO) data`;

/**
 * A request over recorded data: the sessions are the days the data holds (within the dates
 * given), the contract is the data's. `dataPath` is the CLI's --data (any path the user names);
 * over HTTP the body's dataset is a name under <data_dir>/market/.
 */
function validateReplayRequest(r: BacktestRequest, config: EngineConfig, dataPath: string | null): Validation {
  const field = dataPath !== null ? 'data' : 'dataset';
  let plan: ReplayPlan;
  try {
    plan = planFor(dataPath ?? datasetPath(r.dataset!, config), r, config);
  } catch (e) {
    return { ok: false, errors: [{ field, message: e instanceof Error ? e.message : String(e) }] };
  }
  if (config.execution.queue_model === L3_QUEUE_MODEL && plan.schema !== 'mbo') {
    return { ok: false, errors: [{ field, message: `${L3_NEEDS_MBO}; ${dataPath ?? r.dataset} is ${plan.schema}` }] };
  }
  if (plan.sessions.length === 0) {
    return {
      ok: false,
      errors: [
        {
          field: r.startDate ? 'startDate' : 'dataset',
          message: `no session of ${dataPath ?? r.dataset} falls within ${r.startDate ?? '...'}..${r.endDate ?? '...'}`,
        },
      ],
    };
  }
  if (plan.sessions.length > config.backtest.max_days) {
    return {
      ok: false,
      errors: [
        {
          field: 'endDate',
          message:
            `${plan.sessions.length} sessions in the data: at most [backtest] max_days = ${config.backtest.max_days} per request ` +
            `(narrow startDate/endDate)`,
        },
      ],
    };
  }
  const noFees = feesMissing(config, plan.root, plan.contract.source);
  if (noFees) return { ok: false, errors: [{ field, message: noFees }] };
  const name = dataPath ?? r.dataset!;
  const symbols = [...new Set(plan.sessions.map((s) => s.replay.symbol))];
  return resolveRequest(
    r,
    config,
    {
      root: plan.root,
      symbol: (r.symbol ?? plan.root).trim().toUpperCase(),
      startDate: r.startDate ?? plan.sessions[0].date,
      endDate: r.endDate ?? plan.sessions[plan.sessions.length - 1].date,
      dates: plan.sessions.map((s) => s.date),
      contracts: symbols.length === 1 ? plan.sessions.map(() => symbols[0]) : plan.sessions.map((s) => s.replay.symbol),
      dataset: name,
      data_source: `dbn ${basename(name)} (${plan.schema}, ${symbols.join(', ')})`,
    },
    plan,
  );
}

type Core = Pick<ResolvedRequest, 'root' | 'symbol' | 'startDate' | 'endDate' | 'dates' | 'contracts' | 'dataset' | 'data_source'>;

/** The request with every default filled in around its resolved market (`core`). */
function resolveRequest(r: BacktestRequest, config: EngineConfig, core: Core, plan: ReplayPlan | null): Validation {
  const useML = r.useML ?? config.strategy.use_ml;
  const s = resolveStrategy(r, config, useML);
  if (!s.ok) return s;
  let model: { model: ModelFile; path: string } | null = null;
  if (useML) {
    const m = modelForRequest(core.root, config);
    // With the model on by the config (no useML in the request), say how to run without it.
    if (!m.ok)
      return {
        ok: false,
        errors: [
          {
            field: 'useML',
            message: r.useML === undefined ? `${m.error}; the config's [strategy] use_ml = true asks for it: useML false (--no-ml) runs without it` : m.error,
          },
        ],
      };
    model = m;
  }
  const request: ResolvedRequest = {
    ...core,
    initialCapital: r.initialCapital ?? config.trading.initial_capital,
    strategy: s.strategy,
    spreadMultiplier: s.builtin ? (s.strategy.params.spread_multiplier as number) : null,
    inventoryLimit: s.builtin ? (s.strategy.params.inventory_limit as number) : null,
    skewFactor: s.builtin ? (s.strategy.params.skew_factor as number) : null,
    useML,
    maxDrawdown: r.maxDrawdown ?? config.risk.max_drawdown_pct,
    flattenOnKill: r.flattenOnKill ?? config.risk.flatten_on_kill,
    positionLimit: r.positionLimit ?? riskLimits(config).positionLimit,
    seed: r.seed ?? config.simulation.seed,
    model: model ? { version: model.model.modelVersion, path: model.path } : null,
  };
  if (model) loadedModels.set(request, model.model);
  if (plan) replayPlans.set(request, plan);
  return { ok: true, request };
}

const BUILTIN_FIELDS = ['spreadMultiplier', 'skewFactor', 'inventoryLimit'] as const;

/**
 * The strategy of a request and its parameters: the named one (default [strategy] name), its
 * declared defaults, then the config's values ([strategy] keys for the built-in, with the
 * request's spreadMultiplier, skewFactor, inventoryLimit and useML on top; [strategy.<name>] for
 * another), then the request's `params`. Every value is checked against the declaration.
 */
function resolveStrategy(
  r: BacktestRequest,
  config: EngineConfig,
  useML: boolean,
): { ok: true; builtin: boolean; strategy: ResolvedRequest['strategy'] } | { ok: false; errors: FieldError[] } {
  const name = r.strategy ?? config.strategy.name;
  const reg = strategyByName(name);
  if (!reg) {
    const field = r.strategy !== undefined ? 'strategy' : '(config) strategy.name';
    return {
      ok: false,
      errors: [
        {
          field,
          message: `unknown strategy '${name}' (registered: ${registeredStrategies()
            .map((x) => x.def.name)
            .join(', ')}; load others with --strategy-file or [strategy] files)`,
        },
      ],
    };
  }
  const builtin = isMarketMaker(reg);
  const given = BUILTIN_FIELDS.filter((f) => r[f] !== undefined);
  if (!builtin && given.length)
    return {
      ok: false,
      errors: given.map((field) => ({
        field,
        message: `a parameter of the built-in ${MARKET_MAKER}, not of strategy '${name}': set its parameters in params`,
      })),
    };
  const fromConfig = configParams(config, reg);
  if (!fromConfig.ok) return { ok: false, errors: fromConfig.errors.map((e) => ({ ...e, field: `(config) ${e.field}` })) };
  const base: Record<string, number | boolean> = { ...fromConfig.values };
  if (builtin) {
    base.use_ml = useML;
    if (r.spreadMultiplier !== undefined) base.spread_multiplier = r.spreadMultiplier;
    if (r.skewFactor !== undefined) base.skew_factor = r.skewFactor;
    if (r.inventoryLimit !== undefined) base.inventory_limit = r.inventoryLimit;
  }
  const p = applyParams(reg.def.params, base, r.params, 'params');
  if (!p.ok) return p;
  if (builtin && p.values.use_ml !== useML) return { ok: false, errors: [{ field: 'params.use_ml', message: 'set useML instead (it also loads the model)' }] };
  return { ok: true, builtin, strategy: { name, version: reg.def.version, hash: reg.hash, params: p.values } };
}

const unknownContract = (symbol: string): FieldError => ({
  field: 'symbol',
  message:
    `unknown contract '${symbol}': expected one of ${knownRoots().join(', ')} (or a month-coded symbol such as ESH24; add a ` +
    `[contracts.${symbol.replace(/[FGHJKMNQUVXZ]\d{1,2}$/, '')}] table to the config for another CME future)`,
});

/** Validates a request; `dataPath` is the CLI's --data (recorded data at any path the user names). */
export function validateBacktestRequest(body: unknown, config: EngineConfig, dataPath: string | null = null): Validation {
  const parsed = backtestRequestSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => {
      const field = i.path.length ? i.path.join('.') : i.code === 'unrecognized_keys' ? ((i as { keys?: string[] }).keys?.join(', ') ?? '(body)') : '(body)';
      // The value as sent, so a bound's message says what it refused (at most 80 characters of it).
      const shown = i.path.length && i.input !== undefined ? formatValue(i.input) : '';
      const got = shown === '' ? '' : `, got ${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown}`;
      const message =
        i.code === 'unrecognized_keys' ? `unknown field (known: ${Object.keys(backtestRequestSchema.shape).join(', ')})` : `expected ${i.message}${got}`;
      return { field, message };
    });
    // One answer names every bad field: the contract check too, though it runs after the schema.
    const raw = (body as { symbol?: unknown } | null)?.symbol;
    if (typeof raw === 'string' && !errors.some((e) => e.field === 'symbol') && !parseRequestSymbol(raw.trim().toUpperCase(), 2024))
      errors.unshift(unknownContract(raw));
    // And the calendar's (weekend dates, a range too long), when symbol and dates themselves passed
    // the schema: otherwise they would show only once the other fields are fixed.
    const b = (body ?? {}) as { symbol?: unknown; startDate?: unknown; endDate?: unknown; dataset?: unknown };
    const str = (x: unknown) => x === undefined || typeof x === 'string';
    const flagged = (f: string) => errors.some((e) => e.field === f);
    if (
      typeof b === 'object' &&
      b.dataset === undefined &&
      dataPath === null &&
      str(b.symbol) &&
      str(b.startDate) &&
      str(b.endDate) &&
      !['symbol', 'startDate', 'endDate'].some(flagged)
    ) {
      errors.push(...syntheticSessions(b as { symbol?: string; startDate?: string; endDate?: string }, config).errors);
    }
    return { ok: false, errors };
  }
  const r = parsed.data;
  if (dataPath !== null || r.dataset !== undefined) return validateReplayRequest(r, config, dataPath);
  if (config.execution.queue_model === L3_QUEUE_MODEL) {
    return {
      ok: false,
      errors: [
        { field: 'dataset', message: `${L3_NEEDS_MBO}, and the synthetic market has none: replay an MBO file (--data / dataset) or use power or risk_averse` },
      ],
    };
  }
  const s = syntheticSessions(r, config);
  if (!s.ok) return { ok: false, errors: s.errors };
  return resolveRequest(r, config, { ...s.core, dataset: null, data_source: 'synthetic' }, null);
}

/** The synthetic market's symbol, dates and contracts of a request, or the symbol's and calendar's errors. */
function syntheticSessions(
  r: { symbol?: string; startDate?: string; endDate?: string },
  config: EngineConfig,
): { ok: true; core: Omit<Core, 'dataset' | 'data_source'>; errors: [] } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  // Omitted: the root of the config's first symbol (the config schema checked it parses).
  const symbol = (r.symbol ?? parseSymbol(config.trading.symbols[0]).root).trim().toUpperCase();
  const sim = config.simulation;
  const startDate = r.startDate ?? sim.start_date;
  const endDate = r.endDate ?? r.startDate ?? sim.end_date;
  const sym = parseRequestSymbol(symbol, Number(startDate.slice(0, 4)) || 2024);
  if (!sym) errors.push(unknownContract(symbol));
  if (!parseDate(startDate)) errors.push({ field: 'startDate', message: `'${startDate}' is not ${DATE}` });
  if (!parseDate(endDate)) errors.push({ field: 'endDate', message: `'${endDate}' is not ${DATE}` });
  let dates: string[] = [];
  let contracts: string[] = [];
  if (!errors.length) {
    const s = resolveSessions(startDate, endDate, sym!, config);
    ({ dates, contracts } = s);
    // Without an endDate the range ends on startDate: an error about its end is about the date given.
    errors.push(...s.errors.map((e) => (e.field === 'endDate' && r.endDate === undefined && r.startDate !== undefined ? { ...e, field: 'startDate' } : e)));
  }
  if (errors.length) return { ok: false, errors };
  const spec = contractForRoot(sym!.root);
  if (spec.market === null) return { ok: false, errors: [{ field: 'symbol', message: `${symbol}: ${marketMissing(spec.root, spec.source)}` }] };
  return { ok: true, core: { root: sym!.root, symbol, startDate, endDate, dates, contracts }, errors: [] };
}

/** One SessionSpec per trading day of a resolved request; `model` goes to every session with useML. */
export function sessionSpecs(req: ResolvedRequest, config: EngineConfig, collectFills: boolean, model: ModelFile | null = null): SessionSpec[] {
  const c = config;
  const plan = requestReplay(req, config);
  return req.dates.map((date, i) => ({
    root: req.root,
    date,
    seed: req.seed,
    ...(plan ? replayBounds(plan, date) : sessionBounds(parseSymbol(req.contracts[i]), date, c)),
    contract: plan ? plan.contract : contractForRoot(req.root),
    activity: c.simulation.activity,
    carry: { capital: req.initialCapital, peak: null },
    limits: { ...riskLimits(c), positionLimit: req.positionLimit, maxDrawdownFrac: req.maxDrawdown, flattenOnKill: req.flattenOnKill },
    strategy: { ...req.strategy, file: strategyByName(req.strategy.name)?.file ?? null },
    useML: req.useML,
    flattenMinutes: c.strategy.flatten_minutes,
    execution: executionParams(c, req.root),
    collectFills,
    model: req.useML ? model : null,
  }));
}

/** A replayed session's window and source, from the plan (its dates are the request's). */
function replayBounds(plan: ReplayPlan, date: string): Pick<SessionSpec, 'sessionStartNs' | 'sessionEndNs' | 'replay'> {
  const s = plan.sessions.find((x) => x.date === date);
  if (!s) throw new Error(`no recorded session ${date} in the replay plan`);
  return { sessionStartNs: s.sessionStartNs, sessionEndNs: s.sessionEndNs, replay: s.replay };
}
