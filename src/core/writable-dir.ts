// Makes sure a directory exists and can be written, or says why not: the engine's storage is
// opened before anything else starts, so a bad data_dir is one clear error at start, not a hang.

import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

export class StorageError extends Error {}

/**
 * Creates `dir` (and missing parents) and proves it writable with a probe file. Parents are
 * created one at a time: Node's recursive mkdir can loop forever on filesystems such as procfs.
 */
export async function ensureWritableDir(dir: string): Promise<void> {
  const target = resolve(dir);
  const missing: string[] = [];
  try {
    for (let d = target; ; d = dirname(d)) {
      const st = await stat(d).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return null;
        throw e;
      });
      if (st) {
        if (!st.isDirectory()) throw Object.assign(new Error(`${d} is not a directory`), { code: 'ENOTDIR' });
        break;
      }
      missing.push(d);
      if (dirname(d) === d) break;
    }
    for (const d of missing.reverse()) await mkdir(d);
    const probe = join(target, `.write-probe-${process.pid}`);
    await writeFile(probe, '');
    await unlink(probe);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // Node's messages start with their code ("ENOENT: no such file ..."); ours do not.
    const why = err.code && !err.message.startsWith(err.code) ? `${err.code}: ${err.message}` : err.message;
    throw new StorageError(`${target} cannot be used as a writable directory (${why})`);
  }
}
