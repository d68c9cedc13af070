// A row per strategy (issue 42, §6): the built-ins (the market maker first) and every file of
// examples/strategies/, over the throughput section's recorded session with the bench's config.
// Each strategy runs in a fresh worker thread of its own (the strategy check's thread,
// workers/strategy-check.ts), as a backtest pool thread runs one strategy: two untimed sessions
// to warm the code up, then `rounds` timed ones. Reported: CPU ns per event (process.cpuUsage,
// which waiting for a core does not count, so it moves less with the load of a shared machine;
// the bench's main thread waits meanwhile), the wall ns per event, both medians of the rounds,
// and the share of events the engine took on the quiet path (a standing promise's effect). The strategies run one after the other, not alternated: compare rows of one
// run, on a quiet machine.

import { join } from 'node:path';
import type { EngineConfig } from '../src/config/schema.ts';
import { EV_STRIDE } from '../src/core/events.ts';
import { packageRoot } from '../src/core/paths.ts';
import { inFreshThread } from '../src/strategy-check/check.ts';
import { registeredStrategies } from '../src/strategy/registry.ts';
import { loadStrategies } from '../src/strategy/load.ts';
import { benchRequest, type Recording } from './stream.ts';
import { median, note } from './util.ts';

export interface StrategyRow {
  name: string;
  /** The file it was loaded from (null: built-in). */
  file: string | null;
  events: number;
  /** CPU ns per event: median of the rounds, and each round. */
  nsPerEvent: number;
  rounds: number[];
  /** Wall ns per event, median of the rounds. */
  wallNsPerEvent: number;
  /** Events taken on the quiet path / events. */
  quietShare: number;
  ordersSent: number;
  fills: number;
  /** GCs during the last round. */
  gcs: number;
}

export interface StrategiesBench {
  session: string;
  rows: StrategyRow[];
}

export async function benchStrategies(config: EngineConfig, rec: Recording, o: { rounds: number }): Promise<StrategiesBench> {
  const loaded = await loadStrategies([join(packageRoot(), 'examples', 'strategies')]);
  const events = new Float64Array(new SharedArrayBuffer(rec.count * EV_STRIDE * 8));
  events.set(rec.events.subarray(0, rec.count * EV_STRIDE));
  const rows: StrategyRow[] = [];
  let session = '';
  const builtins = registeredStrategies().filter((r) => r.file === null);
  for (const name of [...builtins.map((r) => r.def.name), ...loaded.map((r) => r.def.name)]) {
    note(`strategies: ${name}, 2 + ${o.rounds} sessions of ${rec.count.toLocaleString('en-US')} events in a fresh thread`);
    const spec = benchRequest(config, { useML: false, strategy: name }).specs[0];
    session = `${spec.root} ${spec.date} seed ${spec.seed}`;
    const reply = await inFreshThread({ spec, events, count: rec.count, plan: { kind: 'repeat', warmup: 2, times: o.rounds } });
    if (reply.error !== null) throw new Error(`strategies: ${name}: ${reply.error}`);
    const timed = reply.runs.slice(2);
    const last = timed[timed.length - 1];
    const rounds = timed.map((r) => r.cpuNs / r.events);
    rows.push({
      name,
      file: spec.strategy.file,
      events: last.events,
      nsPerEvent: median(rounds),
      rounds,
      wallNsPerEvent: median(timed.map((r) => r.wallNs / r.events)),
      quietShare: last.quietEvents / last.events,
      ordersSent: last.ordersSent,
      fills: last.fills,
      gcs: last.gcs,
    });
  }
  return { session, rows };
}
