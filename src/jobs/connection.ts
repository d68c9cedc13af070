// The Redis behind the session queue: `redis://[user:password@]host[:port][/db]` parsed into the
// connection options BullMQ takes, and a reachability check that fails within seconds with a
// clear error (BullMQ's own connections retry forever, which would hang a CLI run).

import { Redis } from 'ioredis';

export interface QueueConnection {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db?: number;
  /** BullMQ workers need blocking commands that never give up (their own retry loop). */
  maxRetriesPerRequest: null;
}

/** Name of the BullMQ queue of backtest sessions. */
export const SESSION_QUEUE = 'mm-sessions';

export const QUEUE_URL_EXPECTED = 'a Redis URL redis://HOST[:PORT][/DB], e.g. redis://127.0.0.1:6379';

export function parseQueueUrl(url: string): { ok: true; connection: QueueConnection } | { ok: false; error: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, error: `${JSON.stringify(url)}: expected ${QUEUE_URL_EXPECTED}` };
  }
  if (u.protocol !== 'redis:' || !u.hostname) return { ok: false, error: `${JSON.stringify(url)}: expected ${QUEUE_URL_EXPECTED}` };
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined;
  if (db !== undefined && !(Number.isInteger(db) && db >= 0))
    return { ok: false, error: `${JSON.stringify(url)}: the database after / must be an integer >= 0` };
  return {
    ok: true,
    connection: {
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port ? Number(u.port) : 6379,
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(db !== undefined ? { db } : {}),
      maxRetriesPerRequest: null,
    },
  };
}

/** Resolves when Redis answers PING within `timeoutMs`; rejects naming the URL and the cause. */
export async function checkReachable(url: string, c: QueueConnection, timeoutMs = 3000): Promise<void> {
  const probe = new Redis({
    ...c,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let cause: Error | null = null;
  probe.on('error', (e: Error) => (cause ??= e));
  try {
    await probe.connect();
    await probe.ping();
  } catch (e) {
    const why = cause ?? (e instanceof Error ? e : new Error(String(e)));
    throw new Error(`cannot reach the queue at ${url} (Redis): ${why.message}`);
  } finally {
    probe.disconnect();
  }
}
