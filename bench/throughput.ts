// Backtest throughput, market-data events per second:
// - generation alone: MarketGenerator.generate into a ring that is drained (reported apart);
// - speed of light: a bare loop that only reads every field of the same recorded event buffer,
//   and the same reads through the replay source and the market ring (what any driver must do);
// - the full pipeline on one thread (a fresh worker thread, as in the backtest pool): runSession (book, features, strategy, risk, portfolio,
//   simulated exchange, latency model, the four-stream merge) replaying the recorded session
//   through hooks.source, so generation is excluded; with the shipped config (no model) and with
//   the model (useML);
// - scaling: runBacktest over several business days on a Piscina pool of 1..N workers (each
//   session generates its own market there: generation is included, as in a real backtest);
// - one day as a user runs it: runBacktest of one session on a pool of one thread, generation
//   included, with the generator in a thread of its own (what runBacktest does when a core is
//   free) and on the session's thread, alternated;
// - a V8 CPU profile of the single-thread pipeline: where the time goes.

import type { EngineConfig } from '../src/config/schema.ts';
import { EV_STRIDE } from '../src/core/events.ts';
import { RecordRing } from '../src/core/ring.ts';
import { MarketGenerator } from '../src/market/generator.ts';
import { NEUTRAL_MARKET } from '../src/market/profiles.ts';
import type { MarketProfile } from '../src/market/market-profile.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { ReplaySource } from '../src/market/replay-source.ts';
import { runSession } from '../src/backtest/session.ts';
import type { SessionSpec } from '../src/backtest/session-spec.ts';
import { createBacktestPool, runBacktest } from '../src/backtest/run.ts';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PipelineCommand, PipelineJob, PipelineReply, PipelineRun } from './pipeline-worker.ts';
import { profileWhile, type ProfileSummary } from './profile.ts';
import { benchRequest, type BookStream, type Recording } from './stream.ts';
import { loadavg, median, note } from './util.ts';

export interface ScalingPoint {
  workers: number;
  sessions: number;
  events: number;
  wallS: number;
  eventsPerSec: number;
  perWorker: number;
  efficiency: number; // eventsPerSec / (workers x eventsPerSec at 1 worker)
  /**
   * The best efficiency the sessions' sizes allow (their events packed longest-first onto the
   * workers, time taken as proportional to events): sessions differ in length, and a pool can
   * only finish when its most loaded worker does.
   */
  balanceBound: number;
  threadsStarted: number;
}

/** total / workers over the largest worker's share, sessions assigned longest first. */
function balanceBound(sizes: number[], workers: number): number {
  const bins = new Array<number>(workers).fill(0);
  for (const x of [...sizes].sort((a, b) => b - a)) bins[bins.indexOf(Math.min(...bins))] += x;
  const total = sizes.reduce((a, b) => a + b, 0);
  return total / workers / Math.max(...bins);
}

export interface ThroughputBench {
  recording: { events: number; session: string };
  generation: { eventsPerSec: number; rounds: number[] };
  /**
   * The same on the market before issue 49 (NEUTRAL_MARKET: neutral flow, independent
   * sessions), in rounds alternated with the default's: what the default market's realism costs.
   */
  generationNeutral: { eventsPerSec: number; rounds: number[]; defaultVsNeutral: number };
  speedOfLight: { bareLoopEventsPerSec: number; replayRingEventsPerSec: number; checksum: number };
  pipeline: PipelineRun;
  pipelineWithModel: PipelineRun;
  /** ccxt's book timed between the rounds without the model. */
  ccxtBetweenRounds: PeerBetweenRounds;
  ratioToSpeedOfLight: number;
  targetEventsPerSec: number;
  scaling: { days: string[]; sessionSpan: string; points: ScalingPoint[]; note: string };
  oneDay: OneDay;
  profile: ProfileSummary | null;
  profileWithModel: ProfileSummary | null;
  loadavg: number[];
}

export interface OneDay {
  date: string;
  events: number;
  cores: number;
  /** Wall seconds per run, alternated after one warm-up run of each. */
  threadedS: number[];
  sameThreadS: number[];
  threadedEventsPerSec: number;
  sameThreadEventsPerSec: number;
  speedup: number;
}

