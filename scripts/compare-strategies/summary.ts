// The comparison's figures per row (a strategy on a root): from its held-out sessions, each a
// one-day backtest of its own (its own account, kill switch and capital), so a session's P&L is
// one draw of the daily P&L and a kill-switch trip stops that day only. Full precision here and
// in the JSON/CSV; only the markdown table rounds.

import type { PointResult } from '../../src/wire/sweep-summary.ts';

/** The markout horizons the comparison reports (the engine measures 60 s too; it is in the JSON). */
export const HORIZONS = ['100ms', '1s', '10s'] as const;

export interface SessionFigures extends PointResult {
  seed: number;
  date: string;
}

export interface MarkoutSummary {
  fills_qty: number;
  /** Fill-weighted average over the sessions, ticks (null: no fill). */
  avg_ticks: number | null;
  avg_usd_per_contract: number | null;
}

export interface RowSummary {
  sessions: number;
  pnl_mean: number;
  /** Sample standard deviation (n - 1) of the daily P&L; null with one session. */
  pnl_sd: number | null;
  pnl_min: number;
  pnl_max: number;
  /** Daily Sharpe: mean / sd of the daily P&L (= of the daily return, every day opens at the same capital) x sqrt(252); null when sd is 0 or unknown. */
  sharpe_daily: number | null;
  /** The worst session's max drawdown, percent of its peak equity. */
  max_drawdown_pct: number;
  fills: number;
  fills_per_session: number;
  fees: number;
  fees_per_session: number;
  markouts: Record<string, MarkoutSummary>;
  /** Sessions whose kill switch tripped. */
  kill_switch_trips: number;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

export function summarize(sessions: readonly SessionFigures[]): RowSummary {
  const n = sessions.length;
  const pnl = sessions.map((s) => s.total_pnl);
  const mean = sum(pnl) / n;
  const sd = n > 1 ? Math.sqrt(sum(pnl.map((x) => (x - mean) ** 2)) / (n - 1)) : null;
  const markouts: Record<string, MarkoutSummary> = {};
  for (const h of HORIZONS) {
    const qty = sum(sessions.map((s) => s.markouts[h]?.fills_qty ?? 0));
    const weighted = (f: 'avg_ticks' | 'avg_usd_per_contract') =>
      qty === 0 ? null : sum(sessions.map((s) => (s.markouts[h]?.[f] ?? 0) * (s.markouts[h]?.fills_qty ?? 0))) / qty;
    markouts[h] = { fills_qty: qty, avg_ticks: weighted('avg_ticks'), avg_usd_per_contract: weighted('avg_usd_per_contract') };
  }
  const fills = sum(sessions.map((s) => s.total_fills));
  const fees = sum(sessions.map((s) => s.fees));
  return {
    sessions: n,
    pnl_mean: mean,
    pnl_sd: sd,
    pnl_min: Math.min(...pnl),
    pnl_max: Math.max(...pnl),
    sharpe_daily: sd === null || sd === 0 ? null : (mean / sd) * Math.sqrt(252),
    max_drawdown_pct: Math.max(...sessions.map((s) => s.max_drawdown_pct)),
    fills,
    fills_per_session: fills / n,
    fees,
    fees_per_session: fees / n,
    markouts,
    kill_switch_trips: sessions.filter((s) => s.kill_switch_tripped).length,
  };
}

export interface Row {
  root: string;
  /** The row's name: the strategy, "(shipped, no model)" or "+ model" where it applies. */
  variant: string;
  strategy: string;
  use_ml: boolean;
  model_version: string | null;
  /** How the parameters were set: the tuning grid's best point, the shipped config, or none to set. */
  chosen_by: 'tuning' | 'shipped config' | 'none';
  /** The parameters the tuning chose (the grid's keys only; the rest are the config's). */
  chosen: Record<string, number | boolean>;
  /** Every parameter of the strategy as the held-out sessions ran it. */
  params: Record<string, number | boolean>;
  /** How to run one held-out session of this row with the engine's CLI (SEED and DATE to fill in). */
  cli: string;
  sessions: SessionFigures[];
  summary: RowSummary;
}

const usd = (x: number) => `${x < 0 ? '−' : ''}$${Math.abs(x).toLocaleString('en-US', { maximumFractionDigits: 0 })}`;
const num = (x: number | null, d: number) => (x === null ? '—' : x.toFixed(d).replace(/^-/, '−'));
const chosenText = (r: Row) =>
  r.chosen_by === 'tuning'
    ? Object.entries(r.chosen)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')
    : r.chosen_by === 'shipped config'
      ? 'shipped parameters'
      : '—';

/** The people's table: one line per row, rounded. */
export function markdownTable(rows: readonly Row[]): string {
  const out = [
    '| root | strategy | model | parameters | daily P&L mean | daily P&L sd | Sharpe (daily, ×√252) | worst max DD | fills / day | fees / day | markout 100 ms / 1 s / 10 s (ticks) | kill-switch trips |',
    '|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const s = r.summary;
    const mk = HORIZONS.map((h) => num(s.markouts[h].avg_ticks, 3)).join(' / ');
    out.push(
      `| ${r.root} | ${r.variant} | ${r.use_ml ? 'yes' : 'no'} | ${chosenText(r)} | ${usd(s.pnl_mean)} | ${s.pnl_sd === null ? '—' : usd(s.pnl_sd)} | ${num(s.sharpe_daily, 2)} | ${s.max_drawdown_pct.toFixed(2)} % | ${Math.round(s.fills_per_session).toLocaleString('en-US')} | ${usd(s.fees_per_session)} | ${mk} | ${s.kill_switch_trips} of ${s.sessions} |`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** Per variant over the roots it ran on: the sum of the roots' mean daily P&L (one of each contract). */
export function overallTable(rows: readonly Row[]): string {
  const variants = [...new Set(rows.map((r) => r.variant))];
  const out = ['| strategy | roots | sum of mean daily P&L | roots with mean daily P&L > 0 | kill-switch trips |', '|---|---|---:|---:|---:|'];
  for (const v of variants) {
    const rs = rows.filter((r) => r.variant === v);
    const trips = sum(rs.map((r) => r.summary.kill_switch_trips));
    const n = sum(rs.map((r) => r.summary.sessions));
    out.push(
      `| ${v} | ${rs.map((r) => r.root).join(', ')} | ${usd(sum(rs.map((r) => r.summary.pnl_mean)))} | ${rs.filter((r) => r.summary.pnl_mean > 0).length} of ${rs.length} | ${trips} of ${n} |`,
    );
  }
  return `${out.join('\n')}\n`;
}

const CSV_HEAD = [
  'root',
  'variant',
  'strategy',
  'use_ml',
  'model_version',
  'chosen_by',
  'chosen',
  'sessions',
  'pnl_mean',
  'pnl_sd',
  'pnl_min',
  'pnl_max',
  'sharpe_daily',
  'max_drawdown_pct',
  'fills',
  'fills_per_session',
  'fees',
  'fees_per_session',
  ...HORIZONS.flatMap((h) => [`markout_${h}_ticks`, `markout_${h}_usd_per_contract`, `markout_${h}_fills_qty`]),
  'kill_switch_trips',
];

const cell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** One line per row, full precision (String(number) round-trips). */
export function csv(rows: readonly Row[]): string {
  const lines = [CSV_HEAD.join(',')];
  for (const r of rows) {
    const s = r.summary;
    const vals = [
      r.root,
      r.variant,
      r.strategy,
      r.use_ml,
      r.model_version,
      r.chosen_by,
      r.chosen,
      s.sessions,
      s.pnl_mean,
      s.pnl_sd,
      s.pnl_min,
      s.pnl_max,
      s.sharpe_daily,
      s.max_drawdown_pct,
      s.fills,
      s.fills_per_session,
      s.fees,
      s.fees_per_session,
      ...HORIZONS.flatMap((h) => [s.markouts[h].avg_ticks, s.markouts[h].avg_usd_per_contract, s.markouts[h].fills_qty]),
      s.kill_switch_trips,
    ];
    lines.push(vals.map(cell).join(','));
  }
  return `${lines.join('\n')}\n`;
}
