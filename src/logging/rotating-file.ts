// A size-bounded, rotating log file: a pino destination (anything with write(string)) that appends
// to `<dir>/engine.log` and, when the next record would push it past `maxBytes`, renames
//   engine.log.(K-1) -> engine.log.K, ..., engine.log.1 -> engine.log.2, engine.log -> engine.log.1
// and starts a fresh engine.log. At most K rotated files are kept (the oldest is overwritten), so
// the directory never holds more than (K + 1) * maxBytes, plus the size of any single record that
// is by itself larger than maxBytes (such a record is written whole, alone in a fresh file: a
// JSON line is never split across files).
//
// Writes are synchronous (fs.writeSync), like the engine's stdout destination: a record is on
// disk (in the page cache) when log.info() returns, nothing is lost on a crash or process.exit(),
// and rotation cannot race with a pending write. Logging happens on the main thread only, at a
// low rate; the hot path never logs.
//
// A log file must never take the engine down: write(), rotation and (re)opening never throw.
// A failed write drops that record, reports the error once through `onError` (again only after
// a write has succeeded in between), counts it in `droppedRecords`, and the next write retries.
//
// Environment (see logFileSettings): LOG_DIR turns the file on; LOG_MAX_SIZE_MB (default 10)
// and LOG_MAX_FILES (default 5) bound it.