/**
 * One session through runBacktest on a pool of one thread (a fresh pool: the runs after the
 * warm-up are those of a server's warm pool), the generator in its own thread and on the
 * session's, alternated. Both must give the same result, to the last bit.
 */
async function oneDayBacktest(cfg: EngineConfig, rounds: number): Promise<OneDay> {
  const { req } = benchRequest(cfg, { useML: false });
  const pool = createBacktestPool(1);
  const threadedS: number[] = [];
  const sameThreadS: number[] = [];
  let events = 0;
  const results = new Set<string>();
  try {
    for (let r = -1; r < rounds; r++) {
      for (const threaded of r % 2 === 0 ? [false, true] : [true, false]) {
        const t0 = performance.now();
        const run = await runBacktest(req, cfg, { pool, generatorThread: threaded ? undefined : false });
        const s = (performance.now() - t0) / 1000;
        events = run.result.events_processed;
        results.add(JSON.stringify(run.result.session_results));
        if (r >= 0) (threaded ? threadedS : sameThreadS).push(s);
      }
    }
  } finally {
    await pool.destroy();
  }
  if (results.size !== 1) throw new Error('throughput: the one-day backtest differs with the generator in its own thread');
  const threadedEventsPerSec = events / median(threadedS);
  const sameThreadEventsPerSec = events / median(sameThreadS);
  return {
    date: req.dates[0],
    events,
    cores: availableParallelism(),
    threadedS,
    sameThreadS,
    threadedEventsPerSec,
    sameThreadEventsPerSec,
    speedup: threadedEventsPerSec / sameThreadEventsPerSec,
  };
}

function generationRate(spec: SessionSpec, maxEvents: number, profile?: Partial<MarketProfile>): number {
  const gen = new MarketGenerator(contractForRoot(spec.root), spec.date, spec.seed, {
    sessionStartNs: spec.sessionStartNs,
    sessionEndNs: spec.sessionEndNs,
    activity: spec.activity,
    profile,
  });
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 16, false);
  let n = 0;
  const t0 = performance.now();
  while (n < maxEvents && !gen.done) {
    const k = gen.generate(ring, Math.min(4096, maxEvents - n));
    ring.advance(k);
    ring.release();
    n += k;
  }
  return (n * 1000) / (performance.now() - t0);
}

/** Reads every field of every record; one accumulator per field, so no chain of dependent adds. */
function bareLoop(e: Float64Array, n: number): number {
  let a = 0,
    b = 0,
    c = 0,
    d = 0,
    f = 0,
    g = 0;
  for (let i = 0, o = 0; i < n; i++, o += 6) {
    a += e[o];
    b += e[o + 1];
    c += e[o + 2];
    d += e[o + 3];
    f += e[o + 4];
    g += e[o + 5];
  }
  return a + b + c + d + f + g;
}

/** The replay source into the market ring and every field read back out of the ring. */
function replayRingLoop(rec: Recording, n: number): number {
  const src = new ReplaySource(rec.events, n);
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 16, false);
  const d = ring.data;
  let a = 0,
    b = 0,
    c = 0,
    e = 0,
    f = 0,
    g = 0;
  while (!src.done) {
    const k = src.generate(ring, Math.min(4096, ring.free()));
    for (let j = 0; j < k; j++) {
      const o = ring.peek();
      a += d[o];
      b += d[o + 1];
      c += d[o + 2];
      e += d[o + 3];
      f += d[o + 4];
      g += d[o + 5];
      ring.advance();
    }
    ring.release();
  }
  return a + b + c + e + f + g;
}

/** ccxt's book timed after each pipeline round on the pipeline's thread (book.ts ccxtPeer), and the ratio of issue 15 per round. */
export interface PeerBetweenRounds {
  /** ns per update, median of the rounds; one replay after each pipeline round, on its thread. */
  nsPerUpdate: number;
  rounds: number[];
  /** Pipeline ns per event / ccxt ns per update, round by round, and their median. */
  ratios: number[];
  ratio: number;
  /** The vCPU of each round and of its peer ([round, peer]): equal when both ran on the same one. */
  cpus: [number, number][];
  /** The vCPU the pipeline thread was pinned to (null: not pinned, e.g. no taskset). */
  pinned: number | null;
}

