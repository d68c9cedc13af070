// Piscina task: runs one backtest session on this pool thread and returns its result. A strategy
// from a file is compiled in this thread the first time a session names it (and checked against
// the run's content hash); the built-ins are already registered.

import { runSession } from '../src/backtest/session.ts';
import type { SessionResult } from '../src/backtest/session-spec.ts';
import type { BacktestTask } from '../src/backtest/run.ts';
import { resolveStrategy } from '../src/strategy/load.ts';

export default async function backtestTask(task: BacktestTask): Promise<SessionResult> {
  const port = task.port;
  try {
    const s = task.spec.strategy;
    const strategyDef = await resolveStrategy(s.name, s.hash, s.file);
    return runSession(task.spec, { strategyDef, onProgress: port ? (f, events) => port.postMessage([f, events]) : undefined });
  } finally {
    port?.close();
  }
}
