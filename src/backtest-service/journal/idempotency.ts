// Idempotency-Key (IETF draft-ietf-httpapi-idempotency-key-header): a key names one run for
// `[storage] idempotency_ttl_hours`. The keys live in the journal's index entries, so they are
// bounded by its retention and survive a restart; this map only finds them fast.

import { createHash } from 'node:crypto';

/** What the keys read of a journaled run (a backtest or a sweep). */
export interface KeyedRun {
  id: string;
  status: string;
  started_at: string;
  error: { code: string } | null;
  idempotency: { key: string; request_hash: string } | null;
}

/** A fingerprint of the validated, normalised request (a backtest's or a sweep's): equal requests hash equal. */
export function requestHash(req: unknown): string {
  return createHash('sha256').update(JSON.stringify(req)).digest('hex').slice(0, 32);
}

/** Runs a retry with the same key does not replay: it never answered its client with a result. */
export function replayable(e: KeyedRun): boolean {
  return !(e.status === 'cancelled' || e.status === 'interrupted' || e.error?.code === 'storage_error');
}

export class IdempotencyKeys<E extends KeyedRun = KeyedRun> {
  private readonly runs = new Map<string, string>(); // key -> run id

  constructor(private readonly ttlMs: number) {}

  /** Remembers the key of an entry (the newest run of a key wins). */
  add(e: E): void {
    if (e.idempotency) this.runs.set(e.idempotency.key, e.id);
  }

  /** Forgets the key of a deleted entry. */
  remove(e: E): void {
    if (e.idempotency && this.runs.get(e.idempotency.key) === e.id) this.runs.delete(e.idempotency.key);
  }

  /** The run id of an unexpired key, given the index to read its start time from. */
  find(key: string, lookup: (id: string) => E | undefined, now: number): E | null {
    const id = this.runs.get(key);
    if (id === undefined) return null;
    const e = lookup(id);
    if (!e || Date.parse(e.started_at) < now - this.ttlMs) {
      this.runs.delete(key);
      return null;
    }
    return e;
  }
}
