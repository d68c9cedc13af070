// POST /api/sweeps: the backtest request's fields (the part every point shares) plus the grid,
// and the sweep as GET /api/sweeps/{id} serves it. The grid's keys are the request's camelCase
// names (src/wire/sweep-keys.ts); each value is checked by the same bounds as a single request.

import { z } from 'zod';
import { backtestRequestSchema } from './backtest-request.ts';
import { markoutSchema } from './backtest-run.ts';

/** Most values one grid key may list (src/sweep/grid.ts MAX_AXIS_VALUES). */
export const MAX_GRID_VALUES = 1000;

const gridValue = z.union([z.number(), z.boolean(), z.string().max(64)]);

export const sweepRequestSchema = backtestRequestSchema
  .extend({
    grid: z
      .record(
        z.string().max(64),
        z.array(gridValue, 'an array of values').min(1, 'at least one value').max(MAX_GRID_VALUES, `at most ${MAX_GRID_VALUES} values`),
      )
      .meta({
        description: 'parameter -> values; the grid is their cartesian product, the last key varying fastest',
        examples: [{ spreadMultiplier: [1, 1.5, 2], skewFactor: [0, 0.5] }],
      }),
    holdoutDays: z
      .number('an integer >= 1')
      .int('an integer >= 1')
      .min(1, 'an integer >= 1')
      .optional()
      .describe('rank on the earlier sessions, run the best 3 on the last N trading days'),
  })
  .describe('A sweep: the backtest fields shared by every point, plus the grid.');
export type SweepRequest = z.infer<typeof sweepRequestSchema>;

export const SWEEP_STATUSES = ['running', 'completed', 'failed', 'cancelled', 'interrupted'] as const;

export const sweepPointSchema = z.object({
  params: z.record(z.string(), gridValue).describe('the grid values of this point'),
  result: z.object({
    sessions: z.int(),
    total_pnl: z.number(),
    sharpe_ratio: z.number(),
    max_drawdown_pct: z.number(),
    total_fills: z.int(),
    fees: z.number(),
    markouts: z.record(z.string(), markoutSchema),
    kill_switch_tripped: z.boolean(),
  }),
});

export const sweepRunSchema = z
  .object({
    id: z.string().meta({ description: 'sweep id', examples: ['sw_20240102T093000123Z_0001'] }),
    status: z.enum(SWEEP_STATUSES),
    request: sweepRequestSchema,
    points: z.int().describe('grid points'),
    sessions: z.int().describe('sessions the sweep runs (its cost)'),
    progress: z.number().describe('fraction done, 0..1'),
    started_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    result: z
      .object({
        points: z.array(sweepPointSchema).describe('in grid order'),
        holdout: z
          .object({
            rank_start_date: z.string(),
            rank_end_date: z.string(),
            start_date: z.string(),
            end_date: z.string(),
            points: z.array(sweepPointSchema.extend({ rank: z.int(), grid_index: z.int() })),
          })
          .optional(),
      })
      .nullable()
      .describe('null until completed'),
  })
  .describe('A sweep and, once completed, its points.');
export type SweepRun = z.infer<typeof sweepRunSchema>;

export const sweepProgressSchema = z
  .object({ id: z.string(), progress: z.number(), status: z.enum(SWEEP_STATUSES) })
  .describe('Progress of a running sweep (and its end).');

export const sweepListItemSchema = z
  .object({
    id: sweepRunSchema.shape.id,
    status: sweepRunSchema.shape.status,
    started_at: sweepRunSchema.shape.started_at,
    finished_at: sweepRunSchema.shape.finished_at,
    points: sweepRunSchema.shape.points,
    sessions: sweepRunSchema.shape.sessions,
    progress: sweepRunSchema.shape.progress,
    error: sweepRunSchema.shape.error,
    bytes: z.int().describe('size of its journal file (0 before the first write)'),
  })
  .describe('One sweep in the list (GET /api/sweeps/{id} has its request and points).');
export type SweepListItem = z.infer<typeof sweepListItemSchema>;

export const sweepListSchema = z
  .object({
    total: z.int().describe('sweeps in the journal'),
    sweeps: z.array(sweepListItemSchema).describe('one page of sweeps, newest first'),
    next_cursor: z.string().nullable().describe('pass as `cursor` for the next (older) page; null on the last page'),
  })
  .describe('One page of sweeps, newest first; paging by cursor is stable under concurrent inserts.');
export type SweepList = z.infer<typeof sweepListSchema>;
