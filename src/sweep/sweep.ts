// A whole sweep, as the CLI (and the HTTP API) runs it: prepare (validate every point, split off
// the holdout), then run the points and, with a holdout, the best of them on the later sessions.

import type { FieldError } from '../wire/error.ts';
import type { EngineConfig } from '../config/schema.ts';
import { type BacktestRequest, validateBacktestRequest } from '../backtest/request.ts';
import type { SweepAxis } from './grid.ts';
import type { SweepDocument } from './output.ts';
import { holdoutSplit, type ParamNaming, type PlannedPoint, planSweep } from './plan.ts';
import { runSweep, type SweepRunOptions } from './runner.ts';
import { rankOrder } from '../wire/sweep-summary.ts';

/** How many of the best points a holdout evaluates. */
export const HOLDOUT_TOP = 3;

export interface SweepSpec {
  /** The request fields the sweep does not vary (symbol, dates, seed, ...). */
  base: BacktestRequest;
  axes: SweepAxis[];
  naming: ParamNaming;
  /** Trading days at the end of the range held out of the ranking (0: none). */
  holdoutDays?: number;
  /** The CLI's --data (recorded data at any path; over HTTP the request names a dataset). */
  dataPath?: string | null;
}

export interface PreparedSweep {
  points: PlannedPoint[];
  holdout: { rank: [string, string]; range: [string, string]; points: PlannedPoint[] } | null;
}

export type Prepared = { ok: true; sweep: PreparedSweep } | { ok: false; errors: FieldError[] };

export function prepareSweep(spec: SweepSpec, config: EngineConfig): Prepared {
  const days = spec.holdoutDays ?? 0;
  if (days === 0) {
    const p = planSweep(spec.base, spec.axes, config, spec.naming, spec.dataPath);
    return p.ok ? { ok: true, sweep: { points: p.points, holdout: null } } : p;
  }
  const whole = validateBacktestRequest(spec.base, config, spec.dataPath ?? null);
  if (!whole.ok) return whole;
  const split = holdoutSplit(whole.request, days);
  if (!split.ok) return { ok: false, errors: [{ field: 'holdoutDays', message: split.error }] };
  const ranked = planSweep({ ...spec.base, startDate: split.rank[0], endDate: split.rank[1] }, spec.axes, config, spec.naming, spec.dataPath);
  if (!ranked.ok) return ranked;
  const held = planSweep({ ...spec.base, startDate: split.holdout[0], endDate: split.holdout[1] }, spec.axes, config, spec.naming, spec.dataPath);
  if (!held.ok) return held;
  return { ok: true, sweep: { points: ranked.points, holdout: { rank: split.rank, range: split.holdout, points: held.points } } };
}

/** Sessions the sweep runs: its cost (grid points x sessions, plus the holdout's). */
export function sweepSessions(s: PreparedSweep): number {
  const held = s.holdout ? Math.min(HOLDOUT_TOP, s.holdout.points.length) * (s.holdout.points[0]?.request.dates.length ?? 0) : 0;
  return s.points.reduce((n, p) => n + p.request.dates.length, 0) + held;
}

export async function executeSweep(s: PreparedSweep, opts: SweepRunOptions = {}): Promise<SweepDocument> {
  const points = await runSweep(s.points, opts);
  if (!s.holdout) return { points };
  const best = rankOrder(points.map((p) => p.result)).slice(0, HOLDOUT_TOP);
  const held = await runSweep(
    best.map((g) => s.holdout!.points[g]),
    { ...opts, onProgress: undefined },
  );
  return {
    points,
    holdout: {
      rank_start_date: s.holdout.rank[0],
      rank_end_date: s.holdout.rank[1],
      start_date: s.holdout.range[0],
      end_date: s.holdout.range[1],
      points: held.map((p, i) => ({ rank: i + 1, grid_index: best[i], ...p })),
    },
  };
}
