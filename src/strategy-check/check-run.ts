// One session of the strategy check (src/strategy-check/check.ts) or of the bench's strategy rows, in
// the thread that calls it: the session over recorded events, with the strategy as defined or
// with one of its fast paths turned off, hashed, timed, and its allocations and GCs counted.
// While it runs, Math.random, Date.now and performance.now are wrapped to count the calls made
// inside a strategy callback (the engine's `callback` field is set then): a backtest strategy
// must read time from ctx and draw random numbers from ctx.random(), or its results vary.

import { createHash } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ReplaySource } from '../market/replay-source.ts';
import { runSession } from '../backtest/session.ts';
import type { SessionResult, SessionSpec } from '../backtest/session-spec.ts';
import { Trader } from '../trading/trader.ts';
import type { Strategy, StrategyContext, StrategyDefinition } from '../strategy/port.ts';

/**
 * - 'as-defined': the strategy as a backtest runs it (fed the touch and taking quiet runs where it can);
 * - 'quiet-off': the engine keeps its own book and is handed every event (no quiet runs), the promise still asked;
 * - 'promise-off': the strategy's standing promise removed and `wakes: 'book'`: onMarket and quote() at every event.
 */
export type RunMode = 'as-defined' | 'quiet-off' | 'promise-off';

export const CLOCK_CALLS = ['Math.random', 'Date.now', 'performance.now'] as const;
export type ClockCalls = Record<(typeof CLOCK_CALLS)[number], number>;

export interface CheckRun {
  mode: RunMode;
  /** SHA-256 of the SessionResult (sessionHash). */
  hash: string;
  events: number;
  /** Events taken on the quiet path (Trader.quietEvents). */
  quietEvents: number;
  fills: number;
  ordersSent: number;
  /** How the engine was fed ('top': the quiet path was open to it). */
  feed: 'top' | 'events';
  /** The strategy object create() returned has a standing promise. */
  promise: boolean;
  /** Wall time and process CPU time (every thread: the caller waits meanwhile) of the session, ns. */
  wallNs: number;
  cpuNs: number;
  /** GCs that ran during the session, and the bytes allocated meanwhile (heap growth between GCs). */
  gcs: number;
  allocatedBytes: number;
  /** Calls made inside strategy callbacks during this session. */
  clockCalls: ClockCalls;
}

/** SHA-256 of a session result as JSON, typed arrays as plain arrays. */
export function sessionHash(r: SessionResult): string {
  const json = JSON.stringify(r, (_k, v) => (v instanceof Float64Array ? Array.from(v) : v));
  return createHash('sha256').update(json).digest('hex');
}

// The engine of the session running in this thread (the probes read its `callback` field).
let engine: Trader | null = null;
const calls: ClockCalls = { 'Math.random': 0, 'Date.now': 0, 'performance.now': 0 };
let probing = false;

/** Wraps Math.random, Date.now and performance.now (once per thread): same values, calls in callbacks counted. */
function installProbes(): void {
  if (probing) return;
  probing = true;
  // No arguments to pass on (a rest parameter would allocate an array per call).
  const count = (name: keyof ClockCalls, f: () => number) => () => {
    if (engine !== null && engine.callback !== null) calls[name]++;
    return f();
  };
  Math.random = count('Math.random', Math.random.bind(Math));
  Date.now = count('Date.now', Date.now.bind(Date));
  performance.now = count('performance.now', performance.now.bind(performance));
}

/**
 * The engine behind a strategy's context. EngineContext keeps it in a private field; only this
 * diagnostic reaches for it (the probes and the quiet count need the engine runSession made).
 */
function engineOf(ctx: StrategyContext): Trader {
  const e = (ctx as unknown as { e: unknown }).e;
  if (!(e instanceof Trader))
    throw new Error('strategy check: the strategy context no longer holds its engine in the field `e` (src/trading/strategy-context.ts): update engineOf');
  return e;
}

/** The same callbacks with no standing promise. */
function withoutPromise(s: Strategy): Strategy {
  const out: { -readonly [K in keyof Strategy]: Strategy[K] } = {};
  if (s.quote) out.quote = (c, q) => s.quote!(c, q);
  if (s.onMarket) out.onMarket = (c) => s.onMarket!(c);
  if (s.onTimer) out.onTimer = (c, id) => s.onTimer!(c, id);
  if (s.onOrder) out.onOrder = (c, ev) => s.onOrder!(c, ev);
  return out;
}

interface Seen {
  engine: Trader | null;
  promise: boolean;
}

/** The definition a run uses: create() notes the engine (and the promise), and the mode's changes. */
function variant(def: StrategyDefinition, mode: RunMode, seen: Seen): StrategyDefinition {
  return {
    ...def,
    wakes: mode === 'promise-off' ? 'book' : def.wakes,
    create(params, ctx) {
      engine = engineOf(ctx);
      seen.engine = engine;
      const s = def.create(params, ctx);
      seen.promise = s?.standing !== undefined;
      return mode === 'promise-off' ? withoutPromise(s) : s;
    },
  };
}

