// The suite's readable table: one row per figure, with what it is compared with, the target and
// whether the target is met. Targets are reported, never asserted.

import type { AllocationBench } from './allocation.ts';
import type { BookBench } from './book.ts';
import type { ComponentsBench } from './components.ts';
import type { CrossThreadBench } from './cross-thread.ts';
import type { HttpBench } from './http.ts';
import type { MemoryBench } from './memory.ts';
import type { ReplayBench } from './replay.ts';
import type { SpinFloor } from './spin-floor.ts';
import type { StrategiesBench } from './strategies.ts';
import type { ThroughputBench } from './throughput.ts';
import type { TickToTradeBench } from './tick-to-trade.ts';
import { median, type Machine } from './util.ts';
import { fmtNum } from './util.ts';

export interface Sections {
  book?: BookBench;
  components?: ComponentsBench;
  'tick-to-trade'?: TickToTradeBench;
  'cross-thread'?: CrossThreadBench;
  throughput?: ThroughputBench;
  strategies?: StrategiesBench;
  replay?: ReplayBench;
  allocation?: AllocationBench;
  http?: HttpBench;
  memory?: MemoryBench;
}

export interface Results {
  suite: string;
  mode: 'full' | 'quick';
  machine: Machine;
  loadavgAtEnd: number[];
  durationS: number;
  sections: Sections;
  sectionInfo: Record<string, { seconds: number; loadavgBefore: number[]; loadavgAfter: number[]; error?: string }>;
  table: Row[];
}

export interface Row {
  benchmark: string;
  ours: string;
  comparedWith: string;
  target: string;
  met: string;
}

const yes = (b: boolean) => (b ? 'yes' : 'NO');
const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;
const f1 = (x: number) => fmtNum(x, 1);
/** autocannon's latencies are whole milliseconds. */
const pc = (r: number) => `${(100 * r).toFixed(0)}%`;
const ms = (x: number) => (x === 0 ? '<1 ms' : `${x} ms`);
/** The host's floor for a spinning thread (older results files have none). */
const spinFloorText = (f: SpinFloor | undefined) =>
  f
    ? `host floor, a bare spinning thread: an instant noticed p50 ${f.delayUs.p50.toFixed(1)} µs, p99 ${f.delayUs.p99.toFixed(1)} µs late (${f.lostPct.toFixed(1)}% of its time away)`
    : 'no host floor measured';

