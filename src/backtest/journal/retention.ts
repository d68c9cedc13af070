// Retention of the journal: `[storage]` max_runs, max_bytes and max_age_days. The oldest finished
// runs go first; a running run is never deleted (it is at most a few KiB and ends soon).

import type { BacktestIndexEntry } from './record.ts';

export interface RetentionLimits {
  maxRuns: number;
  maxBytes: number;
  maxAgeMs: number;
}

/** Ids to delete, oldest first, so the rest fits the limits (as far as finished runs allow). */
export function retentionVictims(entries: Iterable<BacktestIndexEntry>, count: number, bytes: number, limits: RetentionLimits, now: number): string[] {
  const victims: string[] = [];
  const oldest = now - limits.maxAgeMs;
  for (const e of entries) {
    const tooOld = Date.parse(e.started_at) < oldest;
    if (!tooOld && count <= limits.maxRuns && bytes <= limits.maxBytes) break;
    if (e.status === 'running') continue;
    victims.push(e.id);
    count--;
    bytes -= e.bytes;
  }
  return victims;
}
