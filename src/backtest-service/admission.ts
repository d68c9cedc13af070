// Admission by cost: a run costs its sessions (CME trading days of its range), not 1. The queue
// (running + waiting on the pool) is bounded in sessions, and Retry-After is the queue's estimated
// drain time: remaining sessions x mean seconds per session / pool threads.

export interface AdmissionOptions {
  /** `[backtest] max_queued_sessions`. */
  maxSessions: number;
  poolThreads: number;
  /** `[backtest] session_seconds_estimate`: the mean before the first measurement. */
  defaultSessionSeconds: number;
}

/** Measurements kept for the mean (a moving window: the machine's load changes). */
const WINDOW = 20;
const MAX_RETRY_AFTER_S = 3600;

export class Admission {
  private readonly sessionSeconds: number[] = [];

  constructor(readonly o: AdmissionOptions) {}

  /** Mean thread-seconds one session took (the default until a run has completed). */
  get meanSessionSeconds(): number {
    const s = this.sessionSeconds;
    return s.length ? s.reduce((a, b) => a + b, 0) / s.length : this.o.defaultSessionSeconds;
  }

  /** Whether `sessions` more fit next to `queued` (the config keeps max_queued_sessions >= max_days, so any valid request fits an empty queue). */
  admits(queued: number, sessions: number): boolean {
    return queued + sessions <= this.o.maxSessions;
  }

  /** Seconds until `queued` sessions have drained from the pool, rounded up, in 1..3600. */
  retryAfterSeconds(queued: number): number {
    const s = (queued * this.meanSessionSeconds) / Math.max(1, this.o.poolThreads);
    return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(s)));
  }

  /**
   * Records a completed run: `wallSeconds` for `sessions` sessions. A run's sessions go to the
   * pool at once (run.ts), so it kept min(sessions, threads) threads busy for its wall time. With
   * other runs sharing the pool this overestimates, which errs towards a later retry.
   */
  record(wallSeconds: number, sessions: number): void {
    if (!(wallSeconds > 0) || sessions < 1) return;
    this.sessionSeconds.push((wallSeconds * Math.min(sessions, this.o.poolThreads)) / sessions);
    if (this.sessionSeconds.length > WINDOW) this.sessionSeconds.shift();
  }
}
