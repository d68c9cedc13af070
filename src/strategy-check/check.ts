// The strategy check (--strategy-check, docs/strategy-check.md): runs one session of a strategy
// several ways over the same recorded market events and compares the results' SHA-256 hashes.
// - Determinism: three times in one thread, then once in a fresh thread. State kept between sessions
//   (module-level variables) shows as a second session unlike the first; anything else that
//   varies between runs (Math.random, the clock) as results that all differ.
// - The quiet path: with the engine fed the touch (quiet runs taken) and handed every event.
//   A standing promise whose bounds() outlast what stands() keeps shows as a difference.
// - The promise: kept, and removed (onMarket and quote() at every event), both with the quiet
//   path off where it was on (so that this compares stands() and bands() alone). A promise that
//   says the decision stands when quote() would change it shows as a difference.
// - Clock and random calls inside callbacks, counted (check-run.ts), and what the session costs:
//   ns per event, GCs, bytes allocated per event, the share of events on the quiet path
//   (measured and reported, never judged: they depend on the machine).

import { Worker } from 'node:worker_threads';
import { EV_STRIDE } from '../core/events.ts';
import { workerPath } from '../core/paths.ts';
import { RecordRing } from '../core/ring.ts';
import { recordMarket } from '../market/replay-source.ts';
import type { SessionSpec } from '../backtest/session-spec.ts';
import { MarketGenerator } from '../market/generator.ts';
import { contractForRoot } from '../market/instruments.ts';
import { CLOCK_CALLS, type CheckJob, type CheckReply, type CheckRun } from './check-run.ts';

export type Status = 'pass' | 'fail' | 'n/a' | 'inconclusive';

export interface Verdict {
  check: 'determinism' | 'quiet path' | 'promise' | 'clock and random';
  status: Status;
  detail: string;
}

export interface Cost {
  /** Of the last session as defined in the first thread (the code optimised by the ones before). */
  events: number;
  quietShare: number;
  wallNsPerEvent: number;
  cpuNsPerEvent: number;
  gcs: number;
  allocatedBytesPerEvent: number;
}

export interface CheckReport {
  strategy: SessionSpec['strategy'];
  session: { root: string; date: string; seed: number; events: number };
  /** The sessions of the first thread and of the fresh one, in the order they ran. */
  runs: { thread: CheckRun[]; fresh: CheckRun[] };
  /** The strategy failed to load or threw: nothing else is judged. */
  error: string | null;
  verdicts: Verdict[];
  cost: Cost | null;
  /** No verdict failed (n/a passes) and nothing threw. */
  pass: boolean;
}

/** The first `maxEvents` market events of the session, in shared memory (one recording for every run and thread). */
export function recordSessionEvents(spec: SessionSpec, maxEvents: number): { events: Float64Array; count: number } {
  const gen = new MarketGenerator(contractForRoot(spec.root), spec.date, spec.seed, {
    sessionStartNs: spec.sessionStartNs,
    sessionEndNs: spec.sessionEndNs,
    activity: spec.activity,
  });
  const rec = recordMarket(gen, RecordRing.allocate(EV_STRIDE, 1 << 16, false), maxEvents);
  const events = new Float64Array(new SharedArrayBuffer(rec.count * EV_STRIDE * 8));
  events.set(rec.events.subarray(0, rec.count * EV_STRIDE));
  return { events, count: rec.count };
}

/** Runs a job in a new worker thread (dist/workers/strategy-check.js) and returns its reply. */
export function inFreshThread(job: CheckJob): Promise<CheckReply> {
  return new Promise((resolve, reject) => {
    const w = new Worker(workerPath('strategy-check'), { workerData: job });
    let reply: CheckReply | null = null;
    w.once('message', (m: CheckReply) => (reply = m));
    w.once('error', reject);
    w.once('exit', (code) => (reply ? resolve(reply) : reject(new Error(`the strategy check's thread exited (code ${code}) without a result`))));
  });
}

export async function checkStrategy(spec: SessionSpec, maxEvents: number): Promise<CheckReport> {
  const { events, count } = recordSessionEvents(spec, maxEvents);
  const job = (plan: CheckJob['plan']): CheckJob => ({ spec, events, count, plan });
  const first = await inFreshThread(job({ kind: 'check' }));
  const fresh = first.error === null ? await inFreshThread(job({ kind: 'repeat', warmup: 0, times: 1 })) : { runs: [], error: null };
  const error = first.error ?? fresh.error;
  const thread = first.runs;
  const verdicts = error === null ? judge(thread, fresh.runs) : [];
  const w = thread.filter((r) => r.mode === 'as-defined').at(-1)!;
  return {
    strategy: spec.strategy,
    session: { root: spec.root, date: spec.date, seed: spec.seed, events: count },
    runs: { thread, fresh: fresh.runs },
    error,
    verdicts,
    cost:
      error === null
        ? {
            events: w.events,
            quietShare: w.quietEvents / w.events,
            wallNsPerEvent: w.wallNs / w.events,
            cpuNsPerEvent: w.cpuNs / w.events,
            gcs: w.gcs,
            allocatedBytesPerEvent: w.allocatedBytes / w.events,
          }
        : null,
    pass: error === null && verdicts.every((v) => v.status === 'pass' || v.status === 'n/a'),
  };
}

