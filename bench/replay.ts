// Replay of recorded data (issue 12): a synthetic session exported as MBO DBN (zstd), then
//   - decoding alone: DbnReader over the compressed file (every record's fields read): compressed
//     and decoded MB/s, records/s;
//   - the decoder thread's work alone: DbnMarketSource (reader + MBO book -> L2 events) drained
//     into a ring, events per CPU second;
//   - the full pipeline (runSession: book, strategy, risk, exchange, ...) from the synthetic
//     generator and from the DBN file, decoded in its own threads (the engine's default: a
//     decoder thread and its zstd inflater) and on the session's thread, in the same run, so the
//     ratio is measured on the same machine load. The target's reference is the synthetic
//     session with its generator on the session's thread (as when issue 12 set it); since round
//     twenty a one-session run generates in a thread of its own when a core is free, so that
//     variant runs too and the replay's ratio to it is reported beside.
// Wall time on this shared 2-core machine measures the other jobs too, so each pipeline run also
// records the CPU seconds of each of the process's threads (/proc): with the decoder and its zstd
// inflater in threads of their own, the replay on two idle cores takes at least the CPU of its
// busiest thread and at least half the CPU of all its threads, hence `twoCoreRatio` = synthetic
// session-thread CPU / max(replay session-thread CPU, busiest other thread's CPU, all threads'
// CPU / 2), an estimate that does not depend on the load.
// The replay must give the same session result as the direct run (checked here too).
//
//   node bench/build.mjs && node dist/bench/replay.js [--quick] [--json]
// (bundled like the engine: under tsx hot loops run up to ~40% slower.) Needs npm run build for
// the bundles of the decoder and inflater threads (dist/workers/market-source.js, zstd-inflate.js).

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionSpecs, validateBacktestRequest } from '../src/backtest/request.ts';
import { runSession } from '../src/backtest/session.ts';
import type { SessionResult, SessionSpec } from '../src/backtest/session-spec.ts';
import { DbnReader, RTYPE } from '../src/data/dbn/index.ts';
import { exportSynthetic } from '../src/market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { planReplay } from '../src/market/replay/dataset.ts';
import { openReplaySource } from '../src/market/source-thread.ts';
import { benchConfig } from './stream.ts';
import { RecordRing } from '../src/core/ring.ts';
import { EV_STRIDE } from '../src/core/events.ts';
import { DbnMarketSource } from '../src/market/replay/dbn-source.ts';
import { loadavg, median, procCpuSeconds } from './util.ts';

export interface ReplayBench {
  session: string;
  events: number;
  records: number;
  fileBytes: number;
  decode: { compressedMBps: number; decodedMBps: number; recordsPerSec: number; rounds: number[] };
  /** The decoder thread's work alone (reader + MBO book + queue into a ring), per CPU second. */
  source: { eventsPerCpuSec: number; rounds: number[] };
  /** The synthetic session with its generator on the session's thread: the target's reference. */
  synthetic: PipelineFigures;
  /** The same with the generator in a thread of its own, as a one-session run does when a core is free (round twenty). */
  syntheticThreaded: PipelineFigures;
  replayThreaded: PipelineFigures;
  replayInline: PipelineFigures;
  ratioThreaded: number;
  ratioInline: number;
  /** ratioThreaded against the synthetic session with its generator thread. */
  ratioToThreadedSynthetic: number;
  /** Load-independent estimate of ratioThreaded on two idle cores (see the header). */
  twoCoreRatio: number;
  target: number;
  sameResult: boolean;
  loadavg: number[];
}

/** Events per wall second and CPU seconds (medians of the rounds). */
interface PipelineFigures {
  eventsPerSec: number;
  rounds: number[];
  /** CPU seconds of the session's (main) thread, of the process's other threads, and of the busiest of those. */
  sessionThreadCpu: number;
  otherThreadsCpu: number;
  busiestOtherThreadCpu: number;
}

interface Run {
  wall: number;
  mainCpu: number;
  procCpu: number;
  busiestOtherCpu: number;
}

/** CPU seconds of each thread of this process, by thread id. */
function threadsCpu(): Map<number, number> {
  return new Map(readdirSync(`/proc/${process.pid}/task`).map((t) => [Number(t), procCpuSeconds(process.pid, Number(t))]));
}

const DATE = '2024-03-05';
const MBO_RECORD_BYTES = 56;

function timed(fn: () => void): number {
  return measured(fn).wall;
}

