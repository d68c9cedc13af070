// Memory: resident set size of the engine process (simulation mode, every worker running, the
// shipped config) sampled from /proc/PID/status from its start until it has run `ageS` seconds.
// When the HTTP benchmark shares the process (the suite's default), the series covers that load
// too and the report says so.

import type { EngineProcess } from './engine-process.ts';
import { loadavg, procRssBytes, sleep } from './util.ts';

export interface MemoryBench {
  ageS: number;
  rssMiB: number;
  peakRssMiB: number;
  series: { s: number; rssMiB: number }[];
  servedHttpBenchmark: boolean;
  loadavg: number[];
}

const MiB = 2 ** 20;

/** Samples RSS every `everyS` seconds from now until the process is `ageS` seconds old. */
export class RssSampler {
  readonly series: { s: number; rssMiB: number }[] = [];
  private timer: NodeJS.Timeout | null = null;
  constructor(
    private readonly engine: EngineProcess,
    everyS: number,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyS * 1000);
  }
  sample(): void {
    try {
      this.series.push({ s: (performance.now() - this.engine.startedAt) / 1000, rssMiB: procRssBytes(this.engine.pid) / MiB });
    } catch {
      /* exited */
    }
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

export async function benchMemory(engine: EngineProcess, sampler: RssSampler, o: { ageS: number; servedHttp: boolean }): Promise<MemoryBench> {
  const left = o.ageS * 1000 - (performance.now() - engine.startedAt);
  if (left > 0) await sleep(left);
  sampler.sample();
  sampler.stop();
  const last = sampler.series[sampler.series.length - 1];
  return {
    ageS: last.s,
    rssMiB: last.rssMiB,
    peakRssMiB: Math.max(...sampler.series.map((x) => x.rssMiB)),
    series: sampler.series,
    servedHttpBenchmark: o.servedHttp,
    loadavg: loadavg(),
  };
}
