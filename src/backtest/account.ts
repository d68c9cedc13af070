// A multi-day run is one account (docs/metrics.md): each session starts flat, but the account's
// equity, its running peak and the kill switch carry from one session to the next; the daily
// loss limit restarts each session; once the kill switch trips, no later session trades.
//
// Sessions still run in parallel. Every session first runs speculatively with the carry of a
// fresh account (the run's initial capital, no peak). A session computes everything in P&L since
// its open (its portfolio starts at zero), so its fills, P&L and alerts depend on the carry only
// through the drawdown check. Walking the sessions in date order with the true carry, a
// speculative result is kept when its drawdown path shows the check crossing no threshold (the
// warning at half the limit, or the limit) with either carry: then the session would have done
// exactly the same with the true one. Otherwise it runs again with the true carry. Either way
// the kept result is the one a strictly sequential run computes, byte for byte.
//
// A session after the kill switch tripped does not trade, but its market still runs, alone
// (SessionSpec.marketOnly), for its open and close mids: the market is the same whether we
// trade or not.

import { DrawdownPath, WARN_FRACTION } from '../risk/risk-manager.ts';
import type { AccountCarry, SessionResult, SessionSpec } from './session-spec.ts';

/** One session of the account: its result, or null when a kill switch before it stopped trading. */
export interface AccountSession {
  date: string;
  carry: AccountCarry;
  result: SessionResult | null;
  /** The speculative result did not hold for the true carry and the session ran again. */
  rerun: boolean;
  /** A session not traded: its market's first and last two-sided mid in ticks (NaN: none), or null when its market was not run. */
  market?: { openMidTicks: number; closeMidTicks: number } | null;
}

export type SessionRunner = (spec: SessionSpec, signal?: AbortSignal) => Promise<SessionResult>;

/** The carry after a session: equity at its close, and the peak its drawdown check reached. */
export function carryAfter(carry: AccountCarry, r: SessionResult): AccountCarry {
  const last = r.pnlValues.length ? r.pnlValues[r.pnlValues.length - 1] : 0;
  const path = r.drawdownPath;
  const top = path.highs.length ? carry.capital + path.highs[path.highs.length - 1] : -Infinity;
  const before = carry.peak ?? -Infinity;
  const peak = top > before ? top : before;
  return { capital: carry.capital + last, peak: peak === -Infinity ? null : peak };
}

function sameCarry(a: AccountCarry, b: AccountCarry): boolean {
  return Object.is(a.capital, b.capital) && Object.is(a.peak, b.peak);
}

/** Largest drawdown the session's check would have seen had it run with `carry`. */
function replayedDrawdown(r: SessionResult, carry: AccountCarry): number {
  return DrawdownPath.from(r.drawdownPath).maxDrawdown(carry.capital, carry.peak ?? -Infinity);
}

/**
 * The largest drawdown of the session's equity checks for the account with `carry`: the session's
 * own when it ran with that carry, else its path replayed (a kept speculative result's path never
 * overflowed: holdsFor).
 */
export function sessionMaxDrawdown(r: SessionResult, carry: AccountCarry): number {
  return sameCarry(r.carryIn, carry) ? r.maxDrawdownFrac : replayedDrawdown(r, carry);
}

/** Whether the session, run with r.carryIn, did exactly what it would have done with `carry`. */
export function holdsFor(r: SessionResult, carry: AccountCarry, maxDrawdownFrac: number): boolean {
  if (sameCarry(r.carryIn, carry)) return true;
  if (r.drawdownPath.overflowed) return false;
  const warn = WARN_FRACTION * maxDrawdownFrac;
  return replayedDrawdown(r, r.carryIn) < warn && replayedDrawdown(r, carry) < warn;
}

/**
 * Runs the sessions of one account. `parallel`: start every session at once with the carry in
 * its spec, then keep or re-run each in date order; otherwise run them one after another with
 * the true carry (the reference the parallel path must equal). `onSession`: each session once
 * its kept result is final, in date order (a CLI streams its fills from there).
 */
export async function runAccount(
  specs: SessionSpec[],
  run: SessionRunner,
  parallel: boolean,
  onSession?: (s: AccountSession) => void,
  marketOfUntraded = true,
): Promise<AccountSession[]> {
  const out: AccountSession[] = [];
  if (specs.length === 0) return out;
  const stop = new AbortController();
  const early = parallel ? specs.map((s) => run(s, stop.signal)) : null;
  // A speculative run abandoned after a kill switch must not surface as an unhandled rejection.
  early?.forEach((p) => p.catch(() => undefined));
  let carry: AccountCarry = { ...specs[0].carry };
  let killed = false;
  // The markets of the sessions after a kill switch: on a parallel executor all started at once.
  let markets: Map<number, Promise<SessionResult>> | null = null;
  const marketOf = (k: number) => run({ ...specs[k], carry, marketOnly: true });
  try {
    for (let k = 0; k < specs.length; k++) {
      if (killed) {
        if (markets === null && parallel && marketOfUntraded) {
          markets = new Map(specs.slice(k).map((_, i) => [k + i, marketOf(k + i)]));
          for (const p of markets.values()) p.catch(() => undefined); // awaited in order below
        }
        const m = marketOfUntraded ? await (markets?.get(k) ?? marketOf(k)) : null;
        out.push({ date: specs[k].date, carry, result: null, rerun: false, market: m && { openMidTicks: m.openMidTicks, closeMidTicks: m.finalMidTicks } });
        onSession?.(out[k]);
        continue;
      }
      const spec = { ...specs[k], carry };
      let r = early ? await early[k] : await run(spec);
      const rerun = !holdsFor(r, carry, spec.limits.maxDrawdownFrac);
      if (rerun) r = await run(spec);
      out.push({ date: spec.date, carry, result: r, rerun });
      onSession?.(out[k]);
      carry = carryAfter(carry, r);
      killed = r.killSwitch.tripped;
      if (killed) stop.abort();
    }
  } finally {
    stop.abort();
  }
  return out;
}
