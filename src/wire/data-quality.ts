// The data-quality counters of recorded data (src/market/replay/quality.ts counts them): one
// definition of their names and meaning, for the backtest result, the journal and the report.

import { z } from 'zod';

/** The counters, in their array order, and what each counts (the API's descriptions). */
export const REPLAY_QUALITY = {
  records_applied: 'records of the instrument applied in the window (each yields its events)',
  records_warmup: 'records applied to the book silently before the window (warm-up, the opening snapshot included); the book is published at the window start',
  records_skipped: "records of the instrument not applied: at or after the window's end",
  snapshot_records: 'records of an opening book snapshot (flag F_SNAPSHOT)',
  unknown_cancels: 'MBO cancels of orders the book never saw (skipped)',
  unknown_modifies: 'MBO modifies of orders the book never saw (taken as adds)',
  unknown_fills: 'MBO fills of orders the book never saw (skipped), e.g. orders only the opening auction created',
  time_clamped: "records whose ts_event stepped back, or fell before the window's start (kept at the previous time)",
  crossed_ns: "time the exchange's replayed book was crossed or locked (no continuous matching), ns",
  phase_changes: 'changes between continuous trading and a crossed or locked book',
} as const;

export type ReplayQualityField = keyof typeof REPLAY_QUALITY;
export type ReplayQuality = Record<ReplayQualityField, number>;

export const dataQualitySchema = z
  .object(Object.fromEntries(Object.entries(REPLAY_QUALITY).map(([k, d]) => [k, z.number().describe(d)])) as Record<ReplayQualityField, z.ZodNumber>)
  .describe('How recorded data met the engine (null for the synthetic market): docs/replay.md');
