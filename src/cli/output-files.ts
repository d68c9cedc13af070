// The backtest's output files (--fills, --equity, --report): their format from the extension,
// a check that each can be written BEFORE the run (a typo'd directory must not cost a whole
// backtest and its summary), and the write itself. `-` is stdout.

import { accessSync, constants, statSync, writeFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import type { TableFormat } from '../research/artifacts.ts';

export const STDOUT = '-';

/** The table format of a --fills/--equity path, or an error naming the flag. */
export function tableFormat(flag: string, path: string): TableFormat | string {
  if (path === STDOUT) return 'csv';
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.parquet') return 'parquet';
  return `${flag} ${JSON.stringify(path)}: expected a file name ending in .csv or .parquet, or - for CSV on stdout`;
}

/** tableFormat() for a path the parser already accepted. */
export function acceptedFormat(flag: string, path: string): TableFormat {
  const f = tableFormat(flag, path);
  if (f !== 'csv' && f !== 'parquet') throw new Error(f);
  return f;
}

/** Why `path` cannot be written, naming the flag; undefined when it can. Creates nothing. */
export function unwritableReason(flag: string, path: string): string | undefined {
  if (path === STDOUT) return undefined;
  const full = resolve(path);
  const dir = dirname(full);
  const st = statOrNull(dir);
  if (!st) return `${flag} ${path}: directory ${dir} does not exist`;
  if (!st.isDirectory()) return `${flag} ${path}: ${dir} is not a directory`;
  const file = statOrNull(full);
  if (file?.isDirectory()) return `${flag} ${path}: is a directory`;
  try {
    accessSync(file ? full : dir, constants.W_OK);
  } catch {
    return `${flag} ${path}: ${file ? 'file' : `directory ${dir}`} is not writable`;
  }
  return undefined;
}

function statOrNull(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

let epipeHandled = false;

export function writeOutput(path: string, data: string | Uint8Array): void {
  if (path === STDOUT) {
    // `--fills - | head` closes the pipe early: that is the reader's choice, not a crash.
    if (!epipeHandled) process.stdout.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' ? process.exit(0) : undefined));
    epipeHandled = true;
    process.stdout.write(data);
  } else writeFileSync(path, data);
}
