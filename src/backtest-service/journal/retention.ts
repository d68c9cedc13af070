// Retention of the journal: `[storage]` max_runs, max_bytes and max_age_days. The oldest finished
// runs go first (the backtest journal's and the sweeps'); a running run is never deleted (it is at most a few KiB and ends soon).

/** What retention reads of a journaled run (a backtest or a sweep). */
export interface RetainedRun {
  id: string;
  status: string;
  started_at: string;
  bytes: number;
}

export interface RetentionLimits {
  maxRuns: number;
  maxBytes: number;
  maxAgeMs: number;
}

/** Ids to delete, oldest first, so the rest fits the limits (as far as finished runs allow). */
export function retentionVictims(entries: Iterable<RetainedRun>, count: number, bytes: number, limits: RetentionLimits, now: number): string[] {
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