function measured(fn: () => void): Run {
  const p0 = procCpuSeconds(process.pid); // the whole process: threads that exit during fn count too
  const th0 = threadsCpu();
  const t0 = process.hrtime.bigint();
  fn();
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const procCpu = procCpuSeconds(process.pid) - p0;
  let mainCpu = 0;
  let busiestOtherCpu = 0;
  for (const [tid, cpu] of threadsCpu()) {
    const used = cpu - (th0.get(tid) ?? 0);
    if (tid === process.pid) mainCpu = used;
    else if (used > busiestOtherCpu) busiestOtherCpu = used;
  }
  return { wall, mainCpu, procCpu, busiestOtherCpu };
}

function figures(events: number, runs: Run[]): PipelineFigures {
  const wall = runs.map((r) => r.wall);
  return {
    eventsPerSec: events / median(wall),
    rounds: wall,
    sessionThreadCpu: median(runs.map((r) => r.mainCpu)),
    otherThreadsCpu: median(runs.map((r) => r.procCpu - r.mainCpu)),
    busiestOtherThreadCpu: median(runs.map((r) => r.busiestOtherCpu)),
  };
}

/** The decoder thread's work on this thread: CPU seconds to drain the source into a ring. */
function sourceOnce(s: ReturnType<typeof planReplay>['sessions'][number]): { cpu: number; events: number } {
  const c0 = process.cpuUsage();
  const src = new DbnMarketSource(s.replay, s.sessionStartNs, s.sessionEndNs);
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 15, false);
  let events = 0;
  while (!src.done) {
    const n = src.generate(ring, 4096);
    ring.advance(n);
    ring.release();
    events += n;
  }
  src.close();
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1e6, events };
}

function decodeOnce(file: string): { seconds: number; records: number; checksum: number } {
  let records = 0;
  let checksum = 0;
  const seconds = timed(() => {
    const r = DbnReader.open(file);
    for (let c = r.next(); c !== null; c = r.next()) {
      if (c.rtype !== RTYPE.MBO) continue;
      records++;
      checksum += c.size + c.action + c.side + c.flags + (c.price % 1024) + (c.orderId % 1024) + (c.tsEventRel % 1024);
    }
    r.close();
  });
  return { seconds, records, checksum };
}

