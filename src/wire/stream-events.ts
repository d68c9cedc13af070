// The events of GET /api/stream (Server-Sent Events): each `event: <name>` with its `data` payload.

import { z } from 'zod';
import { backtestProgressSchema, backtestRunSummarySchema } from './backtest-run.ts';
import { sweepProgressSchema } from './sweep.ts';
import { fillSchema, stateAlertSchema, statePayloadSchema } from './live-state.ts';

export const alertEventSchema = z.object({ symbol: z.string().describe('symbol'), alert: stateAlertSchema }).describe('A risk alert of one symbol.');
export type AlertEvent = z.infer<typeof alertEventSchema>;

export const shutdownEventSchema = z
  .object({ reason: z.string().describe('reason') })
  .describe('The server is shutting down; the stream ends after this event.');

const event = <N extends string, T extends z.ZodType>(name: N, data: T) => z.object({ event: z.literal(name), data });

/** One SSE message: its event name and the JSON of its data line. */
export const streamEventSchema = z
  .discriminatedUnion('event', [
    event('state', statePayloadSchema),
    event('fill', fillSchema),
    event('alert', alertEventSchema),
    event('backtest_progress', backtestProgressSchema),
    event('backtest_complete', backtestRunSummarySchema),
    event('sweep_progress', sweepProgressSchema),
    event('shutdown', shutdownEventSchema),
  ])
  .describe('One stream event: `event: <event>` followed by `data: <JSON of data>`.');
export type StreamEvent = z.infer<typeof streamEventSchema>;
export type StreamEventName = StreamEvent['event'];
