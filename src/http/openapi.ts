// The OpenAPI 3.1 document of the HTTP API. Every schema in it is generated from the zod shapes in
// src/wire (zod 4's z.toJSONSchema, JSON Schema 2020-12, the dialect of OpenAPI 3.1); only the
// operations (summaries, parameters, status codes) are written here, and they point at the
// generated components. Objects are closed (additionalProperties: false), so a test that checks
// real responses against this document fails on a field the shapes do not declare.

import { z } from 'zod';
import { backtestRequestSchema, resolvedRequestSchema } from '../wire/backtest-request.ts';
import {
  backtestListItemSchema,
  backtestListSchema,
  backtestProgressSchema,
  backtestRunSchema,
  backtestRunSummarySchema,
  markoutSchema,
} from '../wire/backtest-run.ts';
import { datasetListSchema, datasetSchema } from '../wire/datasets.ts';
import { strategyInfoSchema, strategyListSchema } from '../wire/strategies.ts';
import { ARTIFACTS_DESCRIPTION, BACKTEST_ARTIFACTS } from '../wire/backtest-artifacts.ts';
import { errorBodySchema, fieldErrorSchema } from '../wire/error.ts';
import { healthSchema, workerHealthSchema } from '../wire/health.ts';
import {
  bookLevelSchema,
  fillSchema,
  latencySummarySchema,
  ourOrderSchema,
  stateAlertSchema,
  statePayloadSchema,
  symbolStateSchema,
} from '../wire/live-state.ts';
import { sweepListSchema, sweepProgressSchema, sweepRequestSchema, sweepRunSchema } from '../wire/sweep.ts';
import { alertEventSchema, shutdownEventSchema, streamEventSchema } from '../wire/stream-events.ts';
import { VERSION } from '../version.ts';
import { OPEN_PATHS } from './auth.ts';

/** Component name -> shape. A shape used inside another becomes a $ref to its component. */
const COMPONENTS = {
  Error: errorBodySchema,
  FieldError: fieldErrorSchema,
  Health: healthSchema,
  WorkerHealth: workerHealthSchema,
  StateResponse: statePayloadSchema,
  SymbolState: symbolStateSchema,
  BookLevel: bookLevelSchema,
  OurOrder: ourOrderSchema,
  Fill: fillSchema,
  LatencySummary: latencySummarySchema,
  StateAlert: stateAlertSchema,
  BacktestRequest: backtestRequestSchema,
  ResolvedBacktestRequest: resolvedRequestSchema,
  Markout: markoutSchema,
  BacktestRun: backtestRunSchema,
  BacktestRunSummary: backtestRunSummarySchema,
  BacktestListItem: backtestListItemSchema,
  BacktestList: backtestListSchema,
  BacktestProgress: backtestProgressSchema,
  Dataset: datasetSchema,
  DatasetList: datasetListSchema,
  StrategyInfo: strategyInfoSchema,
  StrategyList: strategyListSchema,
  SweepRequest: sweepRequestSchema,
  SweepRun: sweepRunSchema,
  SweepProgress: sweepProgressSchema,
  SweepList: sweepListSchema,
  AlertEvent: alertEventSchema,
  ShutdownEvent: shutdownEventSchema,
  StreamEvent: streamEventSchema,
} satisfies Record<string, z.ZodType>;
type ComponentName = keyof typeof COMPONENTS;

type JsonSchema = Record<string, unknown>;

function componentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, io: 'output' });
  // Each entry comes as a standalone document; inside components it is a plain schema.
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...s }]) => [id, s as JsonSchema]));
}

const ref = (name: ComponentName) => ({ $ref: `#/components/schemas/${name}` });
function componentOf(schema: z.ZodType): ComponentName {
  const name = (Object.keys(COMPONENTS) as ComponentName[]).find((k) => COMPONENTS[k] === schema);
  if (!name) throw new Error('a stream event payload has no component in COMPONENTS');
  return name;
}

