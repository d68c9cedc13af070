// Shared memory of simulation mode, allocated once by the main thread and handed to every
// worker (and to a restarted worker: the memory outlives the threads).
//
//   market-data worker  --md ring (market events, stamped with receive time)-->  order-book worker
//   market-data worker  --er ring (execution reports)----------------------->  order-book worker
//   order-book worker   --om ring (new / cancel orders)-------------------->  market-data worker
//   order-book worker   --fills ring, latency ring, snapshot seqlock------->  main thread
//   order-book worker   --features seqlock--> inference worker --prediction seqlock--> order-book
//   inference worker    --latency ring-------------------------------------> main thread
// Portfolio and risk state live in shared memory owned by no thread, so a restarted engine
// thread continues the position, P&L and kill-switch state.

import { ER_STRIDE, EV_STRIDE, OM_STRIDE } from '../core/events.ts';
import { RecordRing, type RingMemory } from '../core/ring.ts';
import { Portfolio } from '../portfolio/portfolio.ts';
import { FillJournal } from './fill-journal.ts';
import { RISK_STATE_FIELDS, RiskManager } from '../risk/risk-manager.ts';
import { Seqlock, type SeqlockMemory } from '../shm/seqlock.ts';
import { FEATURE_COUNT } from '../book/features.ts';
import { CT_FIELDS, S } from './snapshot.ts';

/** Extra field of simulation-mode market records: wall ms when the market-data worker published it. */
export const EV_WALL = EV_STRIDE;
export const MD_STRIDE = EV_STRIDE + 1;

// Fill-ring records (order-book -> main), FR_ slots; a FillLog row (FL_) is another layout.
export const FR_EXCH_TS = 0,
  FR_RECV_TS = 1,
  FR_SENT_TS = 2,
  FR_ID = 3,
  FR_SIDE = 4,
  FR_PRICE = 5,
  FR_QTY = 6,
  FR_LIQ = 7,
  FR_FEE = 8,
  FR_POSITION = 9,
  FR_PNL = 10,
  FR_SESSION = 11;
export const FR_STRIDE = 12;

// Latency samples: stage code and seconds.
export const LAT_STAGE = 0,
  LAT_SECONDS = 1;
export const LAT_STRIDE = 2;
export const STAGE_TICK_TO_TRADE = 0,
  STAGE_BOOK_UPDATE = 1,
  STAGE_INFERENCE = 2;
export const STAGE_NAMES = ['tick_to_trade', 'book_update', 'inference'] as const;

// Prediction slot: value (ticks), features' engine time, wall ms when made, count.
export const PR_VALUE = 0,
  PR_TS = 1,
  PR_WALL = 2,
  PR_COUNT = 3;
export const PR_FIELDS = 4;
// Feature slot: the vector, then the engine time it describes.
export const FT_TS = FEATURE_COUNT;
export const FT_FIELDS = FEATURE_COUNT + 1;

// Process-wide control block (Int32), CB_ slots.
export const CB_STOP = 0; // main sets 1 to stop all workers
export const CB_HB_MD = 1; // heartbeats: each worker increments its counter as it runs
export const CB_HB_OB = 2;
export const CB_HB_INF = 3;
export const CB_GEN = 4; // order-book generation requested by main (incremented on restart)
export const CB_GEN_ACK = 5; // generation the market-data worker has served (cancel-all + snapshot)
export const CB_WAKE_OB = 6; // bumped + notified by producers of the order-book worker's inputs
export const CB_WAKE_MD = 7; // bumped + notified by the order-book worker after sending orders
export const CB_MD_STALLS = 9; // times the market-data worker waited on a full md ring (back-pressure)
export const CB_FAULT_STALL = 10; // fault injection (tests): 1 + the worker index that must stall
export const CB_FAULT_FILL = 11; // fault injection (tests): the engine thread dies at this step of its next fill's booking
export const CB_INTS = 16;

