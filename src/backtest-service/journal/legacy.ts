// Journals written before the index-line format: one `<id>.json` per run holding the whole
// record and the raw request body. At start each is rewritten once as `<id>.jsonl` (the raw
// body dropped, the error bounded); one that is not a run record goes to quarantine.

import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { boundedError, ID_RE, parseRecordLine, type BacktestRecord } from './record.ts';

export const LEGACY_EXT = '.json';

/** The record of a legacy file in today's shape, or null when it is not a run record. */
export async function readLegacy(dir: string, name: string): Promise<BacktestRecord | null> {
  const id = name.slice(0, -LEGACY_EXT.length);
  if (!ID_RE.test(id)) return null;
  const old = parseRecordLine(await readFile(join(dir, name), 'utf8'), id);
  if (!old) return null;
  const error = old.error ? boundedError(String(old.error.code), String(old.error.message)) : null;
  return {
    id,
    status: old.status,
    resolved: old.resolved,
    started_at: old.started_at,
    finished_at: old.finished_at ?? null,
    duration_ms: old.duration_ms ?? null,
    progress: old.progress ?? 0,
    error,
    result: old.result ?? null,
    idempotency: null,
  };
}

export async function removeLegacy(dir: string, name: string): Promise<void> {
  await unlink(join(dir, name));
}
