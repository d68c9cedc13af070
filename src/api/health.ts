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

export const healthSchema = z
  .object({
    status: z.enum(['ok', 'degraded']).describe('ok when every worker is healthy, else degraded (HTTP 503)'),
    version: z.string().describe('engine version'),
    uptime_s: z.number().describe('seconds since the runtime started'),
    workers: z.array(workerHealthSchema).describe('worker threads'),
    backtests: z
      .object({ running: z.int().describe('runs running or queued'), max_concurrent: z.int().describe('runs admitted at once'), pool_size: z.int().describe('pool threads') })
      .describe('Backtest capacity.'),
    sse_clients: z.int().describe('connected live stream clients'),
  })
  .describe('Engine health.');
export type Health = z.infer<typeof healthSchema>;
