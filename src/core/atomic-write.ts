// A whole file written so that a reader, a crash or a power cut sees the old version or the new
// one, never half: a temp file beside it, flushed to disk (fsync, writeFile's `flush`), renamed
// over the target, then the directory flushed so the rename itself is on disk. The journals write
// through these: an acknowledged run's record must be on disk before the 202 (issue 46), and the
// cost, two fsyncs per record (a run writes two or three records), is small next to a backtest.

import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

const tmpOf = (file: string) => `${file}.${process.pid}.tmp`;

/** Errors a directory fsync may give where the filesystem cannot flush directories: not a failed write. */
const DIR_SYNC_UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EISDIR', 'EPERM', 'EACCES']);

export async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = tmpOf(file);
  try {
    await writeFile(tmp, text, { flush: true });
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => {});
    throw e;
  }
  let dir;
  try {
    dir = await open(dirname(file), 'r');
    await dir.sync();
  } catch (e) {
    if (!DIR_SYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    await dir?.close();
  }
}

export function writeAtomicSync(file: string, text: string): void {
  const tmp = tmpOf(file);
  try {
    writeFileSync(tmp, text, { flush: true });
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  let fd: number | undefined;
  try {
    fd = openSync(dirname(file), 'r');
    fsyncSync(fd);
  } catch (e) {
    if (!DIR_SYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
