// Waiting in tests: every wait polls for a condition (never a fixed delay standing in for one)
// and has a deadline generous enough for a loaded 2-core machine, yet finite.
import type { ChildProcess } from 'node:child_process';
import * as assert from 'uvu/assert';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Default deadline of a wait: tens of seconds, so two CPU hogs beside the suite do not fail it. */
export const WAIT_MS = 30_000;

export interface UntilOptions {
  /** Give up after this long (default WAIT_MS). */
  timeoutMs?: number;
  /** Poll interval (default 25 ms). */
  everyMs?: number;
  /** Fail at once, with `context`, if this process exits while we wait. */
  child?: ChildProcess;
  /** More to print on failure, e.g. a process's recent output. */
  context?: () => string;
}

/**
 * Polls `probe` until it returns something other than null, undefined or false, and returns that.
 * A probe that throws is retried (its last error is reported on timeout), except for a uvu
 * assertion, which is the probe's own verdict and ends the wait.
 */
export async function until<T>(
  what: string,
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  opts: UntilOptions = {},
): Promise<T> {
  const { timeoutMs = WAIT_MS, everyMs = 25, child, context } = opts;
  const more = () => (context ? `\n${context()}` : '');
  const t0 = Date.now();
  let last: unknown = null;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      assert.unreachable(`the process exited (${child.exitCode ?? child.signalCode}) while waiting for ${what}${more()}`);
    }
    try {
      const v = await probe();
      if (v !== null && v !== undefined && v !== false) return v as T;
    } catch (e) {
      if (e instanceof assert.Assertion) throw e;
      last = e;
    }
    if (Date.now() - t0 > timeoutMs) {
      const why = last ? ` (last error: ${last instanceof Error ? last.message : String(last)})` : '';
      assert.unreachable(`timed out after ${timeoutMs} ms waiting for ${what}${why}${more()}`);
    }
    await sleep(everyMs);
  }
}

/** Polls `url` until it answers 200 (a 503 while workers start is expected) and returns that response. */
export function untilOk(url: string, opts: UntilOptions = {}): Promise<Response> {
  return until(
    `${url} to answer 200`,
    async () => {
      const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (r.status === 200) return r;
      throw new Error(`HTTP ${r.status}: ${(await r.text()).slice(0, 500)}`);
    },
    { everyMs: 100, ...opts },
  );
}

/** Awaits `p`, failing with `what` if it has not settled within `ms`; the timer never outlives it. */
export async function within<T>(what: string, p: Promise<T>, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
