// The one place that builds the simulated venue from its execution parameters, for both drivers
// (the backtest session and the live market-data worker): the exchange with its queue, fee and
// latency models, and the seeded latency models of the engine's side of the links.

import type { RecordRing } from '../core/ring.ts';
import { Rng } from '../core/rng.ts';
import { FeeSchedule, type RootFeeParams } from './fees.ts';
import { type LatencyModel, SeededLatency, type LatencyParams } from './latency.ts';
import type { L3Tape } from './l3-fifo-queue.ts';
import { queueModelFromName } from './queue-model-factory.ts';
import { SimExchange } from './sim-exchange.ts';

/** How the venue executes: plain data, so it crosses into pool workers and job queues. */
export interface ExecutionParams {
  latency: LatencyParams;
  fees: RootFeeParams;
  queueModel: string;
  queuePower: number;
}

/** A latency model whose jitter is drawn from its own seeded stream. */
export function seededLatency(p: LatencyParams, seed: number): LatencyModel {
  return new SeededLatency(p, new Rng(seed));
}

/**
 * The exchange: execution reports go to `reports`; its response-latency jitter uses `seed`;
 * `tape` carries the order priorities of an MBO source (needed by the l3_fifo queue model).
 */
export function buildExchange(p: ExecutionParams, reports: RecordRing, seed: number, tape: L3Tape | null = null): SimExchange {
  return new SimExchange({
    fees: new FeeSchedule(p.fees),
    latency: seededLatency(p.latency, seed),
    queue: queueModelFromName(p.queueModel, p.queuePower, tape),
    reports,
  });
}
