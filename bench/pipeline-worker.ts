// The throughput section's single-thread pipeline rounds, run in a thread of their own, as a
// backtest pool worker runs sessions: V8's type feedback there is that of sessions alone. In the
// bench's main thread, after the sections before it (features with every output, the strategy and
// the model on their own), the same rounds measured 4.19-4.52M events/s against 5.76M for the
// same build with only the book section before it (2026-11-23): the earlier sections' shapes had
// made the pipeline's optimised code more general.
import { parentPort, workerData } from 'node:worker_threads';
import { ReplaySource } from '../src/backtest/replay-source.ts';
import { runSession, type SessionSpec } from '../src/backtest/session.ts';
import { median } from './util.ts';

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
  rounds: number;
  roundsML: number;
}

function pipelineRounds(spec: SessionSpec, events: Float64Array, count: number, rounds: number): PipelineRun {
  const rates: number[] = [];
  let last = null as ReturnType<typeof runSession> | null;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    last = runSession(spec, { source: new ReplaySource(events, count) });
    rates.push((last.eventsProcessed * 1000) / (performance.now() - t0));
  }
  return { eventsPerSec: median(rates), rounds: rates, events: last!.eventsProcessed, ordersSent: last!.ordersSent, fills: last!.fills, predictions: last!.predictions, killSwitchTripped: last!.killSwitch.tripped };
}

if (parentPort) {
  const job = workerData as PipelineJob;
  const { events, count } = job;
  // Warm-up: one whole untimed session, as the book section replays its whole stream once before
  // timing. After 500k events (the earlier warm-up) the rounds were still speeding up, e.g.
  // 4.22M, 6.51M, 7.47M events/s (2026-11-23): V8 was still optimising.
  runSession(job.spec, { source: new ReplaySource(events, count) });
  const pipe = pipelineRounds(job.spec, events, count, job.rounds);
  runSession(job.specML, { source: new ReplaySource(events, count) });
  const pipeML = pipelineRounds(job.specML, events, count, job.roundsML);
  parentPort.postMessage({ pipe, pipeML });
}
