// Tick-to-trade across threads, in simulation mode: the real SimulationRuntime (market-data,
// order-book and inference workers over SharedArrayBuffer rings), paced to the wall clock at a
// raised simulation.speed, with the model. The figures are the runtime's own tick_to_trade
// samples (order-book worker: from the moment it could first act on an event, i.e. published by
// the market-data thread and due at its receive time, to its order message published on the
// ring), collected through drainLatency() for the whole run after a warm-up, and the runtime's
// own windowed summary from state(). Two idle policies: spinning (spinUs > 0: an idle worker
// spins that long before Atomics.wait) and blocking (spinUs = 0: straight to Atomics.wait, so
// every wake-up pays the futex round trip). The process CPU used per wall second is reported too:
// spinning buys latency with CPU.

import pino from 'pino';
import type { EngineConfig } from '../src/config/schema.ts';
import { loadModel } from '../src/ml/model.ts';
import { modelDir } from '../src/backtest/request.ts';
import { SimulationRuntime } from '../src/runtime/simulation.ts';
import type { LatencySummary } from '../src/runtime/view.ts';
import { loadavg, percentiles, sleep, type Percentiles } from './util.ts';

export interface CrossThreadRun {
  spinUs: number;
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
  includes: string;
}

async function runOnce(config: EngineConfig, spinUs: number, seconds: number, warmupSeconds: number): Promise<CrossThreadRun> {
  const m = loadModel(modelDir(config));
  const model = m.ok ? { file: m.model, error: null } : { file: null, error: m.error };
  const rt = new SimulationRuntime({ config, logger: pino({ level: 'silent' }), model, spinUs });
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
      spinUs,
      policy: spinUs > 0 ? `spin ${spinUs} µs, then Atomics.wait` : 'Atomics.wait at once (blocking)',
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

export async function benchCrossThread(config: EngineConfig, o: { seconds: number; warmupSeconds: number; speed: number; spins: number[] }): Promise<CrossThreadBench> {
  const cfg = structuredClone(config);
  cfg.simulation.speed = o.speed;
  cfg.strategy.use_ml = true;
  const runs: CrossThreadRun[] = [];
  for (const spin of o.spins) runs.push(await runOnce(cfg, spin, o.seconds, o.warmupSeconds));
  return {
    runs,
    includes:
      'order-book worker: from max(event published by the market-data thread, event due at its receive time) to the order message published; ' +
      'includes the ring hop and wake-up (spin or futex), the engine call and the publish; the model runs in the inference worker',
  };
}
