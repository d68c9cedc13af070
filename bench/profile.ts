// In-process V8 CPU sampling (the inspector's Profiler domain, the same sampler as --cpu-prof)
// around a piece of work, summarised as self time per function and, for the hottest functions,
// per source line of the bundle (mapped back to src/ through the bundle's source map when there
// is one). This is how the report says where the time goes.

import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface HotFunction {
  fn: string;
  where: string;
  selfPct: number;
  totalPct: number;
  lines: { where: string; pct: number }[];
}

export interface ProfileSummary {
  samplingIntervalUs: number;
  sampledMs: number;
  /** By self time (where the CPU actually is). */
  top: HotFunction[];
  /** By inclusive time (which layer it is in): function, where, % of the sampled time. */
  topInclusive: { fn: string; where: string; totalPct: number }[];
}

/** Runs `work` under the sampling profiler; returns its result and the summary. */
export async function profileWhile<T>(work: () => T, o: { intervalUs?: number; top?: number } = {}): Promise<{ result: T; profile: ProfileSummary }> {
  const s = new Session();
  s.connect();
  try {
    await s.post('Profiler.enable');
    await s.post('Profiler.setSamplingInterval', { interval: o.intervalUs ?? 200 });
    await s.post('Profiler.start');
    // Run the work from a fresh macrotask, not inside the inspector's dispatch of the start
    // message (whose native frame would otherwise take the blame for unattributed samples).
    const result = await new Promise<T>((resolve, reject) =>
      setImmediate(() => {
        try {
          resolve(work());
        } catch (e) {
          reject(e);
        }
      }),
    );
    const { profile } = (await s.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    return { result, profile: summarize(profile, o.intervalUs ?? 200, o.top ?? 12) };
  } finally {
    s.disconnect();
  }
}

// ---- source positions: bundle line -> original file:line, through the bundle's source map ----

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

interface LineMap {
  /** Per generated line (0-based): the original source index and line of its first segment. */
  lookup(line: number): string | null;
}

const maps = new Map<string, LineMap | null>();

function lineMap(url: string): LineMap | null {
  if (maps.has(url)) return maps.get(url)!;
  let m: LineMap | null = null;
  try {
    const file = url.startsWith('file:') ? fileURLToPath(url) : url;
    const raw = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[]; mappings: string };
    const perLine: (string | null)[] = [];
    let src = 0,
      oline = 0;
    for (const lineText of raw.mappings.split(';')) {
      let first: string | null = null;
      for (const seg of lineText.split(',')) {
        if (!seg) continue;
        const v: number[] = [];
        let shift = 0,
          value = 0;
        for (const ch of seg) {
          const d = B64.indexOf(ch);
          value += (d & 31) << shift;
          if (d & 32) shift += 5;
          else {
            v.push(value & 1 ? -(value >>> 1) : value >>> 1);
            value = 0;
            shift = 0;
          }
        }
        if (v.length >= 4) {
          src += v[1];
          oline += v[2];
          if (first === null) first = `${raw.sources[src].replace(/^(\.\.\/)+/, '')}:${oline + 1}`;
        }
      }
      perLine.push(first);
    }
    m = { lookup: (line) => perLine[line] ?? null };
  } catch {
    m = null;
  }
  maps.set(url, m);
  return m;
}

function where(url: string, line0: number): string {
  const m = url ? lineMap(url) : null;
  const mapped = m?.lookup(line0) ?? null;
  if (mapped) return mapped;
  return url ? `${url.split('/').pop()}:${line0 + 1}` : '(native)';
}

const SKIP = new Set(['(idle)', '(program)', '(root)']);

/** Summary of a .cpuprofile file (node --cpu-prof), e.g. of a child process. */
export function summarizeProfileFile(path: string, intervalUs: number, top = 12): ProfileSummary {
  return summarize(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile, intervalUs, top);
}

