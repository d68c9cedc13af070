// What every simulation worker receives in workerData, and the pieces they derive from it.

import type { EngineConfig } from '../config/schema.ts';
import { parseClock } from '../market/calendar.ts';
import { configContracts } from '../config/contracts.ts';
import { contractForRoot, type ContractSpec } from '../market/instruments.ts';
import type { SharedLayout } from './layout.ts';
import { SimClock } from './clock.ts';
import { wallMs } from './wall-clock.ts';

export interface WorkerInit {
  layout: SharedLayout;
  config: EngineConfig;
  /** Shared wall-clock origin (ms) of the simulated clock. */
  originMs: number;
  /** Order-book generation this worker serves (0 at start, +1 per engine restart). */
  generation: number;
  /** How many times this worker role has been restarted. */
  restarts: number;
  /** Spin this long (µs) before blocking when idle. */
  spinUs: number;
  /** The content hash of the strategy the main thread loaded: a worker that compiles another refuses to start. */
  strategyHash?: string;
}

export function simClock(init: WorkerInit): SimClock {
  const sim = init.config.simulation;
  return new SimClock(sim.start_date, parseClock(sim.session_start)!, parseClock(sim.session_end)!, sim.speed, init.originMs);
}

/** A root's spec as the config defines it ([contracts.<ROOT>], else built-in; its [market] profile): a worker thread has its own module state. */
export function specOf(root: string, config: EngineConfig): ContractSpec {
  return contractForRoot(root, configContracts(config));
}

/** Busy-waits `us` microseconds. */
export function spinFor(us: number): void {
  const until = wallMs() + us / 1000;
  while (wallMs() < until) {
    /* spin */
  }
}
