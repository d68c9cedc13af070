// The market-source port: where a session's market events come from. Its implementations sit
// beside it: the synthetic generator (generator.ts), recorded DBN files (replay/dbn-source.ts),
// either of them on a worker thread (source-thread.ts), and a recorded event stream
// (replay-source.ts). The backtest driver (src/backtest/session.ts) and the live market-data
// thread (workers/market-data.ts) read them through this port.

import type { RecordRing } from '../core/ring.ts';
import type { L3Tape } from '../exchange/l3-fifo-queue.ts';

/** Where market events come from: the synthetic generator, recorded data, a recorded stream (bench). */
export interface MarketSource {
  generate(ring: RecordRing, maxEvents: number): number;
  readonly done: boolean;
  /** Order priorities beside the ring (order-level data only): what the l3_fifo model reads. */
  readonly tape?: L3Tape | null;
  /** Releases what the source holds (a file, a decoder thread). */
  close?(): void;
  /** Recorded data: its data-quality counters (src/market/replay/quality.ts) once done. */
  qualityCounts?(): Float64Array | null;
}

/** Order priorities are kept for this many ring slots (>= the market ring's capacity). */
export const TAPE_CAPACITY = 1 << 16;
