// The sweep views' data, without the DOM (tested on its own): the form's values, the metrics, sorting
// the points by one column, and the heatmap matrix of a metric over two parameters.

import type { SweepRun } from '../../api/sweep.ts';

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
  min: number;
  max: number;
}

/**
 * The metric over parameters x and y. With other parameters in the grid, a cell shows the best
 * value (highest; lowest for drawdown and fees) over them, as the title of the view says.
 */
export function heatmap(points: readonly SweepPoint[], x: string, y: string, metric: SweepMetric): Heatmap {
  const uniq = (k: string) => [...new Set(points.map((p) => p.params[k]))];
  const xs = uniq(x);
  const ys = uniq(y);
  const lowerIsBetter = metric === 'max_drawdown_pct' || metric === 'fees';
  const cells = ys.map(() => xs.map((): number | null => null));
  for (const p of points) {
    const v = metricValue(p, metric);
    if (v === null) continue;
    const [ix, iy] = [xs.indexOf(p.params[x]), ys.indexOf(p.params[y])];
    const cur = cells[iy][ix];
    if (cur === null || (lowerIsBetter ? v < cur : v > cur)) cells[iy][ix] = v;
  }
  const all = cells.flat().filter((v): v is number => v !== null);
  return { xs, ys, cells, min: all.length ? Math.min(...all) : 0, max: all.length ? Math.max(...all) : 0 };
}

/** 0..1 position of v between min and max (0.5 when they are equal). */
export function scale(v: number, min: number, max: number): number {
  return max > min ? (v - min) / (max - min) : 0.5;
}

/** "1, 1.5, true, power" -> [1, 1.5, true, "power"]. */
export function parseValues(text: string): (number | boolean | string)[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (s === 'true' ? true : s === 'false' ? false : Number.isFinite(Number(s)) ? Number(s) : s));
}
