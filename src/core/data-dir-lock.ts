// One engine server per data_dir: <data_dir>/engine.lock, created exclusively (O_EXCL) before the
// server touches anything else there. A second server on the same directory would otherwise
// recover the live one's journal (its running runs marked interrupted, its temp files deleted).
//
// The file holds the holder's pid, host name and, on Linux, its process start time (from
// /proc/<pid>/stat), and the holder touches it every HEARTBEAT_MS. A lock is stale, and taken
// over, when its holder is gone:
// - same host: the pid does not exist, is our own (a container restarted as the same pid), or now
//   belongs to another process (a different start time);
// - another host (a container recreated with a new name, or a shared volume): the heartbeat is
//   older than STALE_AFTER_MS, since that host's pids cannot be checked from here.
// Node has no flock(2), and a maintained lock-file package (proper-lockfile) judges staleness by
// mtime alone, which cannot name a live holder's pid nor free a dead one's lock at once; hence
// these few lines. The lock is advisory: it binds engine servers, not other programs.

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeSync, linkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureWritableDir } from './writable-dir.ts';

export const LOCK_FILE = 'engine.lock';
const HEARTBEAT_MS = 10_000;
const STALE_AFTER_MS = 3 * HEARTBEAT_MS;

interface Holder {
  pid: number;
  host: string;
  /** /proc/<pid>/stat start time (clock ticks since boot), null where /proc is absent. */
  start: string | null;
  since: string;
}

export class DataDirLocked extends Error {
  override name = 'DataDirLocked';
  constructor(
    readonly dir: string,
    readonly holder: Holder,
  ) {
    super(
      `data_dir = ${JSON.stringify(dir)} is locked by another engine (pid ` +
        `${holder.pid}${holder.host === hostname() ? '' : ` on host ${holder.host}`}, since ${holder.since}; ${join(dir, LOCK_FILE)}): stop ` +
        `it, or give this one another data_dir`,
    );
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Removes the lock file (idempotent). */
  release(): void;
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces). */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}

function readHolder(path: string): Holder | null {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as Holder;
    return Number.isInteger(h.pid) && h.pid > 0 && typeof h.host === 'string' ? h : null;
  } catch {
    return null;
  }
}

function alive(h: Holder | null, path: string): boolean {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return false; // gone meanwhile
  }
  const fresh = Date.now() - mtimeMs < STALE_AFTER_MS;
  // Unreadable: a holder still writing it (fresh) or a torn write long ago.
  if (!h) return fresh;
  if (h.host !== hostname()) return fresh;
  if (h.pid === process.pid || !pidExists(h.pid)) return false;
  const start = processStart(h.pid);
  return h.start === null || start === null || start === h.start;
}

function create(path: string, me: Holder): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, `${JSON.stringify(me)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Takes the lock on `dir` (created if missing, see ensureWritableDir), or throws DataDirLocked naming the holder. Other
 * errors (the directory cannot be made or written) are thrown as they are.
 */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const abs = resolve(dir);
  await ensureWritableDir(abs);
  const path = join(abs, LOCK_FILE);
  const me: Holder = { pid: process.pid, host: hostname(), start: processStart(process.pid), since: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    if (create(path, me)) break;
    const holder = readHolder(path);
    if (alive(holder, path) || attempt >= 3) throw new DataDirLocked(abs, holder ?? { pid: 0, host: '?', start: null, since: '?' });
    // Stale: move it aside (atomic) and check that what moved is what was judged, not a lock
    // another starter made meanwhile; if it is not, put that one back.
    const aside = `${path}.stale-${process.pid}`;
    try {
      renameSync(path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    const moved = readHolder(aside);
    if (moved && holder && (moved.pid !== holder.pid || moved.since !== holder.since)) {
      try {
        linkSync(aside, path);
      } catch {
        // a third starter holds it now
      }
    }
    unlinkSync(aside);
  }
  const timer = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // removed by hand: nothing to refresh (a restart will lock again)
    }
  }, HEARTBEAT_MS);
  timer.unref();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(timer);
    process.off('exit', release);
    try {
      if (readHolder(path)?.pid === process.pid) unlinkSync(path);
    } catch {
      // already gone
    }
  };
  process.on('exit', release);
  return { path, release };
}
