// Allocation in the hot loop: a million market events through the full pipeline (runSession over
// the recorded session: book, features, strategy, risk, portfolio, exchange), after two warm-up
// runs so the code measured is the optimised steady state. The loop's boundaries are marked from
// inside it (by the market source: its first generate() call and the moment it reports done), so
// the session's set-up and result assembly are outside. Reported: V8 heap used at both marks,
// and every garbage collection (perf_hooks 'gc' entries) whose start falls between them.
// Target: zero GCs and no heap growth.

import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { ReplaySource } from '../src/market/replay-source.ts';
import { runSession } from '../src/backtest/session.ts';
import type { SessionSpec } from '../src/backtest/session-spec.ts';
import type { MarketSource } from '../src/market/source.ts';
import type { RecordRing } from '../src/core/ring.ts';
import type { Recording } from './stream.ts';
import { allocationSitesWhile, type AllocationSite } from './profile.ts';
import { loadavg, sleep } from './util.ts';

export interface AllocationRun {
  events: number;
  heapUsedBefore: number;
  heapUsedAfter: number;
  heapGrowthBytes: number;
  bytesPerEvent: number;
  gcCount: number;
  gcKinds: Record<string, number>;
  gcPauseMs: number;
  loopMs: number;
  /** Where the bytes come from (sampling heap profiler over a second, identical run). */
  sites: AllocationSite[];
  sampledBytes: number;
}

export interface AllocationBench {
  withoutModel: AllocationRun;
  withModel: AllocationRun;
  method: string;
  loadavg: number[];
}

const GC_KIND: Record<number, string> = {
  1: 'minor (scavenge)',
  2: 'major (mark-compact)',
  4: 'incremental marking',
  8: 'weak callbacks',
  16: 'minor mark-sweep',
};

/** A MarketSource that marks when the driver's loop starts and when the market runs out. */
class MarkingSource implements MarketSource {
  t0 = 0;
  t1 = 0;
  heap0 = 0;
  heap1 = 0;
  constructor(private readonly inner: ReplaySource) {}
  get done(): boolean {
    const d = this.inner.done;
    if (d && this.t1 === 0) {
      this.heap1 = process.memoryUsage().heapUsed;
      this.t1 = performance.now();
    }
    return d;
  }
  generate(ring: RecordRing, maxEvents: number): number {
    if (this.t0 === 0) {
      this.heap0 = process.memoryUsage().heapUsed;
      this.t0 = performance.now();
    }
    return this.inner.generate(ring, maxEvents);
  }
}

async function measure(spec: SessionSpec, rec: Recording, events: number): Promise<AllocationRun> {
  const n = Math.min(events, rec.count);
  // Warm-up over the same events, twice, through the same source class (a new class at the
  // driver's call site would deoptimise it at the start of the measured loop): a path first
  // taken late in the events deoptimises the code, which boxes doubles until it is optimised
  // again. Then a scavenge empties the new space, not a full GC: a full GC may drop type
  // feedback and optimised code, and the measured loop would run re-optimisation, not the
  // steady state.
  for (let i = 0; i < 2; i++) runSession(spec, { source: new MarkingSource(new ReplaySource(rec.events, n)) });
  (globalThis as { gc?: (o?: { type: 'minor' | 'major' }) => void }).gc?.({ type: 'minor' });
  await sleep(50);
  const entries: PerformanceEntry[] = [];
  const obs = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  obs.observe({ entryTypes: ['gc'] });
  const src = new MarkingSource(new ReplaySource(rec.events, n));
  const r = runSession(spec, { source: src });
  await sleep(100); // gc entries are delivered asynchronously
  obs.disconnect();
  const inLoop = entries.filter((e) => e.startTime >= src.t0 && e.startTime <= src.t1);
  // The same run again under the sampling heap profiler: which functions allocate.
  const heap = await allocationSitesWhile(() => runSession(spec, { source: new MarkingSource(new ReplaySource(rec.events, n)) }));
  const kinds: Record<string, number> = {};
  for (const e of inLoop) {
    const k = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0;
    const name = GC_KIND[k] ?? `kind ${k}`;
    kinds[name] = (kinds[name] ?? 0) + 1;
  }
  return {
    events: r.eventsProcessed,
    heapUsedBefore: src.heap0,
    heapUsedAfter: src.heap1,
    heapGrowthBytes: src.heap1 - src.heap0,
    bytesPerEvent: (src.heap1 - src.heap0) / r.eventsProcessed,
    gcCount: inLoop.length,
    gcKinds: kinds,
    gcPauseMs: inLoop.reduce((s, e) => s + e.duration, 0),
    loopMs: src.t1 - src.t0,
    sites: heap.sites,
    sampledBytes: heap.sampledBytes,
  };
}

export async function benchAllocation(spec: SessionSpec, specML: SessionSpec, rec: Recording, o: { events: number }): Promise<AllocationBench> {
  return {
    withoutModel: await measure(spec, rec, o.events),
    withModel: await measure(specML, rec, o.events),
    method:
      'runSession over the recorded session after two warm-up runs over the same events and a scavenge; the loop is marked from its market source (first generate(), then done); ' +
      'heapUsed at both marks; perf_hooks gc entries starting between them; allocation sites from a second identical run under ' +
      'the sampling heap profiler (whole session: set-up and result assembly included)',
    loadavg: loadavg(),
  };
}
