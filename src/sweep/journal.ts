// The sweeps' journal, <data_dir>/sweeps: one `<id>.jsonl` per sweep, two JSON lines (a small
// index entry, then the whole sweep), written atomically (temp file, then rename, fsynced). It is bounded
// like the backtest journal and by the same code: retention by count ([sweep] max_kept), bytes and
// age ([storage] max_bytes, max_age_days; retention.ts), a record over [storage] max_record_bytes
// is refused, a file that is not a sweep is quarantined (quarantine/), and the index pages the
// list and holds the Idempotency-Keys (run-index.ts, idempotency.ts). Start-up reads only the
// first line of each file; a sweep found running was interrupted by a stop.
//
// Synchronous on purpose: sweeps are few and their writes rare (start and end of each), and the
// service answers GET from the index without awaiting.

import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomicSync } from '../core/atomic-write.ts';
import type pino from 'pino';
import type { SweepListItem, SweepRun } from '../wire/sweep.ts';
import { IdempotencyKeys } from '../backtest-service/journal/idempotency.ts';
import { QUARANTINE_DIR } from '../backtest-service/journal/quarantine.ts';
import { boundedError, MAX_HEADER_BYTES } from '../backtest-service/journal/record.ts';
import { retentionVictims, type RetentionLimits } from '../backtest-service/journal/retention.ts';
import type { StorageHealth } from '../backtest-service/journal/journal.ts';
import { decodeCursor, type Page, RunIndex } from '../backtest-service/journal/run-index.ts';

export const SWEEP_ID_RE = /^sw_[0-9]{8}T[0-9]{9}Z_[0-9a-z]{4}_[0-9a-f]{6}$/;
const EXT = '.jsonl';
/** The format before this journal: one JSON document per sweep (read once and rewritten). */
const LEGACY_EXT = '.json';

export type Idempotency = { key: string; request_hash: string } | null;

/** A journaled sweep: the run as served, and the key it was started with (never served). */
export type SweepRecord = SweepRun & { idempotency: Idempotency };

/** The index entry of a sweep: its list item, the size of its file and its key. */
export type SweepIndexEntry = SweepListItem & { idempotency: Idempotency };

/** The list item of a sweep (what GET /api/sweeps serves). */
export function listItem(r: SweepRun, bytes: number): SweepListItem {
  return {
    id: r.id,
    status: r.status,
    started_at: r.started_at,
    finished_at: r.finished_at,
    points: r.points,
    sessions: r.sessions,
    progress: r.progress,
    error: r.error,
    bytes,
  };
}

export interface SweepJournalOptions {
  dir: string;
  limits: RetentionLimits;
  maxRecordBytes: number;
  idempotencyTtlMs: number;
  logger: pino.Logger;
}

const isObj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

export class SweepJournal {
  readonly index = new RunIndex<SweepIndexEntry>();
  private readonly keys: IdempotencyKeys<SweepIndexEntry>;
  private ready = false;
  private lastError: string | null = null;
  private writeFailures = 0;
  private quarantined = 0;

  constructor(private readonly o: SweepJournalOptions) {
    this.keys = new IdempotencyKeys(o.idempotencyTtlMs);
  }

  get dir(): string {
    return this.o.dir;
  }

  /** Loads the index (once): quarantines what is not a sweep, marks sweeps left running as interrupted, applies retention. */
  open(): void {
    if (this.ready) return;
    this.ready = true;
    mkdirSync(this.o.dir, { recursive: true });
    for (const d of readdirSync(this.o.dir, { withFileTypes: true })) {
      if (!d.isFile()) continue;
      if (d.name.endsWith('.tmp')) rmSync(join(this.o.dir, d.name), { force: true });
      else if (d.name.endsWith(EXT)) this.load(d.name);
      else if (d.name.endsWith(LEGACY_EXT)) this.migrate(d.name);
    }
    for (const e of [...this.index.oldestFirst()].filter((x) => x.status === 'running')) {
      const rec = this.read(e.id);
      if (!rec) continue;
      this.o.logger.warn({ id: e.id }, 'sweep was interrupted by a stop');
      this.save({ ...rec, status: 'interrupted', error: boundedError('interrupted', 'the engine stopped during the sweep') });
    }
    this.retain();
  }

