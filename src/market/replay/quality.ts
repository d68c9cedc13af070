// Data-quality counters of a replayed session: how the recorded file met the engine. Kept in one
// Float64Array (REPLAY_QUALITY_FIELDS order) so the decoder thread hands them over in shared
// memory; the exchange adds what it saw of the replayed book (time crossed or locked, phase
// changes). Every replayed session's result carries them (SessionResult.dataQuality), the run's
// result sums them (data_quality), and a warn log line names the non-zero ones.

import { REPLAY_QUALITY, type ReplayQuality, type ReplayQualityField } from '../../wire/data-quality.ts';

export { REPLAY_QUALITY, type ReplayQuality, type ReplayQualityField };

export const REPLAY_QUALITY_FIELDS = Object.keys(REPLAY_QUALITY) as ReplayQualityField[];

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
const NOTABLE: readonly ReplayQualityField[] = ['unknown_cancels', 'unknown_modifies', 'unknown_fills', 'time_clamped', 'crossed_ns', 'phase_changes'];

/** The non-zero counters, "name=value", when a notable one is non-zero; else null (no warning). */
export function qualityWarning(q: ReplayQuality): string | null {
  if (!NOTABLE.some((f) => q[f] !== 0)) return null;
  return REPLAY_QUALITY_FIELDS.filter((f) => q[f] !== 0)
    .map((f) => `${f}=${q[f]}`)
    .join(' ');
}

/** One warn line per session of a result whose notable counters are non-zero, naming them. */
export function warnDataQuality(
  warn: (obj: object, msg: string) => void,
  sessions: readonly { date: string; data_quality: ReplayQuality | null }[],
  context: object = {},
): void {
  for (const s of sessions) {
    const w = s.data_quality && qualityWarning(s.data_quality);
    if (w) warn({ ...context, date: s.date, data_quality: s.data_quality }, `recorded data of ${s.date}: ${w}`);
  }
}

/** The non-zero counters for people: "name value, ..." (crossed time in seconds), or "clean". */
export function qualityLine(q: ReplayQuality): string {
  const parts = REPLAY_QUALITY_FIELDS.filter((f) => q[f] !== 0).map((f) =>
    f === 'crossed_ns' ? `crossed/locked ${(q[f] / 1e9).toFixed(1)} s` : `${f.replace(/_/g, ' ')} ${q[f]}`,
  );
  return parts.length ? parts.join(', ') : 'nothing recorded';
}