/**
 * The pipeline rounds without and with the model, in a fresh worker thread (bench/pipeline-worker.ts
 * says why), over a shared copy of the recording. The rounds without the model run one at a
 * time; after each, the worker times ccxt's book on `peerStream` (the peer, on the same vCPU).
 */
async function pipelineInWorker(
  spec: SessionSpec,
  specML: SessionSpec,
  rec: Recording,
  rounds: number,
  roundsML: number,
  peerStream: BookStream,
): Promise<{ pipe: PipelineRun; pipeML: PipelineRun; peer: PeerBetweenRounds }> {
  const events = new Float64Array(new SharedArrayBuffer(rec.count * EV_STRIDE * 8));
  events.set(rec.events.subarray(0, rec.count * EV_STRIDE));
  const job: PipelineJob = { spec, specML, events, count: rec.count, roundsML, peerStream };
  const w = new Worker(new URL('./pipeline-worker.js', import.meta.url), { workerData: job });
  // One reply at a time: the worker answers each command once.
  let waiting: { resolve: (m: PipelineReply) => void; reject: (e: Error) => void } | null = null;
  let failed: Error | null = null;
  const fail = (e: Error) => {
    failed ??= e;
    waiting?.reject(e);
    waiting = null;
  };
  w.on('message', (m: PipelineReply) => {
    const h = waiting;
    waiting = null;
    h?.resolve(m);
  });
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`pipeline worker exited with code ${code}`)));
  const reply = <T extends PipelineReply['type']>(type: T): Promise<Extract<PipelineReply, { type: T }>> =>
    new Promise((resolve, reject) => {
      if (failed) return reject(failed);
      waiting = {
        resolve: (m) =>
          m.type === type ? resolve(m as Extract<PipelineReply, { type: T }>) : reject(new Error(`pipeline worker: expected '${type}', got '${m.type}'`)),
        reject,
      };
    });
  try {
    const { pinned } = await reply('ready');
    const peerNs: number[] = [];
    const ratios: number[] = [];
    const cpus: [number, number][] = [];
    for (let r = 0; r < rounds; r++) {
      const next = reply('round');
      w.postMessage('round' satisfies PipelineCommand);
      const round = await next;
      peerNs.push(round.peerNs);
      ratios.push(1e9 / round.eventsPerSec / round.peerNs);
      cpus.push(round.cpus);
    }
    const done = reply('done');
    w.postMessage('finish' satisfies PipelineCommand);
    const { pipe, pipeML } = await done;
    return { pipe, pipeML, peer: { nsPerUpdate: median(peerNs), rounds: peerNs, ratios, ratio: median(ratios), cpus, pinned } };
  } finally {
    w.removeAllListeners('exit');
    await w.terminate();
  }
}