const json = (name: ComponentName) => ({ 'application/json': { schema: ref(name) } });
const ok = (description: string, name: ComponentName) => ({ description, content: json(name) });
const err = (description: string, headers?: Record<string, unknown>) => ({ description, content: json('Error'), ...(headers ? { headers } : {}) });
const retryAfter = { 'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer' } } };
const allow = { Allow: { description: 'methods the path supports, e.g. GET, HEAD', schema: { type: 'string' } } };
/** Responses every operation can give. Spread first, so an operation can override one. */
const common = {
  '405': err('Method not allowed (method_not_allowed; see Allow)', allow),
  '500': err('Unexpected server error (internal_error); logged, details not sent'),
};
const runId = { name: 'id', in: 'path', required: true, description: 'run id', schema: { type: 'string' } };
/** The Idempotency-Key header of POST /api/backtest and POST /api/sweeps (`what`: run, sweep). */
const idempotencyKeyHeader = (what: string) => ({
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    `draft-ietf-httpapi-idempotency-key-header: a retry with the same key and the same request returns the first ${what} (no second ${what}) for ` +
    `[storage] idempotency_ttl_hours; the same key with a different request is a 422. A ${what} that was cancelled or interrupted, or could not be ` +
    `journaled, is not replayed: the retry starts a new ${what} under the key.`,
  schema: { type: 'string', minLength: 1, maxLength: 257, examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"'] },
});
/** `limit` and `cursor` of a list (`what`: runs, sweeps); MAX_PAGE of routes/backtests.ts. */
const pageParameters = (what: string) => [
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: `at most this many ${what} (a larger value is a 400 naming \`limit\`)`,
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  },
  { name: 'cursor', in: 'query', required: false, description: '`next_cursor` of the previous page (opaque)', schema: { type: 'string' } },
];

type Operation = { responses: Record<string, unknown>; security?: unknown[] };
const HOST_400 = 'a Host header outside the allow-list (invalid_host: localhost, 127.0.0.1, [::1] and [http] allowed_hosts)';
const wwwAuthenticate = {
  'WWW-Authenticate': { description: 'Bearer challenge; error="invalid_token" when a token was sent but is wrong', schema: { type: 'string' } },
};

/**
 * What the middleware in app.ts adds to every operation: 400 for a Host outside the allow-list;
 * where the API token may be required (all but the open paths, see auth.ts), the bearer scheme as
 * optional security (required only when the engine has a token) and 401; 429 on POST and DELETE.
 */
function withGuards<T extends Record<string, Record<string, Operation>>>(paths: T): T {
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const r = op.responses;
      const bad = r['400'] as { description: string } | undefined;
      r['400'] = bad ? { ...bad, description: `${bad.description}; or ${HOST_400}` } : err(`Bad request: ${HOST_400}`);
      if (OPEN_PATHS.has(path)) {
        op.security = [];
        continue;
      }
      op.security = [{ bearerAuth: [] }, {}];
      const mutating = method === 'post' || method === 'delete';
      r['401'] = err(
        mutating
          ? 'The engine has an API token and the request lacks it or carries another (unauthorized)'
          : 'The engine requires the API token for reads ([http] require_auth_for_reads) and the request lacks it (unauthorized)',
        wwwAuthenticate,
      );
      if (mutating)
        r['429'] = err(
          'Too many POST/DELETE requests from this client in the window ([http] rate_limit_requests per rate_limit_window_s; rate_limited)',
          retryAfter,
        );
    }
  }
  return paths;
}

