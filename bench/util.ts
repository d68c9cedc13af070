// Shared helpers of the benchmark suite: statistics, the machine description, /proc readers and
// the load average that goes with every figure (the machine is shared: numbers without the load
// they were taken under are not comparable).

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface Machine {
  cpuModel: string;
  cores: number;
  node: string;
  v8: string;
  platform: string;
  totalMemMiB: number;
  loadavgAtStart: number[];
  date: string;
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    totalMemMiB: Math.round(os.totalmem() / 2 ** 20),
    loadavgAtStart: loadavg(),
    date: new Date().toISOString(),
  };
}

/** 1, 5 and 15 minute load averages, rounded. */
export function loadavg(): number[] {
  return os.loadavg().map((x) => Math.round(x * 100) / 100);
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 === 1 ? a[m] : (a[m - 1] + a[m]) / 2;
}

/** Nearest-rank percentile (p in [0, 1]) of a sorted array. */
export function pct(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i];
}

export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/** Percentiles of the first n values of xs (copied, then sorted). */
export function percentiles(xs: ArrayLike<number>, n = xs.length): Percentiles {
  const a = Float64Array.from({ length: n }, (_, i) => xs[i]).sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += a[i];
  return { count: n, p50: pct(a, 0.5), p90: pct(a, 0.9), p99: pct(a, 0.99), p999: pct(a, 0.999), max: n ? a[n - 1] : NaN, mean: n ? sum / n : NaN };
}

export function nowNs(): bigint {
  return process.hrtime.bigint();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

let clkTck = 0;
/** Kernel clock ticks per second (the unit of utime/stime in /proc/.../stat). */
export function clockTicks(): number {
  if (clkTck) return clkTck;
  try {
    clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    clkTck = 100;
  }
  return clkTck;
}

/** CPU seconds (user + system) used so far by a process, or by one of its threads (tid). */
export function procCpuSeconds(pid: number, tid?: number): number {
  const path = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  const text = readFileSync(path, 'utf8');
  // Fields after the parenthesised command name (which may contain spaces): state is field 3,
  // utime field 14 and stime field 15 (1-based), i.e. indices 11 and 12 after the ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / clockTicks();
}

/**
 * Pins one thread (Linux thread id; a process's main thread has the process id) to one vCPU, or
 * lets it run on every vCPU again (`cpu` null), with taskset. False where that is not possible
 * (no taskset, another OS): the caller then measures unpinned and says so. This host's two vCPUs
 * run the same code up to 1.5x apart at one time (docs/performance-archive.md, round thirteen), so a
 * ratio of two codes is only fair with both on one vCPU.
 */
export function pinThread(tid: number, cpu: number | null): boolean {
  const list = cpu === null ? `0-${os.cpus().length - 1}` : String(cpu);
  try {
    return spawnSync('taskset', ['-pc', list, String(tid)], { stdio: 'ignore' }).status === 0;
  } catch {
    return false;
  }
}

/** The vCPU this thread last ran on (field 39 of /proc/thread-self/stat). */
export function threadCpu(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[36]);
}

/** Resident set size of a process, bytes (VmRSS from /proc/PID/status). */
export function procRssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** A 32-bit FNV-1a hash over a list of integers (checksums of book states), as 8 hex digits. */
export function fnv32(values: readonly number[]): string {
  let h = 0x811c9dc5;
  for (const v of values) {
    let x = v | 0;
    for (let k = 0; k < 4; k++) {
      h ^= x & 0xff;
      h = Math.imul(h, 0x01000193);
      x >>>= 8;
    }
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

export function fmtNum(x: number, digits = 1): string {
  if (x === null || x === undefined || Number.isNaN(x)) return 'n/a';
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 1e9) return `${(x / 1e9).toFixed(2)}G`;
  if (a >= 1e6) return `${(x / 1e6).toFixed(2)}M`;
  if (a >= 1e4) return `${(x / 1e3).toFixed(1)}k`;
  return x.toFixed(digits);
}

/** Progress and notes go to stderr, so stdout can carry the JSON result (--json). */
export function note(msg: string): void {
  process.stderr.write(`[bench] ${msg}\n`);
}
