// A sweep's outputs: the JSON document and the CSV (both in grid order, numbers at full
// precision: String(x) is the shortest text that reads back to the same float64), and the
// ranked table for people (rounded).

import { MARKOUT_LABELS } from '../portfolio/markouts.ts';
import type { SweepValue } from './grid.ts';
import type { SweepPointResult } from './runner.ts';
import { rankOrder, traded, untradedNote } from '../wire/sweep-summary.ts';

export interface HoldoutReport {
  /** Sessions that ranked the points, and the later ones held out. */
  rank_start_date: string;
  rank_end_date: string;
  start_date: string;
  end_date: string;
  /** The best points (by the ranking sessions) run on the holdout sessions, best first. */
  points: (SweepPointResult & { rank: number; grid_index: number })[];
}

export interface SweepDocument {
  points: SweepPointResult[];
  holdout?: HoldoutReport;
}

export function sweepJson(doc: SweepDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** RFC 4180 field: quoted when it holds a comma, quote or newline. */
const field = (v: SweepValue | number | null | undefined) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** One row per point in grid order; holdout columns filled for the points the holdout ran. */
export function sweepCsv(doc: SweepDocument): string {
  const keys = doc.points.length ? Object.keys(doc.points[0].params) : [];
  const mk = MARKOUT_LABELS.map((l) => `markout_${l}_ticks`);
  const held = new Map((doc.holdout?.points ?? []).map((p) => [p.grid_index, p]));
  const hold = doc.holdout ? ['holdout_total_pnl', 'holdout_sharpe_ratio', 'holdout_max_drawdown_pct'] : [];
  const head = [...keys, 'rank', 'sessions', 'total_pnl', 'sharpe_ratio', 'max_drawdown_pct', 'total_fills', 'fees', ...mk, 'kill_switch_tripped', ...hold];
  // A point that never traded has no rank (the cell is empty): its P&L of 0 compares with nothing.
  const rank = new Map(
    rankOrder(doc.points.map((p) => p.result))
      .filter((g) => traded(doc.points[g].result))
      .map((g, r) => [g, r + 1]),
  );
  const rows = doc.points.map((p, i) => {
    const r = p.result;
    const h = held.get(i)?.result;
    const holdCells = doc.holdout ? [h?.total_pnl, h?.sharpe_ratio, h?.max_drawdown_pct] : [];
    return [
      ...keys.map((k) => p.params[k]),
      rank.get(i),
      r.sessions,
      r.total_pnl,
      r.sharpe_ratio,
      r.max_drawdown_pct,
      r.total_fills,
      r.fees,
      ...MARKOUT_LABELS.map((l) => r.markouts[l]?.avg_ticks),
      r.kill_switch_tripped,
      ...holdCells,
    ]
      .map(field)
      .join(',');
  });
  return `${[head.join(','), ...rows].join('\n')}\n`;
}

const fixed = (x: number | null | undefined, d: number) => (x === null || x === undefined ? 'n/a' : x.toFixed(d));

/**
 * The ranked table: best first; P&L and fees in USD, drawdown in percent, markouts in ticks, and
 * the points the kill switch stopped. Points that never traded follow, unranked ("-").
 */
export function sweepTable(doc: SweepDocument): string {
  const keys = doc.points.length ? Object.keys(doc.points[0].params) : [];
  const head = ['rank', ...keys, 'P&L', 'Sharpe', 'max DD %', 'fills', 'fees', ...MARKOUT_LABELS.map((l) => `mk ${l}`), 'kill switch'];
  const line = (rank: number | null, p: SweepPointResult) => {
    const r = p.result;
    return [
      rank === null ? '-' : String(rank),
      ...keys.map((k) => String(p.params[k])),
      fixed(r.total_pnl, 2),
      fixed(r.sharpe_ratio, 4),
      fixed(r.max_drawdown_pct, 4),
      String(r.total_fills),
      fixed(r.fees, 2),
      ...MARKOUT_LABELS.map((l) => fixed(r.markouts[l]?.avg_ticks, 3)),
      r.kill_switch_tripped ? 'TRIPPED' : '-',
    ];
  };
  const results = doc.points.map((p) => p.result);
  const order = rankOrder(results);
  const rows = order.map((g, i) => line(traded(results[g]) ? i + 1 : null, doc.points[g]));
  const never = untradedNote(results);
  const tripped = results.filter((r) => r.kill_switch_tripped).length;
  const notes = [never ? `${never} (no fill: listed last, unranked)` : '', tripped ? `${tripped} stopped by the kill switch` : ''].filter(Boolean);
  const parts = [
    `Sweep: ${doc.points.length} point${doc.points.length === 1 ? '' : 's'}, ranked by total P&L${notes.length ? `; ${notes.join('; ')}` : ''}`,
    ...grid(head, rows),
  ];
  if (doc.holdout) {
    const h = doc.holdout;
    parts.push(
      '',
      `Holdout ${h.start_date}..${h.end_date} (ranked on ${h.rank_start_date}..${h.rank_end_date}): the best ${h.points.length} on sessions ` +
        `not used to rank them`,
    );
    parts.push(
      ...grid(
        head,
        h.points.map((p) => line(p.rank, p)),
      ),
    );
  }
  return `${parts.join('\n')}\n`;
}

/** Right-aligned columns, two spaces apart. */
function grid(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const fmt = (r: string[]) => `  ${r.map((s, c) => s.padStart(widths[c])).join('  ')}`;
  return [fmt(head), ...rows.map(fmt)];
}