let gc: (() => void) | null = null;
/** A minor GC, so each measured session starts with the new space empty (gc() without --expose-gc on the command line). */
function scavenge(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    const f = vm.runInNewContext('gc') as (o: { type: 'minor' }) => void;
    gc = () => f({ type: 'minor' });
  }
  gc();
}

/**
 * Bytes allocated while the profiler ran: the heap only grows between two GCs, so the growth
 * from each GC's end (or the start) to the next one's start, and to the end, adds up to what was
 * allocated (objects that died young included). Concurrent sweeping can shrink the heap outside a
 * GC: such a stretch counts as zero.
 */
function allocatedBetween(
  start: number,
  end: number,
  stats: { beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } }[],
): number {
  let total = 0;
  let from = start;
  for (const s of stats) {
    total += Math.max(0, s.beforeGC.heapStatistics.usedHeapSize - from);
    from = s.afterGC.heapStatistics.usedHeapSize;
  }
  return total + Math.max(0, end - from);
}

/** One session of `spec` over the first `count` recorded events, with `def` in the given mode. Throws what runSession throws. */
export function runChecked(spec: SessionSpec, def: StrategyDefinition, events: Float64Array, count: number, mode: RunMode): CheckRun {
  installProbes();
  for (const k of CLOCK_CALLS) calls[k] = 0;
  const seen: Seen = { engine: null, promise: false };
  const hooks = {
    source: new ReplaySource(events, count),
    strategyDef: variant(def, mode, seen),
    engineFeed: mode === 'quiet-off' ? ('events' as const) : undefined,
  };
  scavenge();
  const profiler = new v8.GCProfiler();
  profiler.start();
  const h0 = v8.getHeapStatistics().used_heap_size;
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let result: SessionResult;
  try {
    result = runSession(spec, hooks);
  } finally {
    engine = null;
  }
  const wallNs = Number(process.hrtime.bigint() - t0);
  const cpu = process.cpuUsage(c0);
  const h1 = v8.getHeapStatistics().used_heap_size;
  const gcStats = (profiler.stop() as unknown as { statistics: Parameters<typeof allocatedBetween>[2] }).statistics;
  const e = seen.engine!;
  return {
    mode,
    hash: sessionHash(result),
    events: result.eventsProcessed,
    quietEvents: e.quietEvents,
    fills: result.fills,
    ordersSent: result.ordersSent,
    feed: e.feed,
    promise: seen.promise,
    wallNs,
    cpuNs: (cpu.user + cpu.system) * 1000,
    gcs: gcStats.length,
    allocatedBytes: allocatedBetween(h0, h1, gcStats),
    clockCalls: { ...calls },
  };
}

/**
 * What a check thread runs: the check's sessions, or the session as defined `warmup` times and
 * then, after a pause for the concurrent compiler, `times` times (a fresh thread's run, the bench's rounds).
 */
export type CheckPlan = { kind: 'check' } | { kind: 'repeat'; warmup: number; times: number };

export interface CheckJob {
  spec: SessionSpec;
  /** The recorded session (EV_STRIDE doubles per event), shared with the thread that recorded it. */
  events: Float64Array;
  count: number;
  plan: CheckPlan;
}

/** The runs made, and the error that stopped them (null: all ran). */
export interface CheckReply {
  runs: CheckRun[];
  error: string | null;
}

/**
 * The check's sessions in this thread: as defined three times (a second session in the same
 * thread shows state kept between sessions; the third, with the code optimised by the first two,
 * is the one whose cost is reported), then, when the strategy makes a standing promise, with the
 * quiet path off (when the engine was fed the touch, the quiet path's condition) and with the promise off.
 */
export async function runJob(job: CheckJob, def: StrategyDefinition): Promise<CheckReply> {
  const runs: CheckRun[] = [];
  const run = (mode: RunMode) => runs.push(runChecked(job.spec, def, job.events, job.count, mode));
  try {
    const { warmup, times } = job.plan.kind === 'repeat' ? job.plan : { warmup: 2, times: 1 };
    for (let i = 0; i < warmup; i++) run('as-defined');
    if (warmup > 0) await new Promise((r) => setTimeout(r, 100)); // let the concurrent compiler install its code
    for (let i = 0; i < times; i++) run('as-defined');
    if (job.plan.kind === 'check') {
      if (runs[0].feed === 'top' && runs[0].promise) run('quiet-off');
      if (runs[0].promise) run('promise-off');
    }
  } catch (e) {
    return { runs, error: e instanceof Error ? e.message : String(e) };
  }
  return { runs, error: null };
}
