// The backtest journal: files on disk (store.ts), a small index in memory (run-index.ts),
// retention (retention.ts), quarantine of corrupt files (quarantine.ts) and the idempotency keys
// (idempotency.ts). Results are read from disk on demand; only running runs are held whole.

import type pino from 'pino';
import { ensureWritableDir } from '../../core/writable-dir.ts';
import { IdempotencyKeys } from './idempotency.ts';
import { quarantine } from './quarantine.ts';
import { readLegacy, removeLegacy } from './legacy.ts';
import { boundedError, indexEntry, RECORD_EXT, type BacktestIndexEntry, type BacktestRecord } from './record.ts';
import { retentionVictims, type RetentionLimits } from './retention.ts';
import { decodeCursor, RunIndex, type Page } from './run-index.ts';
import { JournalStore } from './store.ts';

export interface JournalOptions {
  dir: string;
  limits: RetentionLimits;
  maxRecordBytes: number;
  idempotencyTtlMs: number;
  logger: pino.Logger;
}

export interface JournalObserver {
  onWriteFailed?(): void;
  onQuarantined?(): void;
  onDeleted?(n: number): void;
  onSize?(runs: number, bytes: number): void;
}

export interface StorageHealth {
  status: 'ok' | 'degraded';
  last_error: string | null;
  write_failures: number;
  runs: number;
  bytes: number;
  quarantined: number;
}

/** Records whose last write failed are kept whole in memory, at most this many (newest). */
const MAX_UNSAVED = 100;

export class Journal {
  readonly index = new RunIndex();
  private readonly store: JournalStore;
  private readonly keys: IdempotencyKeys<BacktestIndexEntry>;
  private readonly writes = new Map<string, Promise<unknown>>();
  private readonly unsaved = new Map<string, BacktestRecord>();
  private lastError: string | null = null;
  private writeFailures = 0;
  private quarantined = 0;
  observer: JournalObserver = {};

  private constructor(private readonly o: JournalOptions) {
    this.store = new JournalStore(o.dir, o.maxRecordBytes);
    this.keys = new IdempotencyKeys(o.idempotencyTtlMs);
  }

  /**
   * Opens the journal: removes temp files, quarantines corrupt records, marks runs a previous
   * process left `running` as `interrupted`, applies retention.
   */
  static async open(o: JournalOptions, observer: JournalObserver = {}): Promise<Journal> {
    const j = new Journal(o);
    j.observer = observer;
    await ensureWritableDir(o.dir);
    const scan = await j.store.scan();
    if (scan.tempRemoved) o.logger.warn({ files: scan.tempRemoved }, 'removed leftover temp files of interrupted journal writes');
    for (const f of scan.corrupt) await j.quarantine(f);
    for (const e of scan.entries) j.index.put(e);
    for (const f of scan.legacy) await j.migrate(f);
    for (const e of [...j.index.oldestFirst()].filter((x) => x.status === 'running')) await j.interrupt(e.id);
    for (const e of j.index.oldestFirst()) j.keys.add(e);
    await j.applyRetention();
    o.logger.info({ runs: j.index.size, bytes: j.index.bytes, quarantined: j.quarantined, dir: o.dir }, 'backtest journal loaded');
    return j;
  }

  get dir(): string {
    return this.o.dir;
  }

  /** Indexes a run that has not been written yet (a run just admitted). */
  track(rec: BacktestRecord): void {
    this.index.put(indexEntry(rec, 0));
    this.keys.add(this.index.get(rec.id)!);
  }

  /**
   * Writes a record; writes of one record are serialized in call order. Rejects when the write
   * failed: the index keeps the record's state (in memory) and storage reports degraded.
   */
  save(rec: BacktestRecord): Promise<void> {
    const snapshot: BacktestRecord = { ...rec };
    const prev = this.writes.get(rec.id) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(() => this.write(snapshot));
    this.writes.set(rec.id, next);
    void next.then(
      () => this.writes.get(rec.id) === next && this.writes.delete(rec.id),
      () => this.writes.get(rec.id) === next && this.writes.delete(rec.id),
    );
    return next;
  }

