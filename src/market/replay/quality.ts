// Data-quality counters of a replayed session: how the recorded file met the engine. Kept in one
// Float64Array (REPLAY_QUALITY_FIELDS order) so the decoder thread hands them over in shared
// memory; the exchange adds what it saw of the replayed book (time crossed or locked, phase
// changes). Every replayed session's result carries them (SessionResult.dataQuality), the run's
// result sums them (data_quality), and a warn log line names the non-zero ones.

/** The counters, in their array order; each is a count except crossedNs. */
export const REPLAY_QUALITY_FIELDS = [
  /** Records of the instrument applied in the window (events emitted). */
  'recordsApplied',
  /** Records applied silently before the window (warm-up, snapshot included), no events emitted. */
  'recordsWarmup',
  /** Records of the instrument not applied: at or after the window's end, a repeated opening snapshot. */
  'recordsSkipped',
  /** Records of an opening book snapshot (F_SNAPSHOT, or the clear that opens it). */
  'snapshotRecords',
  /** MBO cancels, modifies and fills of orders the book never saw. */
  'unknownCancels',
  'unknownModifies',
  'unknownFills',
  /** Records whose ts_event stepped back (kept at the previous record's time). */
  'timeClamped',
  /** Time (ns) the exchange's replayed book was crossed or locked: no continuous matching. */
  'crossedNs',
  /** Changes between continuous trading and a crossed or locked book. */
  'phaseChanges',
] as const;

export type ReplayQualityField = (typeof REPLAY_QUALITY_FIELDS)[number];
export type ReplayQuality = Record<ReplayQualityField, number>;

export const Q = Object.fromEntries(REPLAY_QUALITY_FIELDS.map((f, i) => [f, i])) as Record<ReplayQualityField, number>;

export function qualityOf(a: ArrayLike<number>): ReplayQuality {
  return Object.fromEntries(REPLAY_QUALITY_FIELDS.map((f, i) => [f, a[i]])) as ReplayQuality;
}

export function emptyQuality(): ReplayQuality {
  return qualityOf(new Float64Array(REPLAY_QUALITY_FIELDS.length));
}

export function addQuality(into: ReplayQuality, q: ReplayQuality): void {
  for (const f of REPLAY_QUALITY_FIELDS) into[f] += q[f];
}

// Counters that say the replay differs from a clean live feed (the others only describe it).
const NOTABLE: readonly ReplayQualityField[] = ['unknownCancels', 'unknownModifies', 'unknownFills', 'timeClamped', 'crossedNs', 'phaseChanges'];

/** The non-zero counters, "name=value", when a notable one is non-zero; else null (no warning). */
export function qualityWarning(q: ReplayQuality): string | null {
  if (!NOTABLE.some((f) => q[f] !== 0)) return null;
  return REPLAY_QUALITY_FIELDS.filter((f) => q[f] !== 0).map((f) => `${f}=${q[f]}`).join(' ');
}
