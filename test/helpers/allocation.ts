// The allocation meter of the no-allocation tests: garbage collections (from perf_hooks' gc
// entries) and heap growth while a loop runs. It never looks at how long the loop took.
import { execFile } from 'node:child_process';
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';

/** A real gc() without --expose-gc on the command line, made only when a test asks for one. */
let gc: ((o?: { type: 'minor' | 'major' }) => void) | null = null;
function collect(type: 'minor' | 'major'): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as (o?: { type: 'minor' | 'major' }) => void;
  }
  gc({ type });
}

export interface Allocation {
  /** Garbage collections of any kind that started during the loop. */
  gcs: number;
  /** Of those, scavenges (minor GCs): what allocating in the loop causes first. */
  scavenges: number;
  newSpaceGrowth: number;
  heapGrowth: number;
}

/**
 * True under `npm run coverage` (c8 sets NODE_V8_COVERAGE): V8's precise coverage keeps a counter
 * per block, which changes what the optimiser does, so a loop that allocates nothing in a normal
 * run may allocate there. An in-process no-allocation check is skipped then; `npm run test:unit`
 * runs it.
 */
export const UNDER_COVERAGE = process.env.NODE_V8_COVERAGE !== undefined;

const newSpaceUsed = (): number => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_used_size;

/**
 * Runs `fn` up to `attempts` times (default 1: only for a loop that may run again) and reports the attempt that allocated least,
 * stopping at the first with no GC. Why more than once: on a loaded machine V8's concurrent
 * optimising compiler can be starved, so the optimised code may not be installed when the measured
 * loop starts, and the interpreter boxes doubles. Code that really allocates does so in every attempt.
 */
export async function measureAllocation(fn: () => void, opts: { fullGcFirst?: boolean; scavengeFirst?: boolean; attempts?: number } = {}): Promise<Allocation> {
  let best: Allocation | null = null;
  for (let i = 0; i < (opts.attempts ?? 1); i++) {
    const a = await measureOnce(fn, opts);
    if (!best || a.gcs < best.gcs || (a.gcs === best.gcs && a.newSpaceGrowth < best.newSpaceGrowth)) best = a;
    if (a.gcs === 0) break;
  }
  return best!;
}

/**
 * Runs `fn` once and reports what it allocated. `fullGcFirst` finishes any GC work left by earlier
 * tests first; it is an option because a full GC may also drop type feedback, and the code that
 * is then re-optimised during `fn` shows as heap growth. `scavengeFirst` only empties the new
 * space (a minor GC), so `fn` starts with all of it free and keeps its optimised code.
 */
async function measureOnce(fn: () => void, opts: { fullGcFirst?: boolean; scavengeFirst?: boolean }): Promise<Allocation> {
  const entries: { start: number; kind: number | undefined }[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) entries.push({ start: e.startTime, kind: (e as unknown as { detail?: { kind?: number } }).detail?.kind });
  });
  obs.observe({ entryTypes: ['gc'] });
  if (opts.fullGcFirst) collect('major');
  else if (opts.scavengeFirst) collect('minor');
  const ns0 = newSpaceUsed();
  const h0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  fn();
  const t1 = performance.now();
  const ns1 = newSpaceUsed();
  const h1 = process.memoryUsage().heapUsed;
  await new Promise((r) => setTimeout(r, 50)); // let the observer deliver the gc entries
  obs.disconnect();
  const during = entries.filter((e) => e.start >= t0 && e.start <= t1);
  return {
    gcs: during.length,
    scavenges: during.filter((e) => e.kind === constants.NODE_PERFORMANCE_GC_MINOR).length,
    newSpaceGrowth: ns1 - ns0,
    heapGrowth: h1 - h0,
  };
}

/**
 * Runs a probe script (a .ts file run with tsx, its path from the project root) in a fresh Node process and returns the JSON of
 * its last output line. Allocation probes measure there when the suite's shared process would
 * change what they measure: other test files' calls leave type feedback that makes the shared
 * classes' optimised code more general than in the thread the code runs in.
 */
export async function runProbe<T>(script: string, args: string[] = []): Promise<T> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: new URL('../..', import.meta.url),
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}