const short = (h: string) => h.slice(0, 16);
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

function judge(thread: CheckRun[], fresh: CheckRun[]): Verdict[] {
  const same = thread.filter((r) => r.mode === 'as-defined');
  const a = same[0];
  const c = fresh[0];
  const out: Verdict[] = [];
  const hashes = [...same, c].map((r) => r.hash);
  const reproducible = hashes.every((h) => h === a.hash);
  let detail: string;
  if (reproducible) detail = `${hashes.length} sessions, ${same.length} in one thread and 1 in a fresh thread: the same result (sha256 ${short(a.hash)})`;
  else if (same[1].hash !== a.hash && c.hash === a.hash)
    detail =
      `the second session in one thread differs from the first, and a fresh thread repeats the first: the strategy keeps state from ` +
      `one session to the next (module-level variables, or state on the definition object); keep it in what create() returns`;
  else if (same.every((r) => r.hash === a.hash))
    detail = `a fresh thread's session differs from the ${same.length} in the first thread: the result depends on something outside the session`;
  else
    detail =
      `the sessions differ (sha256 ${hashes.map(short).join(', ')}): the results are not reproducible (Math.random, the clock, or ` +
      `state kept between sessions)`;
  out.push({ check: 'determinism', status: reproducible ? 'pass' : 'fail', detail });

  // r against `base`: the run that differs from it in that one respect.
  const vs = (r: CheckRun | undefined, base: CheckRun, none: string, same: string, differs: string): { status: Status; detail: string } => {
    if (!r) return { status: 'n/a', detail: none };
    if (!reproducible) return { status: 'inconclusive', detail: 'not judged: the sessions are not reproducible (see determinism)' };
    return r.hash === base.hash
      ? { status: 'pass', detail: same }
      : { status: 'fail', detail: `${differs} (sha256 ${short(r.hash)} against ${short(base.hash)})` };
  };
  const quietOff = thread.find((r) => r.mode === 'quiet-off');
  out.push({
    check: 'quiet path',
    ...vs(
      quietOff,
      a,
      !a.promise
        ? 'the strategy makes no standing promise: no event is taken on the quiet path'
        : 'the engine is handed every event for this strategy (it reads features beyond the volatility, or the book below the touch, or the ' +
            'model runs): no quiet path',
      `on (${pct(a.quietEvents / a.events)} of events taken quietly) and off: the same result`,
      `with the quiet path on (${pct(a.quietEvents / a.events)} of events taken quietly) the result differs from the engine handed every ` +
        `event: bounds() let the engine skip events that changed what the strategy reads or decides (its bounds outlast its decision)`,
    ),
  });
  const promiseOff = thread.find((r) => r.mode === 'promise-off');
  out.push({
    check: 'promise',
    ...vs(
      promiseOff,
      quietOff ?? a,
      a.promise ? 'no run without the promise' : 'the strategy makes no standing promise: it is asked at every event it wakes for',
      `kept, and removed (onMarket and quote() at every event): the same result${quietOff ? ', both with the quiet path off' : ''}`,
      'with the promise removed (onMarket and quote() at every event) the result differs: its stands() or bands() said the decision stood ' +
        'when quote() would have changed it (or quote() or onMarket changes state with every call)',
    ),
  });

  const totals = CLOCK_CALLS.map((k) => [k, [...thread, ...fresh].reduce((n, r) => n + r.clockCalls[k], 0)] as const).filter(([, n]) => n > 0);
  out.push({
    check: 'clock and random',
    status: totals.length ? 'fail' : 'pass',
    detail: totals.length
      ? `called inside callbacks: ${totals.map(([k, n]) => `${k} ${n.toLocaleString('en-US')} times`).join(', ')}, over ` +
        `${thread.length + fresh.length} sessions; use ctx.random() (seeded) and ctx.now / ctx.exchTs (the session's clock)`
      : 'no Math.random, Date.now or performance.now call inside a callback',
  });
  return out;
}