export async function benchThroughput(
  config: EngineConfig,
  spec: SessionSpec,
  specML: SessionSpec,
  rec: Recording,
  o: { rounds: number; roundsML: number; endDate: string; sessionEnd?: string; maxWorkers: number; profile: boolean; peerStream: BookStream },
): Promise<ThroughputBench> {
  const n = rec.count;
  note(`throughput: generation, the default market and the one before issue 49 alternated`);
  generationRate(spec, Math.min(n, 300_000)); // warm-up
  generationRate(spec, Math.min(n, 300_000), NEUTRAL_MARKET);
  const gen: number[] = [];
  const genNeutral: number[] = [];
  for (let r = 0; r < o.rounds; r++) {
    gen.push(generationRate(spec, n));
    genNeutral.push(generationRate(spec, n, NEUTRAL_MARKET));
  }

  note(`throughput: speed of light`);
  let checksum = 0;
  const bare: number[] = [];
  const ringRates: number[] = [];
  for (let r = 0; r < o.rounds + 2; r++) {
    let t0 = performance.now();
    checksum += bareLoop(rec.events, n);
    bare.push((n * 1000) / (performance.now() - t0));
    t0 = performance.now();
    checksum += replayRingLoop(rec, n);
    ringRates.push((n * 1000) / (performance.now() - t0));
  }

  note(`throughput: full pipeline, one thread (${n.toLocaleString('en-US')} events x ${o.rounds})`);
  // Then with the model (x roundsML), in the same fresh thread.
  // ccxt's book is timed after each round without the model (issue 15's ratio, PeerBetweenRounds).
  const { pipe, pipeML, peer } = await pipelineInWorker(spec, specML, rec, o.rounds, o.roundsML, o.peerStream);
  // A session whose strategy stopped part-way is not the full pipeline for the rest of its events.
  for (const [what, p] of [
    ['without', pipe],
    ['with', pipeML],
  ] as const) {
    if (p.killSwitchTripped)
      throw new Error(`throughput: the session ${what} the model tripped its kill switch; the pipeline rows need a session traded throughout (benchConfig)`);
  }

  let profile: ProfileSummary | null = null;
  let profileML: ProfileSummary | null = null;
  if (o.profile) {
    note('throughput: profiling');
    profile = (await profileWhile(() => runSession(spec, { source: new ReplaySource(rec.events, rec.count) }))).profile;
    profileML = (await profileWhile(() => runSession(specML, { source: new ReplaySource(rec.events, rec.count) }))).profile;
  }

  // Scaling over a pool: the same multi-day request on 1..maxWorkers workers.
  const cfg = structuredClone(config);
  if (o.sessionEnd) cfg.simulation.session_end = o.sessionEnd;
  // `config` is benchConfig() (stream.ts): no kill switch, the drawdown limit at 100 %. With the
  // shipped limits the first session trips the account's kill switch, after which a multi-day run
  // trades no more sessions (one account across days), and a drawdown near the limit makes later
  // sessions run again with the true carry (account.ts). This measures the pool, not the
  // strategy: every session runs once, in parallel.
  const { req } = benchRequest(cfg, { useML: false, endDate: o.endDate });
  const points: ScalingPoint[] = [];
  for (let w = 1; w <= o.maxWorkers; w++) {
    note(`throughput: pool of ${w} worker(s), ${req.dates.length} sessions`);
    const pool = createBacktestPool(w);
    try {
      // Warm the pool's threads up (start-up and first compilation are not throughput).
      const warm = structuredClone(cfg);
      warm.simulation.session_end = '09:35';
      await Promise.all(Array.from({ length: 2 * w }, () => runBacktest(benchRequest(warm, { useML: false }).req, warm, { pool, generatorThread: false })));
      const threadsStarted = pool.threads.length;
      const t0 = performance.now();
      const run = await runBacktest(req, cfg, { pool, generatorThread: false });
      const wallS = (performance.now() - t0) / 1000;
      const events = run.result.events_processed;
      points.push({
        workers: w,
        sessions: run.sessions.length,
        events,
        wallS,
        eventsPerSec: events / wallS,
        perWorker: events / wallS / w,
        efficiency: 0,
        balanceBound: balanceBound(
          run.sessions.map((x) => x.result?.eventsProcessed ?? 0),
          w,
        ),
        threadsStarted,
      });
    } finally {
      await pool.destroy();
    }
  }
  for (const p of points) p.efficiency = p.eventsPerSec / (p.workers * points[0].eventsPerSec);

  note("throughput: one-day backtest, the generator in its own thread and on the session's");
  const oneDay = await oneDayBacktest(cfg, 3);

  const sol = median(bare);
  return {
    recording: {
      events: n,
      session: `${spec.root} ${spec.date} seed ${spec.seed}, ${config.simulation.session_start}-${config.simulation.session_end} New York`,
    },
    generation: { eventsPerSec: median(gen), rounds: gen },
    generationNeutral: { eventsPerSec: median(genNeutral), rounds: genNeutral, defaultVsNeutral: median(gen) / median(genNeutral) },
    speedOfLight: { bareLoopEventsPerSec: sol, replayRingEventsPerSec: median(ringRates), checksum },
    pipeline: pipe,
    pipelineWithModel: pipeML,
    ccxtBetweenRounds: peer,
    ratioToSpeedOfLight: pipe.eventsPerSec / sol,
    targetEventsPerSec: 10e6,
    scaling: {
      days: req.dates,
      sessionSpan: `${cfg.simulation.session_start}-${cfg.simulation.session_end}`,
      points,
      note: 'runBacktest on a Piscina pool: one session per task, each generating its own market on its own thread (generation included; generatorThread: false, so that 1 worker is 1 thread), no model',
    },
    oneDay,
    profile,
    profileWithModel: profileML,
    loadavg: loadavg(),
  };
}
