// What one replayed session needs to open its recorded data: plain data, so it crosses into the
// backtest pool's workers inside the SessionSpec. Times: the engine counts ns after New York
// midnight of the session date; DBN counts ns since the UNIX epoch, so each session carries the
// epoch ns of its New York midnight (as decimal text: it exceeds 2^53).

import { newYorkDateOf } from '../../data/dbn/time.ts';

/** Schemas the engine replays: MBO (order by order) and MBP-10 (10 levels per side). */
export const REPLAY_SCHEMAS = ['mbo', 'mbp-10'] as const;
export type ReplaySchema = (typeof REPLAY_SCHEMAS)[number];

export interface ReplaySessionSpec {
  file: string;
  schema: ReplaySchema;
  /** The raw symbol replayed (e.g. ESH4) and its instrument id in the file. */
  symbol: string;
  instrumentId: number;
  /** Epoch ns of New York midnight of the session date, decimal. */
  baseUtcNs: string;
  /** DBN price units (1e-9) per tick of the contract. */
  tickUnits: number;
  /** One L2 event per order change (l3_fifo needs each change's priority) instead of per level. */
  perOrder: boolean;
}

// A CME Globex trade date opens at 18:00 New York the evening before (17:00 Chicago): a record
// belongs to the New York date 6 h after it.
const TRADE_DATE_SHIFT_NS = 6n * 3_600_000_000_000n;

/** The CME trade date (YYYY-MM-DD) of an epoch-ns time. */
export function tradeDateOf(utcNs: bigint): string {
  return newYorkDateOf(utcNs + TRADE_DATE_SHIFT_NS);
}

