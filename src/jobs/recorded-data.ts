// Recorded data in session jobs: a job names its DBN files relative to `<data_dir>/market/` (the
// dataset name and the file in it), never a path of the engine's machine; each worker resolves
// that name under its own `<data_dir>/market/`. A worker without the file fails the job at once
// (UnrecoverableError: another attempt on the same worker would fail the same way).

import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { UnrecoverableError } from 'bullmq';
import type { SessionSpec } from '../backtest/session-spec.ts';

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

const inside = (root: string, p: string) => p === root || p.startsWith(root + sep);

/** The spec as a job carries it: its replayed files named relative to the engine's market dir. */
export function toDatasetRef(spec: SessionSpec, marketDir: string): SessionSpec {
  if (!spec.replay) return spec;
  const root = realOrNull(marketDir);
  const files = spec.replay.files.map((f) => {
    const file = realOrNull(f);
    if (root === null || file === null || !inside(root, file)) {
      throw new Error(
        `recorded data ${f} is not under ${marketDir}: queue workers find recorded data by dataset name under their own <data_dir>/market/, ` +
          `so put it there and name it`,
      );
    }
    return relative(root, file).split(sep).join('/');
  });
  return { ...spec, replay: { ...spec.replay, files } };
}

/** The spec with its dataset names resolved under this worker's market dir; fails naming both. */
export function fromDatasetRef(spec: SessionSpec, marketDir: string): SessionSpec {
  if (!spec.replay) return spec;
  const where = `${marketDir} of worker ${hostname()} (pid ${process.pid})`;
  const root = realOrNull(marketDir);
  const files = spec.replay.files.map((name) => {
    if (isAbsolute(name) || root === null) throw new UnrecoverableError(`recorded data '${name}' is not on this worker: no such dataset under ${where}`);
    const file = realOrNull(resolve(root, name));
    if (file === null) throw new UnrecoverableError(`recorded data '${name}' is not on this worker: no such dataset under ${where}`);
    if (!inside(root, file)) throw new UnrecoverableError(`recorded data '${name}' resolves outside ${where}`);
    return file;
  });
  return { ...spec, replay: { ...spec.replay, files } };
}
