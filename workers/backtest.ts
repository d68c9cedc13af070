// Piscina task: runs one backtest session on this pool thread and returns its result.

import { runSession, type SessionResult } from '../src/backtest/session.ts';
import type { BacktestTask } from '../src/backtest/run.ts';

export default function backtestTask(task: BacktestTask): SessionResult {
  const port = task.port;
  try {
    return runSession(task.spec, { onProgress: port ? (f, events) => port.postMessage([f, events]) : undefined });
  } finally {
    port?.close();
  }
}