  /**
   * Writes a sweep atomically and indexes it; throws when it is over [storage] max_record_bytes or
   * on an I/O error. Retention runs after each write of a finished sweep.
   */
  save(rec: SweepRecord): void {
    const { idempotency, ...run } = rec;
    const body = JSON.stringify(run);
    const head = JSON.stringify({ ...listItem(run, 0), idempotency, record_bytes: Buffer.byteLength(body) });
    const text = `${head}\n${body}\n`;
    const bytes = Buffer.byteLength(text);
    try {
      if (bytes > this.o.maxRecordBytes) throw new Error(`the sweep's record is ${bytes} bytes, over [storage] max_record_bytes = ${this.o.maxRecordBytes}`);
      writeAtomicSync(join(this.o.dir, `${rec.id}${EXT}`), text);
      this.lastError = null;
    } catch (e) {
      this.lastError = boundedError('storage_error', e instanceof Error ? e.message : String(e)).message;
      this.writeFailures++;
      this.o.logger.error({ id: rec.id, err: e }, 'could not write the sweep journal');
      throw e;
    }
    this.put({ ...listItem(run, bytes), idempotency });
    if (run.status !== 'running') this.retain();
  }

  /** The whole sweep from its file, or null when unknown or unreadable. */
  read(id: string): SweepRecord | null {
    const e = this.index.get(id);
    if (!e) return null;
    let text: string;
    try {
      text = readFileSync(join(this.o.dir, `${id}${EXT}`), 'utf8');
    } catch {
      return null;
    }
    const nl = text.indexOf('\n');
    try {
      const run = JSON.parse(text.slice(nl + 1)) as SweepRun;
      return run.id === id ? { ...run, idempotency: e.idempotency } : null;
    } catch {
      return null;
    }
  }

  /** Like the backtest journal's: degraded while the last write failed. */
  health(): StorageHealth {
    return {
      status: this.lastError === null ? 'ok' : 'degraded',
      last_error: this.lastError,
      write_failures: this.writeFailures,
      runs: this.index.size,
      bytes: this.index.bytes,
      quarantined: this.quarantined,
    };
  }

  /** A page of the index, newest first; throws RangeError on a cursor this journal did not issue. */
  page(limit: number, cursor: string | null): Page<SweepIndexEntry> {
    let before: string | null = null;
    if (cursor !== null) {
      before = decodeCursor(cursor, SWEEP_ID_RE);
      if (before === null) throw new RangeError('not a cursor this server issued');
    }
    return this.index.page(limit, before);
  }

  /** The sweep an unexpired Idempotency-Key names, or null. */
  findKey(key: string): SweepIndexEntry | null {
    return this.keys.find(key, (id) => this.index.get(id), Date.now());
  }

  private put(e: SweepIndexEntry): void {
    this.index.put(e);
    this.keys.add(e);
  }

  /** Indexes a file from its first line; a file that is not a whole sweep is quarantined. */
  private load(name: string): void {
    const id = name.slice(0, -EXT.length);
    const e = SWEEP_ID_RE.test(id) ? this.header(name, id) : null;
    if (e) this.put(e);
    else this.quarantine(name);
  }

  private header(name: string, id: string): SweepIndexEntry | null {
    const path = join(this.o.dir, name);
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(MAX_HEADER_BYTES);
      const n = readSync(fd, buf, 0, buf.length, 0);
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl < 0) return null;
      const x: unknown = JSON.parse(buf.toString('utf8', 0, nl));
      if (!isObj(x) || x.id !== id || typeof x.status !== 'string' || typeof x.started_at !== 'string' || typeof x.record_bytes !== 'number') return null;
      const bytes = statSync(path).size;
      // A torn file (a copy cut short, a full disk outside our atomic write) fails the size check.
      if (nl + 1 + x.record_bytes + 1 !== bytes) return null;
      const { record_bytes: _n, ...entry } = x;
      return { ...(entry as unknown as SweepIndexEntry), bytes };
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  /** A sweep journaled by the previous version (`<id>.json`): rewritten in today's format. */
  private migrate(name: string): void {
    const id = name.slice(0, -LEGACY_EXT.length);
    let run: SweepRun;
    try {
      run = JSON.parse(readFileSync(join(this.o.dir, name), 'utf8')) as SweepRun;
      if (!SWEEP_ID_RE.test(id) || run.id !== id) throw new Error('not a sweep');
      this.save({ ...run, idempotency: null });
      unlinkSync(join(this.o.dir, name));
    } catch {
      this.quarantine(name);
    }
  }

  private quarantine(name: string): void {
    const to = join(this.o.dir, QUARANTINE_DIR);
    try {
      mkdirSync(to, { recursive: true });
      renameSync(join(this.o.dir, name), join(to, name));
      this.quarantined++;
      this.o.logger.error({ file: name, moved_to: join(to, name) }, 'quarantined a corrupt sweep journal record');
    } catch (e) {
      this.o.logger.error({ file: name, err: e }, 'could not quarantine a corrupt sweep journal record');
    }
  }

  private retain(): void {
    const victims = retentionVictims(this.index.oldestFirst(), this.index.size, this.index.bytes, this.o.limits, Date.now());
    for (const id of victims) {
      this.keys.remove(this.index.get(id)!);
      this.index.delete(id);
      rmSync(join(this.o.dir, `${id}${EXT}`), { force: true });
    }
  }
}