import { closeSync, existsSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface RotatingFileOptions {
  /** Path of the active log file; rotated files are `${file}.1` (newest) .. `${file}.${maxFiles}`. */
  file: string;
  /** Size bound of one file in bytes (> 0). */
  maxBytes: number;
  /** Rotated files kept (integer >= 0; 0 = the active file is simply started over). */
  maxFiles: number;
  /** Called with a write/rotate/open error (once per run of consecutive failures). */
  onError?: (err: Error) => void;
}

export class RotatingFileStream {
  readonly file: string;
  readonly maxBytes: number;
  readonly maxFiles: number;
  private readonly onError: ((err: Error) => void) | undefined;
  private fd = -1;
  private bytes = 0;
  private failing = false;
  private closed = false;
  /** Rotations done since the stream was opened. */
  rotations = 0;
  /** Records dropped because a write failed. */
  droppedRecords = 0;

  /** Opens (creating the directory, appending to an existing file). Throws if it cannot open. */
  constructor(opts: RotatingFileOptions) {
    if (!(Number.isFinite(opts.maxBytes) && opts.maxBytes > 0)) throw new RangeError(`maxBytes must be > 0, got ${opts.maxBytes}`);
    if (!(Number.isInteger(opts.maxFiles) && opts.maxFiles >= 0)) throw new RangeError(`maxFiles must be an integer >= 0, got ${opts.maxFiles}`);
    this.file = resolve(opts.file);
    this.maxBytes = opts.maxBytes;
    this.maxFiles = opts.maxFiles;
    this.onError = opts.onError;
    ensureDir(dirname(this.file));
    this.open();
  }

  /** Bytes in the active file (including what was there when it was opened). */
  get size(): number {
    return this.bytes;
  }

  /** Path of rotated file `n` (1 = newest). */
  rotatedPath(n: number): string {
    return `${this.file}.${n}`;
  }

  /** Appends one record (pino hands over one complete JSON line per call). Never throws. */
  write(chunk: string | Uint8Array): boolean {
    if (this.closed) return false;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (buf.length === 0) return true;
    try {
      if (this.fd < 0) this.open();
      if (this.bytes > 0 && this.bytes + buf.length > this.maxBytes) this.rotate();
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
      this.bytes += buf.length;
      this.failing = false;
      return true;
    } catch (e) {
      this.fail(e);
      return false;
    }
  }

  /**
   * Closes the active file, shifts the rotated files up by one (dropping the oldest) and opens
   * a fresh active file. Called by write(); public for tests and an operator's SIGHUP, if wanted.
   */
  rotate(): void {
    this.closeFd();
    if (this.maxFiles === 0) {
      rmSync(this.file, { force: true });
    } else {
      for (let i = this.maxFiles - 1; i >= 1; i--) {
        try {
          renameSync(this.rotatedPath(i), this.rotatedPath(i + 1)); // replaces the oldest
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
      }
      try {
        renameSync(this.file, this.rotatedPath(1));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    this.rotations++;
    this.open();
  }

  /** Writes are synchronous: nothing is buffered. Present because pino calls it on flush. */
  flushSync(): void {}

  /** Closes the file; later writes are ignored. Idempotent. */
  end(): void {
    this.closed = true;
    this.closeFd();
  }

  private open(): void {
    this.fd = openSync(this.file, 'a', 0o640);
    this.bytes = fstatSync(this.fd).size;
  }

  private closeFd(): void {
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    try {
      closeSync(fd);
    } catch {
      // already gone: nothing to do
    }
  }

  private fail(e: unknown): void {
    this.droppedRecords++;
    // The fd may be stale (file system gone, rotation half done): reopen on the next write.
    this.closeFd();
    if (this.failing) return;
    this.failing = true;
    const err = e instanceof Error ? e : new Error(String(e));
    try {
      this.onError?.(err);
    } catch {
      // a failing error handler must not break logging either
    }
  }
}

/**
 * mkdir -p, one level at a time. Not mkdirSync({ recursive: true }): on Node 20 that spins
 * forever for a path under /proc (e.g. LOG_DIR=/proc/x), and a log directory must never hang
 * the engine's start.
 */
function ensureDir(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; !existsSync(d); ) {
    missing.push(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i]);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

export const LOG_FILE_NAME = 'engine.log';
export const DEFAULT_LOG_MAX_SIZE_MB = 10;
export const DEFAULT_LOG_MAX_FILES = 5;

export interface LogFileSettings {
  file: string;
  maxBytes: number;
  maxFiles: number;
}

/**
 * Reads the log-file settings from the environment:
 *   LOG_DIR          directory of the log file; unset or empty = no log file (stdout only)
 *   LOG_MAX_SIZE_MB  size bound of one file in MiB (number > 0, default 10)
 *   LOG_MAX_FILES    rotated files kept (integer >= 0, default 5)
 * An invalid size or count falls back to its default with a warning (the caller logs it).
 */
export function logFileSettings(env: NodeJS.ProcessEnv, name = LOG_FILE_NAME): { settings: LogFileSettings | null; warnings: string[] } {
  const warnings: string[] = [];
  const dir = env.LOG_DIR?.trim();
  if (dir === undefined || dir === '') return { settings: null, warnings };

  let sizeMb = DEFAULT_LOG_MAX_SIZE_MB;
  const rawSize = env.LOG_MAX_SIZE_MB?.trim();
  if (rawSize !== undefined && rawSize !== '') {
    const v = Number(rawSize);
    if (Number.isFinite(v) && v > 0) sizeMb = v;
    else
      warnings.push(
        `invalid LOG_MAX_SIZE_MB value ${JSON.stringify(env.LOG_MAX_SIZE_MB)}: expected a number of MiB > 0, e.g. 10; using ${DEFAULT_LOG_MAX_SIZE_MB}`,
      );
  }
  let maxFiles = DEFAULT_LOG_MAX_FILES;
  const rawFiles = env.LOG_MAX_FILES?.trim();
  if (rawFiles !== undefined && rawFiles !== '') {
    const v = Number(rawFiles);
    if (/^\d+$/.test(rawFiles) && Number.isSafeInteger(v)) maxFiles = v;
    else warnings.push(`invalid LOG_MAX_FILES value ${JSON.stringify(env.LOG_MAX_FILES)}: expected an integer >= 0, e.g. 5; using ${DEFAULT_LOG_MAX_FILES}`);
  }
  return { settings: { file: join(resolve(dir), name), maxBytes: Math.max(1, Math.round(sizeMb * 1024 * 1024)), maxFiles }, warnings };
}

/**
 * Opens the rotating log file named by the environment, or returns null when LOG_DIR is unset.
 * A directory or file that cannot be opened is a warning, not an error: logging then continues
 * on stdout only. `onError` receives later write errors (default: one line on stderr).
 */
export function openLogFile(
  env: NodeJS.ProcessEnv,
  opts: { name?: string; onError?: (err: Error) => void } = {},
): { stream: RotatingFileStream | null; warnings: string[] } {
  const { settings, warnings } = logFileSettings(env, opts.name);
  if (settings === null) return { stream: null, warnings };
  const onError =
    opts.onError ?? ((err: Error) => process.stderr.write(`log file ${settings.file}: ${err.message} (records are dropped until a write succeeds)\n`));
  try {
    return { stream: new RotatingFileStream({ ...settings, onError }), warnings };
  } catch (e) {
    warnings.push(`cannot open log file ${settings.file} (LOG_DIR=${JSON.stringify(env.LOG_DIR)}): ${(e as Error).message}; logging to stdout only`);
    return { stream: null, warnings };
  }
}
