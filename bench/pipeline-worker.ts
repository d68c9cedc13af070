// The throughput section's single-thread pipeline rounds, run in a thread of their own, as a
// backtest pool worker runs sessions: V8's type feedback there is that of sessions alone. In the
// bench's main thread, after the sections before it (features with every output, the strategy and
// the model on their own), the same rounds measured 4.19-4.52M events/s against 5.76M for the
// same build with only the book section before it (2026-11-23): the earlier sections' shapes had
// made the pipeline's optimised code more general.
//
// ccxt's book, issue 15's peer, is timed here too, after each round without the model, and this
// thread is pinned to the vCPU it started on (taskset), so both run on one vCPU. Timed on the
// bench's main thread, the peer ran on the other vCPU while this thread waited, and at any time
// one vCPU of this host ran the same code about 1.5x slower than the other (docs/performance-archive.md,
// round thirteen): the ratio swung with the placement.
import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { ReplaySource } from '../src/market/replay-source.ts';
import { runSession } from '../src/backtest/session.ts';
import type { SessionResult, SessionSpec } from '../src/backtest/session-spec.ts';
import { ccxtPeer } from './book.ts';
import type { BookStream } from './stream.ts';
import { median, pinThread, threadCpu } from './util.ts';

export interface PipelineRun {
  eventsPerSec: number; // median of rounds
  rounds: number[];
  events: number;
  ordersSent: number;
  fills: number;
  predictions: number;
  /** The session's kill switch tripped (it then trades no more: benchConfig() keeps it off). */
  killSwitchTripped: boolean;
}

export interface PipelineJob {
  spec: SessionSpec;
  specML: SessionSpec;
  /** The recorded session (EV_STRIDE float64s per event), shared with the bench's main thread. */
  events: Float64Array;
  count: number;
  /** Rounds with the model (those without are run one by one on command). */
  roundsML: number;
  /** The order-book stream ccxt's book replays after each round without the model. */
  peerStream: BookStream;
}

/** What the bench's main thread sends: one timed round without the model, or the rest of the job. */
export type PipelineCommand = 'round' | 'finish';
export type PipelineReply =
  | {
      type: 'ready';
      /** The vCPU this thread is pinned to, or null when it could not be pinned. */
      pinned: number | null;
    }
  | {
      type: 'round';
      eventsPerSec: number;
      /** ccxt's book timed right after the round, on this thread: ns per update. */
      peerNs: number;
      /** The vCPU this thread was on after the round and after the peer (/proc: the CPU it last ran on). */
      cpus: [number, number];
    }
  | { type: 'done'; pipe: PipelineRun; pipeML: PipelineRun };

/**
 * Pins this thread to the CPU it is on; the CPU, or null when it cannot (no taskset, no /proc):
 * the rounds then run where the scheduler puts them.
 */
function pinHere(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    const cpu = threadCpu();
    return pinThread(tid, cpu) ? cpu : null;
  } catch {
    return null;
  }
}

function timedRound(spec: SessionSpec, events: Float64Array, count: number): { rate: number; result: SessionResult } {
  const t0 = performance.now();
  const result = runSession(spec, { source: new ReplaySource(events, count) });
  return { rate: (result.eventsProcessed * 1000) / (performance.now() - t0), result };
}

function summary(rates: number[], last: SessionResult): PipelineRun {
  return {
    eventsPerSec: median(rates),
    rounds: rates,
    events: last.eventsProcessed,
    ordersSent: last.ordersSent,
    fills: last.fills,
    predictions: last.predictions,
    killSwitchTripped: last.killSwitch.tripped,
  };
}

if (parentPort) {
  const port = parentPort;
  const job = workerData as PipelineJob;
  const { events, count } = job;
  // Warm-up: one whole untimed session, as the book section replays its whole stream once before
  // timing. After 500k events (the earlier warm-up) the rounds were still speeding up, e.g.
  // 4.22M, 6.51M, 7.47M events/s (2026-11-23): V8 was still optimising.
  const pinned = pinHere();
  runSession(job.spec, { source: new ReplaySource(events, count) });
  const peer = await ccxtPeer(job.peerStream);
  // ccxtPeer replays once; its first timed replay after a round was still ~25 % slower (V8 still
  // optimising ccxt's code), so two more untimed ones.
  peer();
  peer();
  // The rounds without the model one at a time, on the main thread's command, each followed by
  // its peer.
  const rates: number[] = [];
  let last: SessionResult | null = null;
  port.on('message', (m: PipelineCommand) => {
    if (m === 'round') {
      const r = timedRound(job.spec, events, count);
      const cpuRound = threadCpu();
      const peerNs = peer();
      const cpuPeer = threadCpu();
      rates.push(r.rate);
      last = r.result;
      port.postMessage({ type: 'round', eventsPerSec: r.rate, peerNs, cpus: [cpuRound, cpuPeer] } satisfies PipelineReply);
      return;
    }
    if (last === null) throw new Error('pipeline worker: finish before any round');
    const pipe = summary(rates, last);
    runSession(job.specML, { source: new ReplaySource(events, count) });
    const ml = Array.from({ length: job.roundsML }, () => timedRound(job.specML, events, count));
    const pipeML = summary(
      ml.map((r) => r.rate),
      ml[ml.length - 1].result,
    );
    port.postMessage({ type: 'done', pipe, pipeML } satisfies PipelineReply);
    port.close();
  });
  port.postMessage({ type: 'ready', pinned } satisfies PipelineReply);
}
