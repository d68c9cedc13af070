// The sweep views' data, without the DOM (tested on its own): the form's values, the metrics, sorting
// the points by one column, and the heatmap matrix of a metric over two parameters.

import type { SweepRun } from '../../wire/sweep.ts';
import { traded } from '../../wire/sweep-summary.ts';

export { rankOrder, traded, untradedNote } from '../../wire/sweep-summary.ts';

export type SweepPoint = NonNullable<SweepRun['result']>['points'][number];
export type ParamValue = SweepPoint['params'][string];

export const SWEEP_METRICS = [
  ['total_pnl', 'P&L $'],
  ['sharpe_ratio', 'Sharpe'],
  ['max_drawdown_pct', 'Max DD %'],
  ['total_fills', 'Fills'],
  ['fees', 'Fees $'],
  ['markout_1s', 'Markout 1s, ticks'],
] as const;
export type SweepMetric = (typeof SWEEP_METRICS)[number][0];

export function metricValue(p: SweepPoint, m: SweepMetric): number | null {
  if (m === 'markout_1s') return p.result.markouts['1s']?.avg_ticks ?? null;
  return p.result[m];
}

/** A column: a parameter (`param:<name>`) or a metric. */
export type SweepColumn = `param:${string}` | SweepMetric;

function cell(p: SweepPoint, c: SweepColumn): number | string | boolean | null {
  return c.startsWith('param:') ? p.params[c.slice(6)] : metricValue(p, c as SweepMetric);
}

/** Grid indices sorted by a column; null (no markout) last either way; ties keep grid order. */
export function sortPoints(points: readonly SweepPoint[], column: SweepColumn, descending: boolean): number[] {
  const cmp = (a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b)));
  return points
    .map((_, i) => i)
    .sort((i, j) => {
      const a = cell(points[i], column);
      const b = cell(points[j], column);
      if (a === null || b === null) return a === b ? i - j : a === null ? 1 : -1;
      return (descending ? -cmp(a, b) : cmp(a, b)) || i - j;
    });
}

export interface Heatmap {
  xs: ParamValue[];
  ys: ParamValue[];
  /** cells[y][x]: the metric where the two parameters take xs[x] and ys[y]; null when no point. */
  cells: (number | null)[][];
  /** points[y][x]: the grid index of the point the cell shows; null when none. */
  points: (number | null)[][];
  min: number;
  max: number;
}

/** Metrics where less is better (the heatmap's best-of and its colours). */
export const LOWER_IS_BETTER: ReadonlySet<SweepMetric> = new Set(['max_drawdown_pct', 'fees']);
/** Metrics with a sign (a gain or a loss): coloured around zero. */
const SIGNED: ReadonlySet<SweepMetric> = new Set(['total_pnl', 'sharpe_ratio', 'markout_1s']);

/**
 * The metric over parameters x and y. With other parameters in the grid, a cell shows the best
 * value (highest; lowest for drawdown and fees) over the points that traded; a point that never
 * traded only when none of them did (its P&L of 0 is no result to beat a loss with).
 */
export function heatmap(points: readonly SweepPoint[], x: string, y: string, metric: SweepMetric): Heatmap {
  const uniq = (k: string) => [...new Set(points.map((p) => p.params[k]))];
  const xs = uniq(x);
  const ys = uniq(y);
  const lowerIsBetter = LOWER_IS_BETTER.has(metric);
  const cells = ys.map(() => xs.map((): number | null => null));
  const chosen = ys.map(() => xs.map((): number | null => null));
  points.forEach((p, g) => {
    const v = metricValue(p, metric);
    if (v === null) return;
    const [ix, iy] = [xs.indexOf(p.params[x]), ys.indexOf(p.params[y])];
    const cur = chosen[iy][ix];
    const was = cells[iy][ix];
    const better =
      cur === null ||
      was === null ||
      (traded(p.result) && !traded(points[cur].result)) ||
      (traded(p.result) === traded(points[cur].result) && (lowerIsBetter ? v < was : v > was));
    if (better) {
      cells[iy][ix] = v;
      chosen[iy][ix] = g;
    }
  });
  const all = cells.flat().filter((v): v is number => v !== null);
  return { xs, ys, cells, points: chosen, min: all.length ? Math.min(...all) : 0, max: all.length ? Math.max(...all) : 0 };
}

export interface ColourScale {
  /** 'diverging': red below zero, green above, equally deep at equal distance from zero; 'sequential': one hue from 0. */
  kind: 'diverging' | 'sequential';
  /** The ends of the legend: -bound..+bound (diverging) or 0..bound (sequential). */
  lo: number;
  hi: number;
  colour(v: number): string;
}

const RED = 0;
const GREEN = 120;
const BLUE = 210;

/**
 * The colours of a metric's cells, anchored at zero so that a loss is never green: P&L, Sharpe and
 * markouts diverge from zero (|v| / the largest |v| sets the depth); drawdown and fees (worse when
 * larger) and fills run from 0 in one hue.
 */
export function colourScale(metric: SweepMetric, values: readonly number[]): ColourScale {
  const bound = Math.max(0, ...values.map(Math.abs));
  const depth = (v: number) => (bound > 0 ? Math.min(1, Math.abs(v) / bound) : 0);
  // From a near-black neutral (0) to a saturated colour (the bound).
  const shade = (hue: number, f: number) => `hsl(${hue} ${Math.round(15 + 50 * f)}% ${Math.round(16 + 24 * f)}%)`;
  if (SIGNED.has(metric)) return { kind: 'diverging', lo: -bound, hi: bound, colour: (v) => shade(v < 0 ? RED : GREEN, depth(v)) };
  const hue = LOWER_IS_BETTER.has(metric) ? RED : BLUE;
  return { kind: 'sequential', lo: 0, hi: bound, colour: (v) => shade(hue, depth(v)) };
}

/** "1, 1.5, true, power" -> [1, 1.5, true, "power"]. */
export function parseValues(text: string): (number | boolean | string)[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (s === 'true' ? true : s === 'false' ? false : Number.isFinite(Number(s)) ? Number(s) : s));
}
