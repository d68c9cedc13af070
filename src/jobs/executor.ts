// The queue side of the SessionExecutor port (src/backtest/run.ts): each session is a BullMQ job
// on Redis whose data is the whole SessionSpec (request values, seed, carry, model weights and
// version), so any worker computes the same result and a retried job gives the same result.
// A job whose worker dies is retried by another (BullMQ's stalled-job check); the result comes
// back to runBacktest, which chains and merges it exactly as a pool result. Recorded data travels
// as its dataset name (recorded-data.ts). A cancelled run removes its jobs still waiting, so no
// worker runs abandoned work; a job already running finishes on its worker, unread.
//
// Jobs can vanish: Redis restarted without its data (no AOF, a new volume) forgets every job, and
// no event ever says so. A watchdog checks every CHECK_MS (5 s) that each job this engine waits
// for still exists, and that a marker key it keeps in Redis is still there (gone: Redis lost its
// data). A job missing at two checks in a row (so within 10-15 s) is enqueued again (a session's
// result does not depend on where or how often it runs), at most MAX_REQUEUES times; a Redis
// that does not answer for UNREACHABLE_MS (60 s) fails the sessions waiting on it, so their runs
// fail with that error and free admission instead of holding it forever. health() is /health's
// `queue`.

import { type Job, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { ExecutorHealth, SessionExecutor } from '../backtest/run.ts';
import { marketDataDir } from '../backtest/request.ts';
import type { SessionResult } from '../backtest/session-spec.ts';
import type { EngineConfig } from '../config/schema.ts';
import { decode, encode } from './codec.ts';
import { toStrategyRef } from './strategy-ref.ts';
import { checkReachable, parseQueueUrl, SESSION_QUEUE } from './connection.ts';
import { toDatasetRef } from './recorded-data.ts';

export interface QueueExecutor extends SessionExecutor {
  health(): ExecutorHealth;
  close(): Promise<void>;
}

export interface QueueExecutorOptions {
  /** Watchdog period (default CHECK_MS; tests shorten it). */
  checkMs?: number;
  /** Redis silent this long fails the sessions waiting on it (default UNREACHABLE_MS). */
  unreachableMs?: number;
  /** Told of vanished jobs, data loss and an unreachable Redis. */
  onEvent?: (message: string, fields: Record<string, unknown>) => void;
}

/** Attempts per job: a worker killed mid-job costs one (the stalled check moves it back). */
const ATTEMPTS = 3;
export const CHECK_MS = 5_000;
export const UNREACHABLE_MS = 60_000;
/** Times one session's job may vanish and be enqueued again before the session fails. */
export const MAX_REQUEUES = 3;

/** The URL as shown in /health and errors: without its password. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)))]).finally(
    () => clearTimeout(timer),
  );
}

/** A session waiting on the queue, as the watchdog sees it. */
interface Watch {
  job: Job | null;
  /** Consecutive checks that found its job missing. */
  missing: number;
  alarm: (why: 'vanished' | Error) => void;
}

/**
 * Connects to the queue at `url`; rejects within seconds when Redis is unreachable. `config` is
 * the engine's: recorded data must be under its <data_dir>/market/ to be named in a job.
 */
export async function createQueueExecutor(url: string, config: EngineConfig, o: QueueExecutorOptions = {}): Promise<QueueExecutor> {
  const marketDir = marketDataDir(config);
  const parsed = parseQueueUrl(url);
  if (!parsed.ok) throw new Error(`queue URL ${parsed.error}`);
  const connection = parsed.connection;
  await checkReachable(url, connection);
  const shown = shownUrl(url);
  const checkMs = o.checkMs ?? CHECK_MS;
  const unreachableMs = o.unreachableMs ?? UNREACHABLE_MS;
  const tell = o.onEvent ?? (() => undefined);
  const queue = new Queue(SESSION_QUEUE, { connection });
  const events = new QueueEvents(SESSION_QUEUE, { connection });
  // Every job in flight listens on these; a sweep has many in flight by design.
  queue.setMaxListeners(0);
  events.setMaxListeners(0);
  const h: ExecutorHealth = {
    status: 'ok',
    url: shown,
    in_flight: 0,
    requeued_jobs: 0,
    failed_sessions: 0,
    data_lost: 0,
    unreachable_s: null,
    last_error: null,
  };
  queue.on('error', (e) => (h.last_error = e.message));
  events.on('error', () => undefined);
  await events.waitUntilReady();

  // A key that lives as long as Redis keeps its data (refreshed each check, expires if we stop).
  const marker = `${SESSION_QUEUE}:engine:${randomBytes(6).toString('hex')}`;
  const markerTtlS = Math.ceil((checkMs * 10) / 1000);
  // The watchdog's own connection: its commands give up instead of waiting for Redis forever.
  const probe = new Redis({ ...connection, maxRetriesPerRequest: 1 });
  probe.on('error', (e: Error) => (h.last_error = e.message));
  await probe.set(marker, '1', 'EX', markerTtlS);

  const watched = new Set<Watch>();
  let unreachableSince: number | null = null;
  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      const kept = await withTimeout(probe.set(marker, '1', 'EX', markerTtlS, 'XX'), checkMs, 'Redis');
      if (kept === null) {
        // XX: set only if it existed. It did not: Redis lost its data (or was stopped longer than the TTL).
        h.data_lost++;
        tell('the queue lost its data (Redis restarted without it?): checking every job in flight', { queue: shown });
        await withTimeout(probe.set(marker, '1', 'EX', markerTtlS), checkMs, 'Redis');
      }
      for (const w of [...watched]) {
        if (!w.job?.id) continue;
        const state = await withTimeout(queue.getJobState(w.job.id), checkMs, 'Redis');
        w.missing = state === 'unknown' ? w.missing + 1 : 0;
        // Twice: a job removed on completion is missing for the moment before its event arrives.
        if (w.missing >= 2) w.alarm('vanished');
      }
      unreachableSince = null;
      h.status = 'ok';
      h.unreachable_s = null;
    } catch (e) {
      const now = Date.now();
      unreachableSince ??= now;
      h.status = 'unreachable';
      h.unreachable_s = (now - unreachableSince) / 1000;
      h.last_error = (e as Error).message;
      if (now - unreachableSince >= unreachableMs && watched.size > 0) {
        const err = new Error(
          `the queue at ${shown} has not answered for ${Math.round((now - unreachableSince) / 1000)} s (${h.last_error}): the session cannot finish`,
        );
        tell('queue unreachable: failing the sessions waiting on it', { queue: shown, sessions: watched.size });
        for (const w of [...watched]) w.alarm(err);
      }
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), checkMs);
  timer.unref();

  return {
    parallel: true,
    async run(spec, signal) {
      signal?.throwIfAborted();
      const data = { spec: encode(toStrategyRef(toDatasetRef(spec, marketDir))) };
      const w: Watch = { job: null, missing: 0, alarm: () => undefined };
      let abandon = () => undefined as void;
      const aborted = new Promise<never>((_, reject) => {
        abandon = () => {
          reject(signal!.reason);
          // Refused (and ignored) once a worker holds the job's lock: that one runs to its end.
          w.job?.remove().catch(() => undefined);
        };
        if (signal?.aborted) abandon();
        else signal?.addEventListener('abort', abandon, { once: true });
      });
      aborted.catch(() => undefined);
      watched.add(w);
      h.in_flight = watched.size;
      try {
        for (let requeues = 0; ; requeues++) {
          const alarm = new Promise<'vanished'>((resolve, reject) => (w.alarm = (why) => (why === 'vanished' ? resolve(why) : reject(why))));
          alarm.catch(() => undefined);
          const adding = queue.add('session', data, { attempts: ATTEMPTS, removeOnComplete: true, removeOnFail: 100 });
          adding.catch(() => undefined);
          // Not raced with `aborted`: a job added after its run was cancelled would never be removed.
          const job = await Promise.race([adding, alarm]);
          if (job === 'vanished') continue; // not yet added: cannot happen, but harmless
          w.job = job;
          w.missing = 0;
          if (signal?.aborted) {
            job.remove().catch(() => undefined);
            throw signal.reason;
          }
          const finished = job.waitUntilFinished(events) as Promise<string>;
          finished.catch(() => undefined);
          const out = await Promise.race([finished, alarm, aborted]);
          if (out !== 'vanished') return decode<SessionResult>(out);
          if (requeues >= MAX_REQUEUES) {
            throw new Error(
              `session ${spec.date}: its job vanished from the queue at ${shown} ${requeues + 1} times (Redis restarted without its data?); giving up`,
            );
          }
          h.requeued_jobs++;
          tell('a queue job vanished (Redis restarted without its data?): enqueued again', { queue: shown, job: job.id, date: spec.date });
        }
      } catch (e) {
        if (!signal?.aborted) h.failed_sessions++;
        throw e;
      } finally {
        watched.delete(w);
        h.in_flight = watched.size;
        signal?.removeEventListener('abort', abandon);
      }
    },
    health: () => ({ ...h }),
    async close() {
      clearInterval(timer);
      // A run still waiting on a job (its sweep failed or stopped at another session, no worker
      // took it) would otherwise wait forever, and stay counted as running in this process.
      const closed = new Error(`the session queue at ${shown} was closed while this session waited on it`);
      for (const w of [...watched]) w.alarm(closed);
      await withTimeout(probe.del(marker), 1000, 'Redis').catch(() => undefined);
      probe.disconnect();
      await events.close();
      await queue.close();
    },
  };
}