/** Most doubles a strategy may declare as its state (the registry's bound). */
export const MAX_STRATEGY_STATE = 4096;

export interface SymbolMemory {
  symbol: string;
  root: string;
  md: RingMemory;
  er: RingMemory;
  om: RingMemory;
  fills: RingMemory;
  latEngine: RingMemory;
  latInference: RingMemory;
  snapshot: SeqlockMemory;
  features: SeqlockMemory;
  prediction: SeqlockMemory;
  portfolio: SharedArrayBuffer;
  risk: SharedArrayBuffer;
  /** The engine thread's counters (snapshot.ts, CT), kept across its restarts. */
  counters: SharedArrayBuffer;
  /** The engine thread's booking in progress (fill-journal.ts). */
  journal: SharedArrayBuffer;
  /** The strategy's declared state (StrategyDefinition.stateSlots doubles), kept across engine restarts. */
  strategyState: SharedArrayBuffer;
}

export interface SharedLayout {
  control: SharedArrayBuffer;
  symbols: SymbolMemory[];
}

export const MAX_LOTS = 4096;

/**
 * Records each ring of a symbol holds (powers of two). The market-data ring is the largest: a
 * full one makes the market wait (back-pressure, counted), since an L2 update is never dropped.
 */
export const RING_RECORDS = { md: 1 << 16, er: 1 << 12, om: 1 << 10, fills: 1 << 12, latency: 1 << 14 } as const;

export const WORKER_NAMES = ['market-data', 'order-book', 'inference'] as const;
export type WorkerName = (typeof WORKER_NAMES)[number];
export const HEARTBEAT_INDEX: Record<WorkerName, number> = { 'market-data': CB_HB_MD, 'order-book': CB_HB_OB, inference: CB_HB_INF };

/** Fault injection for tests: a worker whose index is requested here stops heartbeating. */
export function checkStallFault(control: Int32Array, name: WorkerName): void {
  if (Atomics.load(control, CB_FAULT_STALL) !== WORKER_NAMES.indexOf(name) + 1) return;
  Atomics.store(control, CB_FAULT_STALL, 0);
  for (;;) {
    /* stalled on purpose: no heartbeat until the supervisor terminates this thread */
  }
}

export function allocateLayout(symbols: { symbol: string; root: string }[]): SharedLayout {
  return {
    control: new SharedArrayBuffer(CB_INTS * 4),
    symbols: symbols.map(({ symbol, root }) => {
      const risk = new SharedArrayBuffer(RISK_STATE_FIELDS * 8);
      RiskManager.initState(new Float64Array(risk));
      return {
        symbol,
        root,
        md: RecordRing.memory(MD_STRIDE, RING_RECORDS.md, true),
        er: RecordRing.memory(ER_STRIDE, RING_RECORDS.er, true),
        om: RecordRing.memory(OM_STRIDE, RING_RECORDS.om, true),
        fills: RecordRing.memory(FR_STRIDE, RING_RECORDS.fills, true),
        latEngine: RecordRing.memory(LAT_STRIDE, RING_RECORDS.latency, true),
        latInference: RecordRing.memory(LAT_STRIDE, RING_RECORDS.latency, true),
        snapshot: Seqlock.memory(S.SIZE),
        features: Seqlock.memory(FT_FIELDS),
        prediction: Seqlock.memory(PR_FIELDS),
        portfolio: new SharedArrayBuffer(Portfolio.bytes(MAX_LOTS)),
        risk,
        counters: new SharedArrayBuffer(CT_FIELDS * 8),
        journal: new SharedArrayBuffer(FillJournal.bytes(MAX_LOTS, RISK_STATE_FIELDS + CT_FIELDS)),
        strategyState: new SharedArrayBuffer(MAX_STRATEGY_STATE * 8),
      };
    }),
  };
}

/** Wakes a thread blocked in Atomics.wait on control[index]. */
export function wake(control: Int32Array, index: number): void {
  Atomics.add(control, index, 1);
  Atomics.notify(control, index);
}