function summarize(p: CpuProfile, intervalUs: number, top: number): ProfileSummary {
  const byId = new Map<number, ProfileNode>();
  for (const n of p.nodes) byId.set(n.id, n);
  const selfUs = new Map<number, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] > 0 ? p.timeDeltas[i] : 0;
    selfUs.set(p.samples[i], (selfUs.get(p.samples[i]) ?? 0) + dt);
    total += dt;
  }
  // Idle and profiler bookkeeping are not the work's time: '(program)' is V8 outside JS, and the
  // native 'dispatch' is the inspector handling Profiler.start/stop (it builds the profile).
  const skipped = (n: ProfileNode) => SKIP.has(n.callFrame.functionName) || (n.callFrame.functionName === 'dispatch' && n.callFrame.url === '');
  for (const n of p.nodes) if (skipped(n)) total -= selfUs.get(n.id) ?? 0;
  const key = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'}@${n.callFrame.url}:${n.callFrame.lineNumber}`;
  const agg = new Map<string, { node: ProfileNode; self: number; total: number; lines: Map<number, number> }>();
  // Inclusive time: a node's self time plus its subtree's, counted once per function per stack.
  const inclusive = (id: number, onStack: Set<string>): number => {
    const n = byId.get(id)!;
    let t = selfUs.get(id) ?? 0;
    const k = key(n);
    const first = !onStack.has(k);
    if (first) onStack.add(k);
    for (const c of n.children ?? []) t += inclusive(c, onStack);
    if (first) onStack.delete(k);
    if (!skipped(n)) {
      let a = agg.get(k);
      if (!a) agg.set(k, (a = { node: n, self: 0, total: 0, lines: new Map() }));
      a.self += selfUs.get(id) ?? 0;
      if (first) a.total += t;
      const ticks = n.positionTicks ?? [];
      const sumTicks = ticks.reduce((s, x) => s + x.ticks, 0);
      for (const pt of ticks) a.lines.set(pt.line, (a.lines.get(pt.line) ?? 0) + ((selfUs.get(id) ?? 0) * pt.ticks) / (sumTicks || 1));
    }
    return t;
  };
  inclusive(p.nodes[0].id, new Set());
  const fns = [...agg.values()].sort((a, b) => b.self - a.self).slice(0, top);
  const incl = [...agg.values()].sort((a, b) => b.total - a.total).slice(0, top);
  return {
    samplingIntervalUs: intervalUs,
    sampledMs: total / 1000,
    topInclusive: incl.map((a) => ({
      fn: a.node.callFrame.functionName || '(anonymous)',
      where: where(a.node.callFrame.url, a.node.callFrame.lineNumber),
      totalPct: (100 * a.total) / total,
    })),
    top: fns.map((a) => ({
      fn: a.node.callFrame.functionName || '(anonymous)',
      where: where(a.node.callFrame.url, a.node.callFrame.lineNumber),
      selfPct: (100 * a.self) / total,
      totalPct: (100 * a.total) / total,
      lines: [...a.lines]
        .sort((x, y) => y[1] - x[1])
        .slice(0, 4)
        .filter(([, t]) => t / total >= 0.005)
        .map(([line, t]) => ({ where: where(a.node.callFrame.url, line - 1), pct: (100 * t) / total })),
    })),
  };
}

// ---- allocation sites: V8's sampling heap profiler ----

interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  id: number;
  children: HeapNode[];
}

export interface AllocationSite {
  fn: string;
  where: string;
  /** Innermost caller frames, for context. */
  stack: string[];
  bytes: number;
  pct: number;
}

/**
 * Runs `work` under the sampling heap profiler (a sample about every `intervalBytes` allocated)
 * and returns the functions that allocated the most, with their callers. Sizes are estimates
 * scaled from the samples, as V8 reports them.
 */
export async function allocationSitesWhile<T>(
  work: () => T,
  o: { intervalBytes?: number; top?: number } = {},
): Promise<{ result: T; sites: AllocationSite[]; sampledBytes: number }> {
  const s = new Session();
  s.connect();
  try {
    await s.post('HeapProfiler.enable');
    // Garbage included: what the loop allocates is dead by the time the profile is taken.
    await s.post('HeapProfiler.startSampling', {
      samplingInterval: o.intervalBytes ?? 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as never);
    const result = await new Promise<T>((resolve, reject) =>
      setImmediate(() => {
        try {
          resolve(work());
        } catch (e) {
          reject(e);
        }
      }),
    );
    const { profile } = (await s.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: HeapNode } };
    await s.post('HeapProfiler.disable');
    const sites = new Map<string, AllocationSite>();
    let total = 0;
    const walk = (n: HeapNode, stack: string[]) => {
      const name = n.callFrame.functionName || '(anonymous)';
      const here = `${name} ${where(n.callFrame.url, n.callFrame.lineNumber)}`;
      const st = [here, ...stack].slice(0, 4);
      if (n.selfSize > 0) {
        const k = `${here}<-${st.slice(1, 3).join('<-')}`;
        let a = sites.get(k);
        if (!a) sites.set(k, (a = { fn: name, where: where(n.callFrame.url, n.callFrame.lineNumber), stack: st.slice(1), bytes: 0, pct: 0 }));
        a.bytes += n.selfSize;
        total += n.selfSize;
      }
      for (const c of n.children) walk(c, st);
    };
    walk(profile.head, []);
    const top = [...sites.values()].sort((a, b) => b.bytes - a.bytes).slice(0, o.top ?? 8);
    for (const t of top) t.pct = (100 * t.bytes) / (total || 1);
    return { result, sites: top, sampledBytes: total };
  } finally {
    s.disconnect();
  }
}
