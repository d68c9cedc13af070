// Linux timer slack of the simulation's worker threads. The kernel may fire a thread's timed
// wait up to its timer slack late (50 µs by default) to batch wake-ups, and every Atomics.wait
// with a timeout in the workers is such a wait: on the shared 2-core machine a 100 µs wait
// overshot by a median 75-85 µs with the default slack and 25-30 µs with 1 ns. Node has no
// prctl(PR_SET_TIMERSLACK); the same per-thread value is the file /proc/TID/timerslack_ns
// (proc(5), Linux >= 4.6), which a thread may write for itself without privileges. Each worker
// sets its own at start; the main thread (HTTP, timers) keeps the default.

import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';

/** Timer slack of the simulation's worker threads, ns (1: fire timed waits when due). */
export const WORKER_TIMER_SLACK_NS = 1;

/** The calling thread's kernel id (/proc/thread-self -> PID/task/TID), or null if not Linux. */
function threadId(): string | null {
  try {
    return readlinkSync('/proc/thread-self').split('/').pop() ?? null;
  } catch {
    return null;
  }
}

/**
 * Sets the calling thread's timer slack; returns false where it cannot (no /proc, not Linux),
 * in which case timed waits keep the kernel's default precision.
 */
export function setThreadTimerSlack(ns: number): boolean {
  const tid = threadId();
  if (tid === null) return false;
  try {
    writeFileSync(`/proc/${tid}/timerslack_ns`, String(ns));
    return true;
  } catch {
    return false;
  }
}

/** Timer slack of thread `tid` (default: the calling thread), ns; null where it cannot be read. */
export function threadTimerSlackNs(tid: string | null = threadId()): number | null {
  if (tid === null) return null;
  try {
    return Number(readFileSync(`/proc/${tid}/timerslack_ns`, 'utf8'));
  } catch {
    return null;
  }
}