  /** Updates a run's index entry in memory only (its state after a failed write), keeping the record whole. */
  remember(rec: BacktestRecord): void {
    this.index.put(indexEntry(rec, this.index.get(rec.id)?.bytes ?? 0));
    this.keepUnsaved(rec);
  }

  /** The whole record of a run, from disk (or memory when its last write failed); null when unknown. */
  async read(id: string): Promise<BacktestRecord | null> {
    const kept = this.unsaved.get(id);
    if (kept) return kept;
    if (!this.index.get(id)) return null;
    return this.store.read(id);
  }

  /** A page of the index, newest first; `cursor` from a previous page (null: the first). Throws on a bad cursor. */
  page(limit: number, cursor: string | null): Page {
    let before: string | null = null;
    if (cursor !== null) {
      before = decodeCursor(cursor);
      if (before === null) throw new RangeError('not a cursor this server issued');
    }
    return this.index.page(limit, before);
  }

  /** The run an unexpired Idempotency-Key names, or null. */
  findKey(key: string): BacktestIndexEntry | null {
    return this.keys.find(key, (id) => this.index.get(id), Date.now());
  }

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

  /** Settles when every pending write has. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.writes.values()]);
  }

  private async write(rec: BacktestRecord): Promise<void> {
    const before = this.index.get(rec.id);
    try {
      const entry = await this.store.write(rec);
      this.unsaved.delete(rec.id);
      this.index.put(entry);
      this.lastError = null;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.lastError = boundedError('storage_error', message).message;
      this.writeFailures++;
      this.observer.onWriteFailed?.();
      this.o.logger.error({ id: rec.id, err: e }, 'could not write the backtest journal');
      // The file (if any) still has the previous state, hence the previous size.
      this.index.put(indexEntry(rec, before?.bytes ?? 0));
      this.keepUnsaved(rec);
      throw e;
    }
    this.keys.add(this.index.get(rec.id)!);
    await this.applyRetention();
  }

  private keepUnsaved(rec: BacktestRecord): void {
    this.unsaved.delete(rec.id);
    this.unsaved.set(rec.id, { ...rec });
    if (this.unsaved.size > MAX_UNSAVED) this.unsaved.delete(this.unsaved.keys().next().value!);
  }

  private async applyRetention(): Promise<void> {
    const victims = retentionVictims(this.index.oldestFirst(), this.index.size, this.index.bytes, this.o.limits, Date.now());
    for (const id of victims) {
      this.keys.remove(this.index.get(id)!);
      this.index.delete(id);
      this.unsaved.delete(id);
    }
    this.observer.onSize?.(this.index.size, this.index.bytes);
    if (!victims.length) return;
    this.observer.onDeleted?.(victims.length);
    for (const id of victims) {
      await this.store.remove(id).catch((e) => this.o.logger.error({ id, err: e }, 'retention could not delete a journal file'));
    }
  }

  /** Rewrites a file of the previous format in today's (or quarantines it). */
  private async migrate(file: string): Promise<void> {
    const rec = await readLegacy(this.o.dir, file).catch(() => null);
    if (!rec) return this.quarantine(file);
    try {
      this.index.put(await this.store.write(rec));
      await removeLegacy(this.o.dir, file);
      this.o.logger.info({ file }, 'rewrote a backtest journal record of the previous format');
    } catch (e) {
      this.o.logger.error({ file, err: e }, 'could not rewrite a backtest journal record of the previous format');
    }
  }

  private async interrupt(id: string): Promise<void> {
    const rec = await this.store.read(id);
    if (!rec) {
      this.index.delete(id);
      await this.quarantine(`${id}${RECORD_EXT}`);
      return;
    }
    rec.status = 'interrupted';
    rec.error = boundedError('interrupted', 'the engine stopped while this run was in progress');
    this.o.logger.warn({ id }, 'backtest run was interrupted by a restart');
    await this.save(rec).catch(() => {});
  }

  private async quarantine(file: string): Promise<void> {
    this.quarantined++;
    this.observer.onQuarantined?.();
    try {
      const dest = await quarantine(this.o.dir, file);
      this.o.logger.error({ file, moved_to: dest }, 'quarantined a corrupt backtest journal record');
    } catch (e) {
      this.o.logger.error({ file, err: e }, 'could not quarantine a corrupt backtest journal record');
    }
  }
}
