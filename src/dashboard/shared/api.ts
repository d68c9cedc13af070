// Types of what the engine's API sends, imported from its one definition (src/wire, zod shapes).
// Type-only imports: zod stays out of the browser bundle.

import type { BacktestRequest } from '../../wire/backtest-request.ts';
import type { ErrorBody } from '../../wire/error.ts';
import type { SymbolState } from '../../wire/live-state.ts';

export type { BacktestList, BacktestProgressEvent, BacktestRun, BacktestStatus } from '../../wire/backtest-run.ts';
export type { FieldError } from '../../wire/error.ts';
export type { FillView, LatencySummary, OurOrder, StatePayload, SymbolState } from '../../wire/live-state.ts';
export type { AlertEvent } from '../../wire/stream-events.ts';

/** The body of POST /api/backtest (every field is optional: the engine's config fills it). */
export type BacktestRequestBody = BacktestRequest;

export type AlertView = SymbolState['risk']['alerts'][number];
export type LatencyStage = keyof SymbolState['latency'];
export const LATENCY_STAGES: readonly LatencyStage[] = ['tick_to_trade', 'book_update', 'inference'];

/** Every API error; the dashboard's own errors (e.g. its 502) have the same shape with their own codes. */
export type ApiErrorBody = { error: Omit<ErrorBody['error'], 'code'> & { code: string } };

export function isApiError(x: unknown): x is ApiErrorBody {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as ApiErrorBody).error === 'object' &&
    (x as ApiErrorBody).error !== null &&
    typeof (x as ApiErrorBody).error.message === 'string'
  );
}
