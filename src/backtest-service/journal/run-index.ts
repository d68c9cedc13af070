// The in-memory index of the journal: one small entry per run, ordered by id. Ids start with the
// start time (ms) and a sequence number, so id order is time order and a new run always sorts
// after every existing one; a page cursor is "older than this id", which a concurrent insert
// cannot shift.

import { ID_RE, type BacktestIndexEntry } from './record.ts';

/** What the index reads of an entry (a backtest's or a sweep's). */
export interface IndexedRun {
  id: string;
  bytes: number;
}

export interface Page<E extends IndexedRun = BacktestIndexEntry> {
  entries: E[];
  /** The cursor of the next (older) page, null on the last page. */
  nextCursor: string | null;
}

/** A cursor is the last id of a page, encoded so clients treat it as opaque. */
export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

/** The id a cursor encodes, or null when it is not a cursor of ids matching `idRe`. */
export function decodeCursor(cursor: string, idRe: RegExp = ID_RE): string | null {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return idRe.test(id) && encodeCursor(id) === cursor ? id : null;
}

export class RunIndex<E extends IndexedRun = BacktestIndexEntry> {
  /** Oldest first. */
  private readonly sorted: E[] = [];
  private readonly byId = new Map<string, E>();
  private totalBytes = 0;

  get size(): number {
    return this.sorted.length;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  get(id: string): E | undefined {
    return this.byId.get(id);
  }

  /** Adds or replaces an entry. */
  put(e: E): void {
    const old = this.byId.get(e.id);
    if (old) {
      this.sorted[this.position(e.id)] = e;
      this.totalBytes += e.bytes - old.bytes;
    } else {
      const at = this.position(e.id);
      this.sorted.splice(at, 0, e); // at the end for a new run
      this.totalBytes += e.bytes;
    }
    this.byId.set(e.id, e);
  }

  delete(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.sorted.splice(this.position(id), 1);
    this.byId.delete(id);
    this.totalBytes -= old.bytes;
  }

  /** Entries oldest first (retention walks this). */
  oldestFirst(): Iterable<E> {
    return this.sorted;
  }

  /** Up to `limit` entries older than `before` (all when null), newest first. */
  page(limit: number, before: string | null): Page<E> {
    let i = (before === null ? this.sorted.length : this.position(before)) - 1;
    const entries: E[] = [];
    for (; i >= 0 && entries.length < limit; i--) entries.push(this.sorted[i]);
    const nextCursor = i >= 0 && entries.length ? encodeCursor(entries[entries.length - 1].id) : null;
    return { entries, nextCursor };
  }

  /** The index of the first entry with an id >= `id` (binary search). */
  private position(id: string): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sorted[mid].id < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
