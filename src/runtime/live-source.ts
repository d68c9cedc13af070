// The live simulation's market source: the synthetic generator, or recorded DBN data
// ([simulation] source = "replay", replay_path) replayed through the same market-data worker,
// paced to the wall clock. Each simulated session k replays recorded session k (cycling through
// the data's days), the records between the simulated session's open and close by time of day.

import { basename } from 'node:path';
import type { EngineConfig } from '../config/schema.ts';
import { L3_QUEUE_MODEL } from '../exchange/queue-model.ts';
import { parseSymbol } from '../market/instruments.ts';
import { planReplay, type ReplayPlan } from '../market/replay/dataset.ts';

/** What the live view says about its market: "synthetic" or "dbn <name>". */
export function liveDataSource(config: EngineConfig): string {
  return config.simulation.source === 'replay' ? `dbn ${basename(config.simulation.replay_path)}` : 'synthetic';
}

/** The recorded sessions replayed for one configured symbol (null: the synthetic market). */
export function liveReplayPlan(config: EngineConfig, symbol: string): ReplayPlan | null {
  const sim = config.simulation;
  if (sim.source !== 'replay') return null;
  return planReplay(sim.replay_path, {
    symbol: parseSymbol(symbol).root,
    regularHoursOnly: sim.regular_hours_only,
    perOrder: config.execution.queue_model === L3_QUEUE_MODEL,
  });
}

/**
 * Why the live simulation cannot run with this config's market (null: it can): replay data
 * that cannot be read or holds no configured root, or l3_fifo without MBO data.
 */
export function liveMarketError(config: EngineConfig): string | null {
  const l3 = config.execution.queue_model === L3_QUEUE_MODEL;
  if (config.simulation.source !== 'replay') {
    return l3
      ? `[execution] queue_model = "${L3_QUEUE_MODEL}" needs order-level (MBO) data: set [simulation] source = "replay" with an MBO ` +
          `replay_path, or use power or risk_averse`
      : null;
  }
  for (const symbol of config.trading.symbols) {
    try {
      const plan = liveReplayPlan(config, symbol)!;
      if (plan.sessions.length === 0) return `[simulation] replay_path ${config.simulation.replay_path}: no session to replay`;
      if (l3 && plan.schema !== 'mbo')
        return (
          `[execution] queue_model = "${L3_QUEUE_MODEL}" needs order-level (MBO) data; [simulation] replay_path ` +
          `${config.simulation.replay_path} is ${plan.schema}`
        );
    } catch (e) {
      return `[simulation] replay_path: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return null;
}
