// Tick-to-trade across threads, in simulation mode: the real SimulationRuntime (market-data,
// order-book and inference workers over SharedArrayBuffer rings), paced to the wall clock at a
// raised simulation.speed, with the model. The figures are the runtime's own tick_to_trade
// samples (order-book worker: from the moment it could first act on an event, i.e. published by
// the market-data thread and due at its receive time, to its order message published on the
// ring), collected through drainLatency() for the whole run after a warm-up, and the runtime's
// own windowed summary from state(). Two idle policies: spinning (spinUs > 0: an idle worker
// spins that long before Atomics.wait) and blocking (spinUs = 0: straight to Atomics.wait, so
// every wake-up pays the futex round trip). The process CPU used per wall second is reported too:
// spinning buys latency with CPU. Two peers are measured in the same run, the machine's floors
// at its current load: for the blocking policies, one blocking hop (a bare worker blocked in
// Atomics.wait, woken by Atomics.notify from this thread: from the store before the notify to
// the worker running); for busy-poll, a bare thread that spins on the clock (spin-floor.ts: how
// late a thread that never sleeps notices an instant, because the host takes its vCPU away).

import { Worker } from 'node:worker_threads';
import pino from 'pino';
import type { EngineConfig } from '../src/config/schema.ts';
import { loadRootModel } from '../src/ml/inference/model-store.ts';
import { SimulationRuntime } from '../src/runtime/simulation.ts';
import { wallMs } from '../src/runtime/wall-clock.ts';
import type { EngineIdlePolicy } from '../src/runtime/idle-policy.ts';
import type { LatencySummary } from '../src/runtime/view.ts';
import { measureSpinFloor, type SpinFloor } from './spin-floor.ts';
import { loadavg, percentiles, sleep, type Percentiles } from './util.ts';

export interface CrossThreadRun {
  /** `[simulation] engine_idle` of the run; spin runs give their spin. */
  idle: EngineIdlePolicy;
  /** µs the engine thread spins before an input is due (null: busy_poll, it never sleeps). */
  spinUs: number | null;
  policy: string;
  seconds: number;
  warmupSeconds: number;
  speed: number;
  samplesUs: Percentiles;
  runtimeWindow: LatencySummary | null;
  events: number;
  orders: number;
  cpuCoresUsed: number;
  loadavg: number[];
}

export interface CrossThreadBench {
  runs: CrossThreadRun[];
  /** Peer: Atomics.notify -> a blocked bare worker running, µs. */
  bareWakeUs: Percentiles;
  /** Peer of busy-poll: a bare spinning thread, measured just before the busy-poll run. */
  spinFloor: SpinFloor;
  includes: string;
}

/** The bare hop: the worker records how long after the stamp it was running again. */
const WAKE_WORKER = `
const { workerData } = require('node:worker_threads');
const c = new Int32Array(workerData, 0, 4);
const t = new Float64Array(workerData, 16, 2);
let seen = 0;
while (Atomics.load(c, 2) === 0) {
  Atomics.wait(c, 0, seen);
  const h = process.hrtime(); // the simulation's time base (src/runtime/wall-clock.ts)
  const now = h[0] * 1e3 + h[1] / 1e6;
  seen = Atomics.load(c, 0);
  t[1] = now - t[0];
  Atomics.store(c, 1, seen);
}`;

async function bareWake(samples: number): Promise<Percentiles> {
  const sab = new SharedArrayBuffer(32);
  const c = new Int32Array(sab, 0, 4);
  const t = new Float64Array(sab, 16, 2);
  const w = new Worker(WAKE_WORKER, { eval: true, workerData: sab });
  const us: number[] = [];
  try {
    await sleep(200);
    for (let i = 0; i < samples; i++) {
      await sleep(2); // the worker is blocked again, as the engine thread is between events
      t[0] = wallMs();
      const seq = Atomics.add(c, 0, 1) + 1;
      Atomics.notify(c, 0);
      const until = performance.now() + 1000;
      while (Atomics.load(c, 1) !== seq && performance.now() < until) {
        /* wait for the worker's answer */
      }
      if (Atomics.load(c, 1) === seq) us.push(t[1] * 1000);
    }
  } finally {
    Atomics.store(c, 2, 1);
    Atomics.add(c, 0, 1);
    Atomics.notify(c, 0);
    await w.terminate();
  }
  return percentiles(us);
}