export function tableRows(s: Sections): Row[] {
  const rows: Row[] = [];
  if (s.book) {
    const b = s.book;
    const [ours, ccxt, tardis] = b.implementations;
    rows.push({
      benchmark: `Order book update (${fmtNum(b.updates, 0)} upd, ns/upd)`,
      ours: `${ours.nsPerUpdate.toFixed(1)} ns`,
      comparedWith: `ccxt ${ccxt.nsPerUpdate.toFixed(1)} ns (${b.ratios.ccxtOverOurs.toFixed(2)}x), tardis ${tardis.nsPerUpdate.toFixed(1)} ns (${b.ratios.tardisOverOurs.toFixed(1)}x); checksums ${b.checksumsEqual ? 'equal' : 'DIFFER'}; reading the stream alone ${b.readFloorNs.toFixed(1)} ns`,
      target: '<= 15 ns, >= 5x ccxt',
      met: yes(ours.nsPerUpdate <= 15 && b.ratios.ccxtOverOurs >= 5 && b.checksumsEqual),
    });
  }
  if (s.replay) {
    const r = s.replay;
    rows.push({
      benchmark: `Replay from DBN (MBO zstd, ${fmtNum(r.events, 0)} events): decode; pipeline events/s`,
      ours: `${r.decode.compressedMBps.toFixed(1)} MB/s zstd, ${fmtNum(r.decode.recordsPerSec, 0)} rec/s; ${fmtNum(r.replayThreaded.eventsPerSec, 0)} ev/s (${r.ratioThreaded.toFixed(2)}x)`,
      comparedWith: `synthetic ${fmtNum(r.synthetic.eventsPerSec, 0)} ev/s (its generator on the session's thread); with its generator thread ${fmtNum(r.syntheticThreaded.eventsPerSec, 0)} ev/s -> ${r.ratioToThreadedSynthetic.toFixed(2)}x; same-thread decode ${fmtNum(r.replayInline.eventsPerSec, 0)} ev/s (${r.ratioInline.toFixed(2)}x); result ${r.sameResult ? 'identical' : 'DIFFERS'}`,
      target: `>= ${r.target}x synthetic`,
      met: yes(r.ratioThreaded >= r.target && r.sameResult),
    });
  }
  if (s.components) {
    const c = s.components;
    rows.push({
      benchmark: 'Feature extraction (ns/event)',
      ours: `${c.features.nsPerCall.toFixed(1)} ns`,
      comparedWith: `book+features ${c.features.bookPlusFeaturesNs.toFixed(1)} ns, book alone ${c.features.bookOnlyNs.toFixed(1)} ns`,
      target: '-',
      met: '-',
    });
    const i = c.inference;
    const macs = i.multiplyAdds / i.nsPerCall;
    rows.push({
      benchmark: 'Model inference (ns/call)',
      ours: `${i.nsPerCall.toFixed(0)} ns (${i.kernel}), ${macs.toFixed(2)} multiply-adds/ns`,
      comparedWith: `scalar JS ${i.scalar.nsPerCall.toFixed(0)} ns (${(i.scalar.nsPerCall / i.nsPerCall).toFixed(1)}x); ${i.multiplyAdds} multiply-adds; checksums ${i.scalar.checksum === i.checksum ? 'equal' : 'DIFFER'}`,
      target: '>= 4 multiply-adds/ns',
      met: yes(macs >= 4 && i.scalar.checksum === i.checksum),
    });
    rows.push({
      benchmark: 'Strategy decision (ns/call)',
      ours: `${c.strategy.nsPerCall.toFixed(1)} ns`,
      comparedWith: 'MarketMaker.decide',
      target: '-',
      met: '-',
    });
  }
  if (s['tick-to-trade']) {
    const t = s['tick-to-trade'];
    const w = t.withOrder;
    rows.push({
      benchmark: 'Tick-to-trade, one thread, with model',
      ours: `p50 ${us(w.p50)}, p99 ${us(w.p99)}, p99.9 ${us(w.p999)}`,
      comparedWith: `model ran: p50 ${us(t.withOrderAndModel.p50)}; did not: p50 ${us(t.withOrderNoModel.p50)} (${fmtNum(w.count, 0)} samples, timer ${t.timerOverheadNs.toFixed(0)} ns incl.)`,
      target: 'p50 < 2 µs',
      met: yes(w.p50 < 2000),
    });
  }
  if (s['cross-thread']) {
    for (const r of s['cross-thread'].runs) {
      rows.push({
        benchmark: `Tick-to-trade, across threads, ${r.idle === 'busy_poll' ? 'busy-poll' : r.idle === 'block' ? 'blocking' : `spin ${r.spinUs} µs`}`,
        ours: `p50 ${r.samplesUs.p50.toFixed(1)} µs, p99 ${r.samplesUs.p99.toFixed(1)} µs`,
        comparedWith: `${fmtNum(r.samplesUs.count, 0)} samples in ${r.seconds.toFixed(0)} s at speed ${r.speed}; ${r.cpuCoresUsed.toFixed(2)} cores busy; ${r.idle === 'busy_poll' ? spinFloorText(s['cross-thread'].spinFloor) : `bare notify -> wake p50 ${s['cross-thread'].bareWakeUs.p50.toFixed(1)} µs, p99 ${s['cross-thread'].bareWakeUs.p99.toFixed(1)} µs`}`,
        target: 'p50 <= 10 µs, p99 <= 50 µs',
        met: yes(r.samplesUs.p50 <= 10 && r.samplesUs.p99 <= 50),
      });
    }
  }
  if (s.throughput) {
    const t = s.throughput;
    rows.push({
      benchmark: 'Backtest, 1 thread, full pipeline (ev/s)',
      ours: f1(t.pipeline.eventsPerSec),
      comparedWith: `speed of light (bare read loop) ${f1(t.speedOfLight.bareLoopEventsPerSec)} -> ${(100 * t.ratioToSpeedOfLight).toFixed(1)}%; replay+ring ${f1(t.speedOfLight.replayRingEventsPerSec)}; ${fmtNum(t.pipeline.ordersSent, 0)} orders, ${fmtNum(t.pipeline.fills, 0)} fills, ${t.pipeline.killSwitchTripped ? 'KILL SWITCH TRIPPED' : 'traded throughout'}`,
      target: '>= 10M ev/s/core',
      met: yes(t.pipeline.eventsPerSec >= 10e6),
    });
    // issue 15's measure: the whole pipeline's cost per event against ccxt's book alone, ccxt timed
    // after each pipeline round on the same thread (the median of the rounds' ratios)
    const peer = t.ccxtBetweenRounds;
    const sameCpu = peer.cpus.filter(([a, b]) => a === b).length;
    const ns = 1e9 / t.pipeline.eventsPerSec;
    const book = s.book ? `; book row ${s.book.implementations[1].nsPerUpdate.toFixed(1)} ns` : '';
    rows.push({
      benchmark: 'Backtest pipeline per event / ccxt book per update',
      ours: `${ns.toFixed(1)} ns, ${peer.ratio.toFixed(2)}x`,
      comparedWith: `ccxt ${peer.nsPerUpdate.toFixed(1)} ns per update, timed after each pipeline round on its thread (ratios ${peer.ratios.map((r) => r.toFixed(2)).join(', ')}; same vCPU in ${sameCpu} of ${peer.cpus.length}${peer.pinned === null ? ', thread not pinned' : `, thread pinned to vCPU ${peer.pinned}`})${book}`,
      target: '<= 2x',
      met: yes(peer.ratio <= 2),
    });
    rows.push({
      benchmark: 'Backtest, 1 thread, with model (ev/s)',
      ours: f1(t.pipelineWithModel.eventsPerSec),
      comparedWith: `${fmtNum(t.pipelineWithModel.predictions, 0)} predictions / ${fmtNum(t.pipelineWithModel.events, 0)} events`,
      target: '-',
      met: '-',
    });
    rows.push({
      benchmark: 'Market generation alone (ev/s)',
      ours: f1(t.generation.eventsPerSec),
      comparedWith: 'MarketGenerator into a drained ring',
      target: '-',
      met: '-',
    });
    rows.push({
      benchmark: 'Market generation, the market before issue 49 (ev/s)',
      ours: f1(t.generationNeutral.eventsPerSec),
      comparedWith: `the default market (realistic flow, daily path) ${(100 * (t.generationNeutral.defaultVsNeutral - 1)).toFixed(1)} % against it, rounds alternated (NEUTRAL_MARKET)`,
      target: '-',
      met: '-',
    });
    const d = t.oneDay;
    rows.push({
      benchmark: 'Backtest, one day, generation included (ev/s)',
      ours: f1(d.threadedEventsPerSec),
      comparedWith: `generator in its own thread (${d.cores} cores); on the session's thread ${f1(d.sameThreadEventsPerSec)} -> ${d.speedup.toFixed(2)}x; runs ${d.threadedS.map((x) => x.toFixed(2)).join(', ')} s against ${d.sameThreadS.map((x) => x.toFixed(2)).join(', ')} s; the same result`,
      target: '-',
      met: '-',
    });
    for (const p of t.scaling.points) {
      rows.push({
        benchmark: `Backtest pool, ${p.workers} worker(s), ${p.sessions} sessions (ev/s)`,
        ours: f1(p.eventsPerSec),
        comparedWith: `${f1(p.perWorker)}/worker, efficiency ${(100 * p.efficiency).toFixed(0)}% (session sizes allow ${(100 * p.balanceBound).toFixed(0)}%); generation included`,
        target: 'near-linear',
        met: p.workers === 1 ? '-' : yes(p.efficiency >= 0.85),
      });
    }
  }
  if (s.strategies) {
    // issue 42: a row per strategy, each beside the built-in of the same run
    const builtin = s.strategies.rows[0];
    for (const r of s.strategies.rows) {
      const beside =
        r === builtin ? 'the built-in' : `built-in ${builtin.name} ${builtin.nsPerEvent.toFixed(1)} ns (${(r.nsPerEvent / builtin.nsPerEvent).toFixed(2)}x)`;
      rows.push({
        benchmark: `Strategy ${r.name}, 1 thread (CPU ns/event, quiet share)`,
        ours: `${r.nsPerEvent.toFixed(1)} ns, ${(100 * r.quietShare).toFixed(1)}% quiet`,
        comparedWith: `${beside}; rounds ${r.rounds.map((x) => x.toFixed(1)).join(', ')} ns; wall ${r.wallNsPerEvent.toFixed(1)} ns; ${fmtNum(r.ordersSent, 0)} orders, ${fmtNum(r.fills, 0)} fills, ${r.gcs} GCs in ${fmtNum(r.events, 0)} events`,
        target: '-',
        met: '-',
      });
    }
  }
  if (s.allocation) {
    for (const [name, a] of [
      ['no model', s.allocation.withoutModel],
      ['with model', s.allocation.withModel],
    ] as const) {
      rows.push({
        benchmark: `Allocation, ${fmtNum(a.events, 0)} events, ${name}`,
        ours: `${a.gcCount} GCs, ~${(a.sampledBytes / a.events).toFixed(0)} B/event allocated`,
        comparedWith: `heap used ${a.heapGrowthBytes >= 0 ? '+' : ''}${(a.heapGrowthBytes / 1024).toFixed(0)} KiB across the loop, GC pauses ${a.gcPauseMs.toFixed(1)} ms in ${a.loopMs.toFixed(0)} ms`,
        target: '0 GCs',
        met: yes(a.gcCount === 0),
      });
    }
  }
  if (s.http) {
    const h = s.http;
    rows.push({
      benchmark: `/api/state (${h.connections} conns, ${(h.bodyBytes / 1024).toFixed(1)} KiB)`,
      ours: `${f1(h.engine.reqPerSec)} req/s, p99 ${ms(h.engine.p99Ms)}; ${median(h.pairs.usPerRequest.map((x) => x[0])).toFixed(1)} µs CPU per request`,
      comparedWith:
        `bare node:http ${f1(h.bare.reqPerSec)} req/s, p99 ${ms(h.bare.p99Ms)}; ${median(h.pairs.usPerRequest.map((x) => x[1])).toFixed(1)} µs CPU per request -> ${pc(h.ratio)} ` +
        `(CPU per request, median of ${h.pairs.costRatios.length} alternated ${h.durationS} s pairs${h.pinned ? ` on vCPU ${h.pinned.server}` : ', not pinned'}: ${pc(Math.min(...h.pairs.costRatios))}-${pc(Math.max(...h.pairs.costRatios))}; ` +
        `req/s ${pc(median(h.pairs.throughputRatios))}; bare vs bare ${pc(median(h.control.costRatios))} (${pc(Math.min(...h.control.costRatios))}-${pc(Math.max(...h.control.costRatios))}))`,
      target: '>= 80% of bare',
      met: yes(h.ratio >= 0.8),
    });
    const e = h.sse;
    rows.push({
      benchmark: `SSE fan-out, ${e.clients} clients`,
      ours: `${e.costPctOfCore.toFixed(1)}% of a core (main thread)`,
      comparedWith: `${e.framesPerClientPerSec.toFixed(1)} frames/s/client (min ${e.minFramesPerClientPerSec.toFixed(1)}), ${e.coalescedFrames} lost, ${e.costUsPerFrame.toFixed(1)} µs/frame; process ${e.engineCpuIdlePct.toFixed(0)}% -> ${e.engineCpuWithClientsPct.toFixed(0)}%`,
      target: '1,000 clients at 10 Hz < 1 core',
      met: e.clients >= 1000 ? yes(e.mainThreadCpuWithClientsPct < 100 && e.coalescedFrames === 0 && e.droppedClients === 0) : '-',
    });
  }
  if (s.memory) {
    const m = s.memory;
    rows.push({
      benchmark: `Engine RSS after ${m.ageS.toFixed(0)} s (simulation)`,
      ours: `${m.rssMiB.toFixed(0)} MiB`,
      comparedWith: `peak ${m.peakRssMiB.toFixed(0)} MiB${m.servedHttpBenchmark ? ', served the HTTP benchmark' : ''}`,
      target: '-',
      met: '-',
    });
  }
  return rows;
}

/** Plain-text table (fixed-width columns). */
export function renderTable(rows: Row[]): string {
  const cols: (keyof Row)[] = ['benchmark', 'ours', 'comparedWith', 'target', 'met'];
  const head: Row = { benchmark: 'Benchmark', ours: 'Ours', comparedWith: 'Compared with', target: 'Target', met: 'Met' };
  const all = [head, ...rows];
  const w = cols.map((c) => Math.max(...all.map((r) => r[c].length)));
  const line = (r: Row) =>
    cols
      .map((c, i) => r[c].padEnd(w[i]))
      .join(' | ')
      .trimEnd();
  return [line(head), w.map((n) => '-'.repeat(n)).join('-+-'), ...rows.map(line)].join('\n');
}

/** Markdown table (docs/performance.md). */
export function markdownTable(rows: Row[]): string {
  const esc = (x: string) => x.replace(/\|/g, '\\|');
  return [
    '| Benchmark | Ours | Compared with | Target | Met |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${esc(r.benchmark)} | ${esc(r.ours)} | ${esc(r.comparedWith)} | ${esc(r.target)} | ${esc(r.met)} |`),
  ].join('\n');
}