export async function benchReplay(quick: boolean): Promise<ReplayBench> {
  const cfg = benchConfig();
  cfg.simulation.session_start = '09:30';
  cfg.simulation.session_end = quick ? '09:40' : '10:30';
  const v = validateBacktestRequest({ symbol: 'ES', startDate: DATE, useML: false }, cfg);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const spec = sessionSpecs(v.request, cfg, false)[0];
  const dir = mkdtempSync(join(tmpdir(), 'bench-replay-'));
  try {
    const file = join(dir, `es-${DATE}.mbo.dbn.zst`);
    await exportSynthetic(
      file,
      [
        {
          date: spec.date,
          rawSymbol: v.request.contracts[0],
          spec: contractForRoot(spec.root),
          seed: spec.seed,
          sessionStartNs: spec.sessionStartNs,
          sessionEndNs: spec.sessionEndNs,
          activity: spec.activity,
        },
      ],
      {
        schema: 'mbo',
        marketDataLatencyNs: spec.execution.latency.marketDataLatencyNs,
      },
    );
    const plan = planReplay(file, { perOrder: false });
    const s = plan.sessions[0];
    const replaySpec: SessionSpec = { ...spec, sessionStartNs: s.sessionStartNs, sessionEndNs: s.sessionEndNs, replay: s.replay };
    const fileBytes = statSync(file).size;
    const rounds = quick ? 1 : 3;

    decodeOnce(file); // warm-up
    const dec = Array.from({ length: rounds }, () => decodeOnce(file));
    const decS = median(dec.map((d) => d.seconds));
    const records = dec[0].records;

    sourceOnce(s); // warm-up
    const src = Array.from({ length: rounds }, () => sourceOnce(s));

    let direct: SessionResult | null = null;
    let directThreaded: SessionResult | null = null;
    let threaded: SessionResult | null = null;
    let inline: SessionResult | null = null;
    const syn: Run[] = [];
    const synThr: Run[] = [];
    const thr: Run[] = [];
    const inl: Run[] = [];
    // Warm-up of the engine code, and of the decoder and inflater threads, which are kept for the
    // next session as in a backtest of many days (src/market/source-thread.ts): each variant starts warm.
    const specThreaded: SessionSpec = { ...spec, generatorThread: true };
    runSession(spec);
    runSession(specThreaded);
    runSession(replaySpec);
    for (let i = 0; i < rounds; i++) {
      // interleaved rounds: a change in machine load hits every variant alike
      syn.push(measured(() => (direct = runSession(spec))));
      synThr.push(measured(() => (directThreaded = runSession(specThreaded))));
      thr.push(measured(() => (threaded = runSession(replaySpec))));
      inl.push(measured(() => (inline = runSession(replaySpec, { source: openReplaySource(s.replay, s.sessionStartNs, s.sessionEndNs, true) }))));
    }
    const events = direct!.eventsProcessed;
    const synF = figures(events, syn);
    const synThrF = figures(events, synThr);
    const thrF = figures(events, thr);
    const inlF = figures(events, inl);
    const synEps = synF.eventsPerSec;
    // The same backtest: every figure equal, apart from the counters of how the recorded data met
    // the engine, which only a replay's result carries (dataQuality).
    const figuresOf = (r: SessionResult | null) => {
      const { dataQuality: _, ...rest } = r!;
      return JSON.stringify(rest);
    };
    const want = figuresOf(direct);
    const same = want === figuresOf(directThreaded) && want === figuresOf(threaded) && want === figuresOf(inline);
    return {
      session: `ES ${DATE} ${cfg.simulation.session_start}-${cfg.simulation.session_end} New York, MBO export`,
      events,
      records,
      fileBytes,
      decode: {
        compressedMBps: fileBytes / 1e6 / decS,
        decodedMBps: (records * MBO_RECORD_BYTES) / 1e6 / decS,
        recordsPerSec: records / decS,
        rounds: dec.map((d) => d.seconds),
      },
      source: { eventsPerCpuSec: src[0].events / median(src.map((r) => r.cpu)), rounds: src.map((r) => r.cpu) },
      synthetic: synF,
      syntheticThreaded: synThrF,
      replayThreaded: thrF,
      replayInline: inlF,
      ratioThreaded: thrF.eventsPerSec / synEps,
      ratioInline: inlF.eventsPerSec / synEps,
      ratioToThreadedSynthetic: thrF.eventsPerSec / synThrF.eventsPerSec,
      twoCoreRatio: synF.sessionThreadCpu / Math.max(thrF.sessionThreadCpu, thrF.busiestOtherThreadCpu, (thrF.sessionThreadCpu + thrF.otherThreadsCpu) / 2),
      target: 0.8,
      sameResult: same,
      loadavg: loadavg(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
const cpu = (f: PipelineFigures) =>
  `${f.sessionThreadCpu.toFixed(2)}, other threads ${f.otherThreadsCpu.toFixed(2)} (busiest ${f.busiestOtherThreadCpu.toFixed(2)})`;

export function replayRows(b: ReplayBench): string[] {
  return [
    `replay bench: ${b.session}: ${fmt(b.events)} L2 events from ${fmt(b.records)} MBO records, ${(b.fileBytes / 1e6).toFixed(2)} MB zstd`,
    `  decode (DbnReader, zstd):   ${b.decode.compressedMBps.toFixed(1)} MB/s compressed, ${b.decode.decodedMBps.toFixed(1)} MB/s decoded, ${fmt(b.decode.recordsPerSec)} records/s`,
    `  decoder thread's work alone: ${fmt(b.source.eventsPerCpuSec)} L2 events per CPU second (reader + MBO book)`,
    `  pipeline, synthetic:        ${fmt(b.synthetic.eventsPerSec)} events/s; CPU s: session thread ${cpu(b.synthetic)}`,
    `  pipeline, synthetic with its generator thread: ${fmt(b.syntheticThreaded.eventsPerSec)} events/s; CPU s: session thread ${cpu(b.syntheticThreaded)}`,
    `  pipeline, DBN decode threads: ${fmt(b.replayThreaded.eventsPerSec)} events/s (${b.ratioThreaded.toFixed(2)}x synthetic; target >= ${b.target}x: ${b.ratioThreaded >= b.target ? 'met' : 'NOT met'}); CPU s: session thread ${cpu(b.replayThreaded)}`,
    `  pipeline, DBN decode threads against the synthetic with its generator thread: ${b.ratioToThreadedSynthetic.toFixed(2)}x`,
    `  pipeline, DBN same thread:  ${fmt(b.replayInline.eventsPerSec)} events/s (${b.ratioInline.toFixed(2)}x synthetic); CPU s: session thread ${cpu(b.replayInline)}`,
    `  on two idle cores (CPU estimate): ${b.twoCoreRatio.toFixed(2)}x synthetic (target >= ${b.target}x: ${b.twoCoreRatio >= b.target ? 'met' : 'NOT met'})`,
    `  same session result as the direct run: ${b.sameResult ? 'yes' : 'NO'}; load average ${b.loadavg.map((x) => x.toFixed(2)).join(' ')}`,
  ];
}

if (process.argv[1]?.endsWith('replay.js') || process.argv[1]?.endsWith('replay.ts')) {
  const quick = process.argv.includes('--quick');
  const b = await benchReplay(quick);
  if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(b, null, 2) + '\n');
  else process.stdout.write(replayRows(b).join('\n') + '\n');
}
