// A sweep's plan: every grid point turned into a validated backtest request and the config it
// runs with, before anything runs, so a bad value fails the whole sweep at once with an error
// naming the key and the value. The holdout split is here too.

import type { FieldError } from '../wire/error.ts';
import { formatValue } from '../config/load.ts';
import { type EngineConfig, EngineConfigSchema } from '../config/schema.ts';
import { type BacktestRequest, type ResolvedRequest, validateBacktestRequest } from '../backtest/request.ts';
import { gridPoints, type SweepAxis, type SweepPoint, type SweepValue } from './grid.ts';

export interface PlannedPoint {
  /** Index in grid order. */
  index: number;
  /** Axis values, keyed as the sweep named them (config keys on the CLI, camelCase over HTTP). */
  params: Record<string, SweepValue>;
  request: ResolvedRequest;
  config: EngineConfig;
}

export type PlanResult = { ok: true; points: PlannedPoint[] } | { ok: false; errors: FieldError[] };

/** How a point's params are keyed: the config key (CLI) or the request's camelCase name (HTTP). */
export type ParamNaming = 'key' | 'name';

/** The config a point runs with: the base config with its config-only axis values set, re-validated. */
function pointConfig(
  base: EngineConfig,
  axes: readonly SweepAxis[],
  point: SweepPoint,
  label: (a: SweepAxis) => string,
): { config: EngineConfig } | { error: FieldError } {
  const own = axes.map((a, i) => [a, point[i]] as const).filter(([a]) => !a.key.requestField);
  if (own.length === 0) return { config: base };
  const next: Record<string, Record<string, unknown>> = { ...(base as unknown as Record<string, Record<string, unknown>>) };
  for (const [a, v] of own) next[a.key.section] = { ...next[a.key.section], [a.key.key]: v };
  const parsed = EngineConfigSchema.safeParse(next);
  if (parsed.success) return { config: parsed.data };
  const issue = parsed.error.issues[0];
  const axis = own.find(([a]) => issue.path[0] === a.key.section && issue.path[1] === a.key.key)?.[0] ?? own[0][0];
  const value = point[axes.indexOf(axis)];
  return { error: { field: label(axis), message: `${formatValue(value)}: expected ${issue.message}` } };
}

/**
 * Validates every point of the grid over `base` (the request fields the sweep does not vary).
 * The errors name the sweep key and the refused value; one per distinct problem.
 */
export function planSweep(
  base: BacktestRequest,
  axes: readonly SweepAxis[],
  config: EngineConfig,
  naming: ParamNaming,
  dataPath: string | null = null,
): PlanResult {
  const label = (a: SweepAxis) => (naming === 'key' ? a.key.key : a.key.name);
  const points: PlannedPoint[] = [];
  const errors = new Map<string, FieldError>();
  for (const [index, point] of gridPoints(axes).entries()) {
    const params: Record<string, SweepValue> = {};
    const body: Record<string, unknown> = { ...base };
    axes.forEach((a, i) => {
      params[label(a)] = point[i];
      if (a.key.section === 'params')
        body.params = { ...(body.params as Record<string, SweepValue> | undefined), [a.key.name.slice('params.'.length)]: point[i] };
      else if (a.key.requestField) body[a.key.name] = point[i];
    });
    const c = pointConfig(config, axes, point, label);
    if ('error' in c) {
      errors.set(`${c.error.field}:${c.error.message}`, c.error);
      continue;
    }
    const v = validateBacktestRequest(body, c.config, dataPath);
    if (!v.ok) {
      for (const e of v.errors) {
        const axis = axes.find((a) => a.key.requestField && a.key.name === e.field);
        // Schema errors already say ", got VALUE"; the others (e.g. no model for useML) get the value here.
        const message = !axis || e.message.includes(', got ') ? e.message : `${e.message} (got ${formatValue(body[e.field])})`;
        const err = axis ? { field: label(axis), message } : e;
        errors.set(`${err.field}:${err.message}`, err);
      }
      continue;
    }
    points.push({ index, params, request: v.request, config: c.config });
  }
  if (errors.size) return { ok: false, errors: [...errors.values()] };
  return { ok: true, points };
}

/**
 * Splits a request's sessions for a holdout: the first sessions rank the points, the last
 * `holdoutDays` (later, never used to rank) evaluate the best. Needs at least one of each.
 */
export function holdoutSplit(
  req: ResolvedRequest,
  holdoutDays: number,
): { ok: true; rank: [string, string]; holdout: [string, string] } | { ok: false; error: string } {
  const d = req.dates;
  if (holdoutDays >= d.length) {
    return {
      ok: false,
      error:
        `${holdoutDays} holdout days leave no session to rank on: ${req.startDate}..${req.endDate} has ${d.length} trading ` +
        `day${d.length === 1 ? '' : 's'}`,
    };
  }
  const cut = d.length - holdoutDays;
  return { ok: true, rank: [d[0], d[cut - 1]], holdout: [d[cut], d[d.length - 1]] };
}