function buildDocument() {
  return {
    openapi: '3.1.0' as const,
    info: {
      title: 'futures-mm-engine API',
      version: VERSION,
      description:
        'Health, Prometheus metrics, live simulation state and stream, and backtests of the CME futures market-making engine. ' +
        'Errors are always JSON `{ "error": { "code", "message", "fields"? } }`. Prices are in price units, money in USD, times ISO 8601 ' +
        'unless a field says otherwise.',
      // package.json is private and names no license: no license is granted (SPDX LicenseRef- form).
      license: { name: 'Proprietary (no license granted)', identifier: 'LicenseRef-Proprietary' },
    },
    tags: [
      { name: 'ops', description: 'Health, metrics, this document' },
      { name: 'live', description: 'Live simulation state and stream' },
      { name: 'backtest', description: 'Backtest runs (Piscina pool, journaled under data_dir)' },
    ],
    paths: withGuards({
      '/health': {
        get: {
          operationId: 'getHealth',
          tags: ['ops'],
          summary: 'Engine health',
          responses: {
            ...common,
            '200': ok('Every worker is healthy', 'Health'),
            '503': ok('A worker is dead or stalled (status "degraded", same body)', 'Health'),
          },
        },
      },
      '/metrics': {
        get: {
          operationId: 'getMetrics',
          tags: ['ops'],
          summary: 'Prometheus metrics (text exposition format 0.0.4)',
          description:
            'engine_* metrics (base units, `symbol` label where relevant): events, orders, fills by side and liquidity, cancels, rejects, ' +
            'ring drops and predictions totals; ' +
            'position, P&L, fees, equity, drawdown ratio and kill switch gauges; tick-to-trade, book-update and inference latency histograms (seconds); ' +
            'worker up/heartbeat/restarts; SSE clients; backtests by outcome and their duration; HTTP requests. Followed by the Node default metrics.',
          responses: {
            ...common,
            '200': { description: 'Metrics', content: { 'text/plain': { schema: { type: 'string', description: 'Prometheus text format' } } } },
          },
        },
      },
      '/api/state': {
        get: {
          operationId: 'getState',
          tags: ['live'],
          summary: 'Live state of every symbol',
          parameters: [
            { name: 'symbol', in: 'query', required: false, description: 'only this symbol (e.g. ESH24, case-insensitive)', schema: { type: 'string' } },
          ],
          responses: { ...common, '200': ok('State', 'StateResponse'), '404': err('Unknown symbol (unknown_symbol)') },
        },
      },
      '/api/stream': {
        get: {
          operationId: 'getStream',
          tags: ['live'],
          summary: 'Live stream (Server-Sent Events)',
          description:
            'A `state` event on connect (same payload as /api/state), then `state` events at [http] stream_hz per second, and the discrete events ' +
            '`fill`, `alert`, `backtest_progress`, `backtest_complete`; a `: keep-alive` comment every 15 s; `shutdown` before the server closes the stream. ' +
            'A slow client receives only the latest state (frames coalesce); a client stuck for 10 s or with 1000 undelivered events is disconnected. ' +
            'The response schema is the sequence of events (OpenAPI 3.1 has no event-stream model); `x-sse-events` maps each event name to its payload.',
          responses: {
            ...common,
            '200': {
              description: 'Event stream',
              content: { 'text/event-stream': { schema: { type: 'array', description: 'the events, in order', items: ref('StreamEvent') } } },
            },
            '503': err('Too many stream clients ([http] max_sse_clients; too_many_clients) or shutting down (shutting_down)', retryAfter),
          },
        },
      },
      '/api/backtest': {
        post: {
          operationId: 'runBacktest',
          tags: ['backtest'],
          summary: 'Run a backtest and return its result',
          description:
            'Runs on the backtest pool (one task per session) and answers when the run ends. With `Prefer: respond-async` it answers 202 at once ' +
            "(poll /api/backtests/{id} or watch the stream). The body must be `application/json`, at most 64 KiB; `{}` runs the config's defaults.",
          parameters: [
            {
              name: 'Prefer',
              in: 'header',
              required: false,
              description:
                'containing `respond-async`: answer 202 with the run at once. Without it, a client that disconnects before the answer cancels the run.',
              schema: { type: 'string', examples: ['respond-async'] },
            },
            idempotencyKeyHeader('run'),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('BacktestRequest'), example: { symbol: 'ES', initialCapital: 100000, useML: false } } },
          },
          responses: {
            ...common,
            '200': ok('Completed run', 'BacktestRun'),
            '202': {
              ...ok('Accepted (Prefer: respond-async), once its record is on disk', 'BacktestRun'),
              headers: { Location: { description: 'URL of the run, /api/backtests/{id}', schema: { type: 'string' } } },
            },
            '400': err('Malformed JSON (invalid_json) or invalid fields or Idempotency-Key (invalid_request, with `fields`)'),
            '413': err('Body over 64 KiB (payload_too_large)'),
            '415': err('Content-Type is not application/json (unsupported_media_type)'),
            '422': err('The Idempotency-Key was used with a different request (idempotency_key_mismatch, `fields` names the header)'),
            '500': err(
              'The run failed (backtest_failed), its journal could not be written (storage_error: with respond-async, nothing was started) ' +
                'or an unexpected error (internal_error)',
            ),
            '503': err(
              'Queue full in sessions ([backtest] max_queued_sessions; busy, Retry-After = estimated drain time), shutting down ' +
                '(shutting_down), or the run was cancelled (cancelled)',
              retryAfter,
            ),
          },
        },
      },
      '/api/backtests': {
        get: {
          operationId: 'listBacktests',
          tags: ['backtest'],
          summary: 'Backtest runs, newest first, one page of index entries',
          parameters: pageParameters('runs'),
          responses: { ...common, '200': ok('Runs', 'BacktestList'), '400': err('Bad limit or cursor (invalid_request)') },
        },
      },
      '/api/backtests/{id}': {
        get: {
          operationId: 'getBacktest',
          tags: ['backtest'],
          summary: 'One backtest run',
          parameters: [runId],
          responses: {
            ...common,
            '200': ok('Run', 'BacktestRun'),
            '404': err('Unknown id (not_found)'),
            '500': err('Its journal file is missing or unreadable (storage_error)'),
          },
        },
        delete: {
          operationId: 'cancelBacktest',
          tags: ['backtest'],
          summary: 'Cancel a running backtest',
          parameters: [runId],
          responses: {
            ...common,
            '200': ok('Cancelled run', 'BacktestRun'),
            '404': err('Unknown id (not_found)'),
            '409': err('The run is not running (conflict)'),
          },
        },
      },
      '/api/datasets': {
        get: {
          operationId: 'listDatasets',
          tags: ['backtest'],
          summary: 'Recorded market data (DBN) a backtest request may name as its dataset',
          description:
            'The .dbn / .dbn.zst files and directories of daily files under <data_dir>/market/. Each file is read once to count its records ' +
            '(cached until it changes).',
          responses: { ...common, '200': ok('Datasets', 'DatasetList') },
        },
      },
      '/api/strategies': {
        get: {
          operationId: 'listStrategies',
          tags: ['backtest'],
          summary: 'Strategies a backtest request may name, with their parameters',
          description:
            'The built-ins and the strategies loaded at start from files ([strategy] files, --strategy-file): name, version, content hash, ' +
            'what wakes each, and the JSON Schema of its parameters. A request names a strategy and sets `params`; it never carries code ' +
            'or a path.',
          responses: { ...common, '200': ok('Strategies', 'StrategyList') },
        },
      },
      '/api/sweeps': {
        post: {
          operationId: 'startSweep',
          tags: ['backtest'],
          summary: 'Start a parameter sweep: one backtest per grid point',
          description:
            'Every point is validated first (errors name `grid.<parameter>` and the value). The sweep is admitted by its cost, grid points x sessions, ' +
            'against [sweep] max_queued_sessions, runs on the backtest pool, reports `sweep_progress` on the stream and is journaled in <data_dir>/sweeps.',
          parameters: [idempotencyKeyHeader('sweep')],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: ref('SweepRequest'),
                example: { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-05', grid: { spreadMultiplier: [1, 1.5], skewFactor: [0, 0.5] } },
              },
            },
          },
          responses: {
            ...common,
            '200': {
              ...ok('The sweep an Idempotency-Key names, already ended', 'SweepRun'),
              headers: { Location: { description: 'URL of the sweep, /api/sweeps/{id}', schema: { type: 'string' } } },
            },
            '202': {
              ...ok('Accepted once its record is on disk: the sweep runs on (or the running sweep an Idempotency-Key names)', 'SweepRun'),
              headers: { Location: { description: 'URL of the sweep, /api/sweeps/{id}', schema: { type: 'string' } } },
            },
            '400': err(
              'Malformed JSON (invalid_json) or invalid fields, grid parameters or values, Idempotency-Key, or more than [sweep] max_points ' +
                '(invalid_request, with `fields`)',
            ),
            '413': err('Body over 64 KiB (payload_too_large)'),
            '415': err('Content-Type is not application/json (unsupported_media_type)'),
            '422': err('The Idempotency-Key was used with a different request (idempotency_key_mismatch, `fields` names the header)'),
            '500': err('The sweep journal could not store it, e.g. a full disk (storage_error): nothing was started'),
            '503': err('Over [sweep] max_queued_sessions (busy, Retry-After = estimated drain time) or shutting down (shutting_down)', retryAfter),
          },
        },
        get: {
          operationId: 'listSweeps',
          tags: ['backtest'],
          summary: 'Sweeps, newest first, one page of index entries',
          parameters: pageParameters('sweeps'),
          responses: { ...common, '200': ok('Sweeps', 'SweepList'), '400': err('Bad limit or cursor (invalid_request)') },
        },
      },
      '/api/sweeps/{id}': {
        get: {
          operationId: 'getSweep',
          tags: ['backtest'],
          summary: 'One sweep: status, progress and, once completed, its points in grid order',
          parameters: [{ ...runId, description: 'sweep id' }],
          responses: { ...common, '200': ok('Sweep', 'SweepRun'), '404': err('Unknown id (not_found)') },
        },
        delete: {
          operationId: 'cancelSweep',
          tags: ['backtest'],
          summary: 'Cancel a running sweep',
          parameters: [{ ...runId, description: 'sweep id' }],
          responses: {
            ...common,
            '200': ok('Cancelled sweep', 'SweepRun'),
            '404': err('Unknown id (not_found)'),
            '409': err('The sweep is not running (conflict)'),
          },
        },
      },
      '/api/sweeps/{id}/csv': {
        get: {
          operationId: 'getSweepCsv',
          tags: ['backtest'],
          summary:
            'A completed sweep as CSV: one row per point in grid order, as --out FILE.csv writes it (full precision; rank empty for points that never traded)',
          parameters: [{ ...runId, description: 'sweep id' }],
          responses: {
            ...common,
            '200': { description: 'CSV', content: { 'text/csv': { schema: { type: 'string' } } } },
            '404': err('Unknown id (not_found)'),
            '409': err('The sweep has no points: running, failed or cancelled (conflict)'),
          },
        },
      },
      ...Object.fromEntries(
        BACKTEST_ARTIFACTS.map((a) => [
          `/api/backtests/{id}/${a.name}`,
          {
            get: {
              operationId: `getBacktest${a.name.replace(/(^|\.)(\w)/g, (_m, _d, ch: string) => ch.toUpperCase())}`,
              tags: ['backtest'],
              summary: a.summary,
              description: ARTIFACTS_DESCRIPTION,
              parameters: [runId],
              responses: {
                ...common,
                '200': { description: a.summary, content: { [a.contentType.split(';')[0]]: { schema: a.schema } } },
                '404': err('Unknown id (not_found)'),
                '409': err('Not completed, model changed, or the run no longer recomputes to its stored result (conflict)'),
                '503': err('No room in admission to recompute the run (busy, Retry-After = estimated drain time)', retryAfter),
              },
            },
          },
        ]),
      ),
      '/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          tags: ['ops'],
          summary: 'This document',
          responses: {
            ...common,
            '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object', description: 'OpenAPI document' } } } },
          },
        },
      },
    }),
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The API token (ENGINE_API_TOKEN or [http] api_token_file). Optional: without a token configured the engine asks for none. With ' +
            'one, POST and DELETE ' +
            'require it, and with [http] require_auth_for_reads every route but /health, /metrics and /openapi.json.',
        },
      },
    },
    /** Stream event name -> payload schema. */
    'x-sse-events': Object.fromEntries(streamEventSchema.options.map((o) => [o.shape.event.value, ref(componentOf(o.shape.data))])),
  };
}

export type OpenApiDocument = ReturnType<typeof buildDocument>;
export const openApiDocument: OpenApiDocument = buildDocument();
