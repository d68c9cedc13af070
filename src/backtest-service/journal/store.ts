// The journal's files: one `<id>.jsonl` per run (record.ts), written atomically (temp file +
// rename, fsynced: core/atomic-write.ts), read back on demand.

import { open, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomic } from '../../core/atomic-write.ts';
import { LEGACY_EXT } from './legacy.ts';
import {
  ID_RE,
  MAX_HEADER_BYTES,
  parseIndexLine,
  parseRecordLine,
  RECORD_EXT,
  serializeRecord,
  type BacktestIndexEntry,
  type BacktestRecord,
} from './record.ts';

const TMP_EXT = '.tmp';

/** A record larger than `[storage] max_record_bytes`: it is not written. */
export class RecordTooLargeError extends Error {
  override name = 'RecordTooLargeError';
}

/** What a scan of the directory found. */
export interface ScanResult {
  entries: BacktestIndexEntry[];
  /** Files that are not readable records (moved to quarantine by the caller). */
  corrupt: string[];
  /** Leftover temp files of interrupted writes (removed). */
  tempRemoved: number;
  /** Files of the previous format (`<id>.json`), for migration. */
  legacy: string[];
}

export class JournalStore {
  constructor(
    readonly dir: string,
    private readonly maxRecordBytes: number,
  ) {}

  fileOf(id: string): string {
    return join(this.dir, `${id}${RECORD_EXT}`);
  }

  /** Writes a record atomically and returns its index entry. Throws on any I/O error or when too large. */
  async write(rec: BacktestRecord): Promise<BacktestIndexEntry> {
    const { text, entry } = serializeRecord(rec);
    if (entry.bytes > this.maxRecordBytes) {
      throw new RecordTooLargeError(`the record of ${rec.id} is ${entry.bytes} bytes, over [storage] max_record_bytes = ${this.maxRecordBytes}`);
    }
    await writeAtomic(this.fileOf(rec.id), text);
    return entry;
  }

  /** The whole record of a run, or null when its file is missing or unreadable. */
  async read(id: string): Promise<BacktestRecord | null> {
    let text: string;
    try {
      text = await readFile(this.fileOf(id), 'utf8');
    } catch {
      return null;
    }
    const nl = text.indexOf('\n');
    return nl < 0 ? null : parseRecordLine(text.slice(nl + 1), id);
  }

  /** Deletes a run's file (a missing file is not an error). */
  async remove(id: string): Promise<void> {
    await unlink(this.fileOf(id)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }

  /** Reads the index line of every record, removes leftover temp files, lists the corrupt files. */
  async scan(concurrency = 32): Promise<ScanResult> {
    const names = await readdir(this.dir, { withFileTypes: true });
    const out: ScanResult = { entries: [], corrupt: [], tempRemoved: 0, legacy: [] };
    const records: string[] = [];
    for (const d of names) {
      if (!d.isFile()) continue; // quarantine/ and anything a human put here
      if (d.name.endsWith(TMP_EXT)) {
        await unlink(join(this.dir, d.name)).catch(() => {});
        out.tempRemoved++;
      } else if (d.name.endsWith(RECORD_EXT)) records.push(d.name);
      else if (d.name.endsWith(LEGACY_EXT)) out.legacy.push(d.name);
    }
    let next = 0;
    const worker = async () => {
      while (next < records.length) {
        const name = records[next++];
        const entry = await this.readIndexLine(name);
        if (entry) out.entries.push(entry);
        else out.corrupt.push(name);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, records.length) }, worker));
    return out;
  }

  private async readIndexLine(name: string): Promise<BacktestIndexEntry | null> {
    const id = name.slice(0, -RECORD_EXT.length);
    if (!ID_RE.test(id)) return null;
    const fh = await open(join(this.dir, name), 'r');
    try {
      const buf = Buffer.alloc(MAX_HEADER_BYTES);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      const nl = buf.subarray(0, bytesRead).indexOf(10);
      if (nl < 0) return null;
      const entry = parseIndexLine(buf.toString('utf8', 0, nl), id);
      // A truncated file (a torn copy, a full disk outside our atomic write) fails the size check.
      if (entry && entry.bytes !== (await fh.stat()).size) return null;
      // Journaled before the list carried the kill switch: a completed run's record says (read once).
      if (entry && entry.kill_switch_tripped === undefined)
        entry.kill_switch_tripped = entry.status === 'completed' ? ((await this.read(id))?.result?.kill_switch?.tripped ?? null) : null;
      return entry;
    } finally {
      await fh.close();
    }
  }
}
