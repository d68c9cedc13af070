// Strategies in session jobs: a job names its strategy and content hash, never a file (a path of
// the submitter's machine means nothing here, and code never travels through Redis). Each worker
// resolves the name in its own registry (strategies it loaded at start with --strategy-file or
// [strategy] files) and fails the job at once when the name is missing or the hash differs:
// another attempt on the same worker would fail the same way.

import { hostname } from 'node:os';
import { UnrecoverableError } from 'bullmq';
import type { SessionSpec } from '../backtest/session-spec.ts';
import { strategyByName } from '../strategy/registry.ts';

/** The spec as a job carries it: the strategy by name and hash only. */
export function toStrategyRef(spec: SessionSpec): SessionSpec {
  return spec.strategy.file === null ? spec : { ...spec, strategy: { ...spec.strategy, file: null } };
}

/** The spec with its strategy resolved in this worker's registry; fails naming what differs. */
export function fromStrategyRef(spec: SessionSpec): SessionSpec {
  const { name, hash } = spec.strategy;
  const where = `worker ${hostname()} (pid ${process.pid})`;
  const r = strategyByName(name);
  if (!r) throw new UnrecoverableError(`strategy '${name}' is not loaded on ${where}: start the worker with --strategy-file naming its file`);
  if (r.hash !== hash) {
    throw new UnrecoverableError(
      `strategy '${name}' on ${where} (${r.file ?? 'built-in'}, hash ${r.hash.slice(0, 12)}) is not the submitter's (hash ` +
        `${hash.slice(0, 12)}): load the same version of the file on both`,
    );
  }
  return { ...spec, strategy: { ...spec.strategy, file: r.file } };
}