/** The policies measured: the one that never sleeps, the default's spin (longer here), and blocking. */
export const CROSS_THREAD_POLICIES: readonly { idle: EngineIdlePolicy; spinUs: number }[] = [
  { idle: 'busy_poll', spinUs: Infinity },
  { idle: 'spin', spinUs: 100 },
  { idle: 'block', spinUs: 0 },
];

function describe(idle: EngineIdlePolicy, spinUs: number): string {
  if (idle === 'busy_poll') return 'busy-poll: never sleeps, order path warmed while idle';
  if (idle === 'block') return 'Atomics.wait until due or woken (blocking), no warm-up';
  return `sleep to ${spinUs + 50} µs before due, warm the order path, spin the rest`;
}

async function runOnce(config: EngineConfig, idle: EngineIdlePolicy, spinUs: number, seconds: number, warmupSeconds: number): Promise<CrossThreadRun> {
  const models = (root: string) => {
    const m = loadRootModel(config, root);
    return m.ok ? { file: m.model, error: null } : { file: null, error: m.error };
  };
  const rt = new SimulationRuntime({ config, logger: pino({ level: 'silent' }), models, spinUs });
  const symbol = config.trading.symbols[0];
  const samples: number[] = [];
  let collecting = false;
  const drain = () =>
    rt.drainLatency((stage, _sym, sec) => {
      if (collecting && stage === 'tick_to_trade') samples.push(sec * 1e6);
    });
  rt.start();
  try {
    const t0 = Date.now();
    while (Date.now() - t0 < warmupSeconds * 1000) {
      await sleep(250);
      drain();
    }
    collecting = true;
    const ev0 = rt.state(symbol)?.counters.events ?? 0;
    const or0 = rt.state(symbol)?.counters.orders ?? 0;
    const cpu0 = process.cpuUsage();
    const w0 = performance.now();
    while (performance.now() - w0 < seconds * 1000) {
      await sleep(250);
      drain();
    }
    const cpu = process.cpuUsage(cpu0);
    const wall = (performance.now() - w0) / 1000;
    const st = rt.state(symbol);
    return {
      idle,
      spinUs: Number.isFinite(spinUs) ? spinUs : null,
      policy: describe(idle, spinUs),
      seconds: wall,
      warmupSeconds,
      speed: config.simulation.speed,
      samplesUs: percentiles(samples),
      runtimeWindow: st?.latency.tick_to_trade ?? null,
      events: (st?.counters.events ?? 0) - ev0,
      orders: (st?.counters.orders ?? 0) - or0,
      cpuCoresUsed: (cpu.user + cpu.system) / 1e6 / wall,
      loadavg: loadavg(),
    };
  } finally {
    await rt.stop();
  }
}

export async function benchCrossThread(config: EngineConfig, o: { seconds: number; warmupSeconds: number; speed: number }): Promise<CrossThreadBench> {
  const cfg = structuredClone(config);
  cfg.simulation.speed = o.speed;
  cfg.strategy.use_ml = true;
  const runs: CrossThreadRun[] = [];
  let spinFloor: SpinFloor | null = null;
  for (const p of CROSS_THREAD_POLICIES) {
    // The host's jitter drifts within minutes: its floor is taken right before the run it bounds.
    if (p.idle === 'busy_poll') spinFloor = await measureSpinFloor(o.seconds >= 10 ? 5 : 1);
    runs.push(await runOnce(cfg, p.idle, p.spinUs, o.seconds, o.warmupSeconds));
  }
  return {
    runs,
    spinFloor: spinFloor!,
    bareWakeUs: await bareWake(o.seconds >= 10 ? 1000 : 200),
    includes:
      'order-book worker: from max(event published by the market-data thread, event due at its receive time) to the order message published; ' +
      'the market-data thread publishes events up to 2 ms (wall) ahead of their receive time, so the engine usually has the event before it is due ' +
      'and the figure is its own wake-up (spin or timed wait) to the due time, the engine call and the publish; the model runs in the inference worker; ' +
      'spinning policies run the order path on a shadow engine while idle (OrderPathWarmer), blocking does not',
  };
}
