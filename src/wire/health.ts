// What GET /health answers (200 when every worker is healthy, else 503 with the same body).

import { z } from 'zod';

export const WORKER_STATES = ['starting', 'running', 'stalled', 'dead', 'restarting', 'stopped'] as const;
export type WorkerStateName = (typeof WORKER_STATES)[number];

export const workerHealthSchema = z
  .object({
    name: z.string().describe('worker name, e.g. market-data, order-book, inference'),
    state: z.enum(WORKER_STATES).describe('worker state'),
    heartbeat_age_ms: z.number().describe('ms since the last heartbeat'),
    restarts: z.int().describe('restarts so far'),
    last_error: z.string().nullable().describe('last error message'),
  })
  .describe('Health of one worker thread.');

const storageHealthSchema = z.object({
  status: z.enum(['ok', 'degraded']).describe('degraded while the last journal write failed (the engine answers 503)'),
  last_error: z.string().nullable().describe('the failed write, null when ok'),
  write_failures: z.int().describe('failed journal writes since start'),
  runs: z.int().describe('runs in the journal'),
  bytes: z.int().describe('bytes of the journal files'),
  quarantined: z.int().describe('corrupt records moved to quarantine/ since start'),
});

export const healthSchema = z
  .object({
    status: z
      .enum(['ok', 'degraded'])
      .describe('ok when every worker is healthy, both journals writable and the queue (if any) reachable, else degraded (HTTP 503)'),
    version: z.string().describe('engine version'),
    uptime_s: z.number().describe('seconds since the runtime started'),
    workers: z.array(workerHealthSchema).describe('worker threads'),
    backtests: z
      .object({
        running: z.int().describe('runs running or queued'),
        queued_sessions: z.int().describe('sessions of those runs (admission counts these)'),
        max_queued_sessions: z.int().describe('[backtest] max_queued_sessions: admission bound, in sessions'),
        pool_size: z.int().describe('pool threads'),
      })
      .describe('Backtest capacity.'),
    storage: storageHealthSchema.describe('The backtest journal.'),
    sweep_storage: storageHealthSchema.describe('The sweep journal (runs: sweeps in it).'),
    queue: z
      .object({
        status: z.enum(['ok', 'unreachable']).describe('unreachable while Redis does not answer the watchdog (the engine answers 503)'),
        url: z.string().describe('QUEUE_URL, without its password'),
        in_flight: z.int().describe('sessions waiting on queue jobs'),
        requeued_jobs: z.int().describe('jobs that vanished (Redis lost them) and were enqueued again, since start'),
        failed_sessions: z.int().describe('sessions failed since start (a job that kept vanishing, Redis unreachable too long, a worker error)'),
        data_lost: z.int().describe('times the watchdog found Redis had lost its data, since start'),
        unreachable_s: z.number().nullable().describe('seconds Redis has not answered, null when it does'),
        last_error: z.string().nullable().describe('the last Redis error seen'),
      })
      .nullable()
      .describe('The session queue (QUEUE_URL), null when sessions run on the local pool.'),
    sse_clients: z.int().describe('connected live stream clients'),
  })
  .describe('Engine health.');
export type Health = z.infer<typeof healthSchema>;
