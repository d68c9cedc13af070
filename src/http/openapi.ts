// The OpenAPI 3.1 description of the HTTP API, written by hand as a typed object. Object schemas
// are closed (additionalProperties: false) and list every field, so the tests can validate real
// responses against them (schema-check.ts): a field added to the state or the result without
// being documented here fails a test.

import { BACKTEST_STATUSES } from '../backtest/service.ts';
import { VERSION } from '../version.ts';
import { ERROR_CODES } from './errors.ts';

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

export interface Schema {
  $ref?: string;
  type?: JsonType | JsonType[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: (string | number | boolean | null)[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  format?: string;
  example?: unknown;
  default?: unknown;
}

interface MediaType {
  schema: Schema;
  example?: unknown;
}
interface ResponseObject {
  description: string;
  headers?: Record<string, { description: string; schema: Schema }>;
  content?: Record<string, MediaType>;
}
interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description: string;
  schema: Schema;
}
interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required: boolean; description?: string; content: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers?: { url: string; description?: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Partial<Record<'get' | 'post' | 'delete', Operation>>>;
  components: { schemas: Record<string, Schema> };
  /** Stream event name -> payload schema (there is no SSE event model in OpenAPI 3.1). */
  'x-sse-events': Record<string, Schema>;
}

// ---------------------------------------------------------------------------------------------
// Schema builders.

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const num = (description: string, extra: Partial<Schema> = {}): Schema => ({ type: 'number', description, ...extra });
const int = (description: string, extra: Partial<Schema> = {}): Schema => ({ type: 'integer', description, ...extra });
const str = (description: string, extra: Partial<Schema> = {}): Schema => ({ type: 'string', description, ...extra });
const bool = (description: string): Schema => ({ type: 'boolean', description });
const arr = (items: Schema, description: string): Schema => ({ type: 'array', items, description });
const nullable = (s: Schema): Schema => {
  if (s.$ref) return { anyOf: [s, { type: 'null' }], description: s.description };
  const t = s.type;
  return { ...s, type: Array.isArray(t) ? [...t, 'null'] : t ? [t, 'null'] : ['null'] };
};
/** A closed object; every property is required unless listed in `optional`. */
const obj = (description: string, properties: Record<string, Schema>, optional: string[] = []): Schema => ({
  type: 'object',
  description,
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: false,
});
const iso = (description: string) => str(description, { format: 'date-time' });
const date = (description: string) => str(description, { format: 'date', example: '2024-01-02' });

// ---------------------------------------------------------------------------------------------
// Components.

const errorCodes = [...ERROR_CODES] as string[];

const latencySummary = obj('Latency over the runtime\'s recent window, in microseconds (null when there is no sample).', {
  count: int('samples in the window'),
  p50_us: nullable(num('median')),
  p90_us: nullable(num('90th percentile')),
  p99_us: nullable(num('99th percentile')),
  max_us: nullable(num('maximum')),
});

const alertFields = {
  ts: num('engine timestamp (ns on the session clock)'),
  severity: str('severity', { enum: ['info', 'warning', 'critical'] }),
  code: str('alert code, e.g. KILL_SWITCH, DRAWDOWN_WARNING'),
  message: str('human-readable message'),
  value: num('the figure that raised the alert'),
  limit: num('the limit it was compared with'),
};

const fill = obj('One fill of our orders.', {
  symbol: str('contract symbol, e.g. ESH24'),
  time: iso('simulated exchange time (ISO 8601)'),
  side: str('side of our order', { enum: ['buy', 'sell'] }),
  price: num('fill price'),
  qty: int('filled contracts'),
  liquidity: str('maker = passive, taker = aggressive', { enum: ['maker', 'taker'] }),
  fee: num('fee of this fill in USD (negative = rebate)'),
  pnl: num('closed-trade P&L this fill realised, net of pro-rata fees (USD)'),
  position: int('position after the fill (contracts)'),
  order_id: int('our order id'),
  order_to_fill_us: num('simulated time from sending the order to its fill reaching the engine, including the time it rested in the queue (us)'),
});

const bookLevel = obj('One price level.', { price: num('price'), size: int('displayed contracts') });

const ourOrder = obj('One of our working orders.', {
  id: int('order id'),
  side: str('side', { enum: ['buy', 'sell'] }),
  price: num('limit price'),
  qty: int('original contracts'),
  leaves: int('contracts still working'),
  state: str('order state', { enum: ['pending_new', 'live', 'pending_cancel'] }),
});

const symbolState = obj('Live state of one symbol.', {
  symbol: str('contract symbol, e.g. ESH24'),
  root: str('contract root, e.g. ES'),
  session_date: date('trading session date'),
  sim_time: iso('simulated time (ISO 8601)'),
  book: obj('Local order book as seen through delayed market data.', {
    bids: arr(ref('BookLevel'), 'up to 15 bid levels, best first'),
    asks: arr(ref('BookLevel'), 'up to 15 ask levels, best first'),
    best_bid: nullable(num('best bid price')),
    best_ask: nullable(num('best ask price')),
    spread: nullable(num('best ask - best bid, in price units')),
    mid: nullable(num('mid price')),
    microprice: nullable(num('size-weighted mid')),
    our_orders: arr(ref('OurOrder'), 'our working orders'),
  }),
  position: obj('Position and P&L (USD).', {
    contracts: int('net position (negative = short)'),
    avg_price: nullable(num('average entry price of the open position')),
    realized_pnl: num('realized P&L, USD'),
    unrealized_pnl: num('open position marked to mid, USD'),
    fees_paid: num('fees paid, USD'),
    equity: num('initial capital + realized + unrealized - fees, USD'),
    total_pnl: num('equity - initial capital, USD'),
    drawdown_pct: num('current drawdown from the equity peak, percent'),
    daily_pnl: num('P&L of the current session, USD'),
  }),
  stats: obj('Trade statistics (REFERENCE.md definitions).', {
    fills: int('fills'),
    volume: int('contracts filled'),
    total_trades: int('closed (FIFO-matched) trades'),
    win_rate: num('winning closed trades / total_trades, 0..1'),
    profit_factor: nullable(num('gross win / |gross loss|; null without a losing trade')),
    sharpe_ratio: nullable(num('annualised Sharpe ratio of per-minute equity returns; null with fewer than two returns')),
    max_drawdown_pct: num('maximum drawdown, percent'),
  }),
  recent_trades: arr(ref('Fill'), 'recent fills, newest first'),
  latency: obj('Latency summaries by stage.', {
    tick_to_trade: ref('LatencySummary'),
    book_update: ref('LatencySummary'),
    inference: ref('LatencySummary'),
  }),
  prediction: nullable(
    obj('Latest model prediction (null when none).', {
      value_ticks: num('predicted mid move, ticks'),
      horizon_ms: num('prediction horizon, ms'),
      age_ms: num('age of the prediction, ms'),
      model_version: str('model version'),
    }),
  ),
  model: obj('Model status.', { loaded: bool('a model is loaded'), version: nullable(str('model version')), error: nullable(str('load error')), used_in_quotes: bool('the live strategy shifts its quotes by the prediction (strategy.use_ml = true and a model loaded); false = the forecast is only shown') }),
  risk: obj('Risk limits, utilisation, kill switch and alerts.', {
    limits: obj('Configured limits.', {
      position_limit: int('contracts'),
      max_order_size: int('contracts per order'),
      max_drawdown_pct: num('drawdown limit in percent of peak equity (6 = 6%); the config key risk.max_drawdown_pct and a backtest request\'s maxDrawdown give it as a fraction (0.06)'),
      max_daily_loss: num('USD'),
      kill_switch_enabled: bool('kill switch enabled'),
    }),
    utilisation: obj('Fractions of the limits in use.', { position: num('fraction'), drawdown: num('fraction'), daily_loss: num('fraction') }),
    kill_switch: obj('Kill switch state.', { active: bool('quoting stopped'), reason: nullable(str('why it tripped')), time: nullable(iso('when it tripped')) }),
    alerts: arr(ref('StateAlert'), 'recent alerts, newest last'),
  }),
  counters: obj('Counters.', {
    events: int('market-data events handled'),
    events_per_sec: num('recent event rate'),
    orders: int('orders sent'),
    cancels: int('cancels sent'),
    rejects: int('rejected orders'),
    ring_drops: int('records dropped by full rings'),
    uptime_s: num('seconds since the runtime started'),
  }),
});

const stateResponse = obj('Live state of every configured symbol (or the one asked for).', {
  version: str('engine version', { example: VERSION }),
  uptime_s: num('seconds since the runtime started'),
  symbols: arr(str('symbol'), 'symbols in `states`'),
  states: { type: 'object', description: 'symbol -> state', additionalProperties: ref('SymbolState') },
});

const workerHealth = obj('Health of one worker thread.', {
  name: str('worker name, e.g. market-data, order-book, inference'),
  state: str('worker state', { enum: ['starting', 'running', 'stalled', 'dead', 'restarting', 'stopped'] }),
  heartbeat_age_ms: num('ms since the last heartbeat'),
  restarts: int('restarts so far'),
  last_error: nullable(str('last error message')),
});

const health = obj('Engine health.', {
  status: str('ok when every worker is healthy, else degraded (HTTP 503)', { enum: ['ok', 'degraded'] }),
  version: str('engine version', { example: VERSION }),
  uptime_s: num('seconds since the runtime started'),
  workers: arr(ref('WorkerHealth'), 'worker threads'),
  backtests: obj('Backtest capacity.', { running: int('runs running or queued'), max_concurrent: int('runs admitted at once'), pool_size: int('pool threads') }),
  sse_clients: int('connected live stream clients'),
});

const errorSchema = obj('Error response.', {
  error: obj(
    'The error.',
    {
      code: str('machine-readable code', { enum: errorCodes }),
      message: str('human-readable message'),
      fields: arr(obj('One invalid field.', { field: str('field name (dotted path), "(body)" for the whole body'), message: str('what was expected') }), 'invalid fields (400 only)'),
    },
    ['fields'],
  ),
});

const fraction = 'a fraction in (0, 1] of peak equity, e.g. 0.06 for 6%';
const backtestRequest = obj(
  'A backtest request. Omitted fields take their defaults from the config file.',
  {
    symbol: str('contract root such as "ES" (or a month-coded symbol such as "ESH24")', { example: 'ES' }),
    startDate: date('first session date (default [simulation] start_date)'),
    endDate: date('last session date (default startDate); at most [backtest] max_days business days'),
    initialCapital: num('USD, > 0', { exclusiveMinimum: 0, example: 100000 }),
    spreadMultiplier: num('scales the quoted half-spread, (0, 100]', { exclusiveMinimum: 0, maximum: 100 }),
    inventoryLimit: int('contracts: stop quoting the side that would grow inventory past it', { minimum: 1, maximum: 100000 }),
    skewFactor: num('inventory skew of the reservation price, [0, 1000]', { minimum: 0, maximum: 1000 }),
    useML: bool('shift quotes by the model prediction'),
    maxDrawdown: num(fraction, { exclusiveMinimum: 0, maximum: 1 }),
    positionLimit: int('contracts: hard position limit', { minimum: 1, maximum: 100000 }),
    seed: int('seed of the synthetic market, 0..2^32-1', { minimum: 0, maximum: 4294967295 }),
  },
  ['startDate', 'endDate', 'initialCapital', 'spreadMultiplier', 'inventoryLimit', 'skewFactor', 'useML', 'maxDrawdown', 'positionLimit', 'seed'],
);

const resolvedRequest = obj('The request with every default filled in.', {
  root: str('contract root'),
  symbol: str('symbol as requested (upper case)'),
  startDate: date('first date'),
  endDate: date('last date'),
  dates: arr(date('session date'), 'business days (one session each)'),
  initialCapital: num('USD'),
  spreadMultiplier: num('half-spread multiplier'),
  inventoryLimit: int('contracts'),
  skewFactor: num('inventory skew'),
  useML: bool('model on'),
  maxDrawdown: num('fraction'),
  positionLimit: int('contracts'),
  seed: int('seed'),
  model: nullable(obj('The model a useML run uses (null without useML).', { version: str('model version'), path: str('model file') })),
});

const markout = obj('Markout at one horizon: mid move after our fills, signed in our favour.', {
  fills_qty: int('contracts measured'),
  avg_ticks: nullable(num('average, ticks')),
  avg_usd_per_contract: nullable(num('average, USD per contract')),
});

const runMeta: Record<string, Schema> = {
  id: str('run id', { example: 'bt_20240102T093000123Z_0001_a1b2c3' }),
  status: str('running, completed, failed, cancelled (by request or shutdown) or interrupted (the engine stopped mid-run)', { enum: [...BACKTEST_STATUSES] }),
  request: { description: 'the request body as posted' },
  resolved: ref('ResolvedBacktestRequest'),
  started_at: iso('start time'),
  finished_at: nullable(iso('end time (null while running)')),
  duration_ms: nullable(int('wall time (null while running)')),
  progress: num('fraction done, 0..1'),
  error: nullable(obj('Why the run did not complete.', { code: str('cancelled, interrupted or backtest_failed'), message: str('message') })),
};

const resultFields: Record<string, Schema> = {
  symbol: str('symbol as requested'),
  root: str('contract root'),
  start_date: date('first date'),
  end_date: date('last date'),
  sessions: int('sessions run'),
  seed: int('seed'),
  use_ml: bool('model on'),
  model_version: nullable(str('version of the model the run used (null without useML)')),
  params: obj('Strategy and risk parameters used.', {
    initialCapital: num('USD'),
    spreadMultiplier: num('half-spread multiplier'),
    skewFactor: num('inventory skew'),
    inventoryLimit: int('contracts'),
    positionLimit: int('contracts'),
    maxDrawdown: num('fraction'),
  }),
  events_processed: int('market-data events handled'),
  total_pnl: num('final equity - initial capital, net of fees (USD)'),
  sharpe_ratio: num('mean / sample std of per-minute equity returns x sqrt(252 x 390)'),
  max_drawdown_pct: num('maximum drawdown of sampled equity, percent (5.2 = 5.2%)'),
  win_rate: num('winning closed trades / total_trades, 0..1'),
  profit_factor: nullable(num('gross win / |gross loss|; null without a losing trade')),
  total_trades: int('closed (FIFO-matched) trades'),
  winning_trades: int('closed trades with P&L > 0'),
  losing_trades: int('closed trades with P&L < 0'),
  total_fills: int('fills'),
  volume: int('contracts filled'),
  fees_paid: num('USD'),
  realized_pnl: num('USD'),
  unrealized_pnl: num('USD, at the end'),
  final_position: int('contracts at the end'),
  max_abs_position: int('largest absolute position, contracts'),
  final_equity: num('USD'),
  initial_capital: num('USD'),
  orders_sent: int('orders sent'),
  cancels_sent: int('cancels sent'),
  rejects: int('rejected orders'),
  risk_rejects: int('orders stopped by the risk checks'),
  predictions: int('model predictions'),
  markouts: { type: 'object', description: 'horizon label (100ms, 1s, 10s) -> markout', additionalProperties: ref('Markout') },
  kill_switch: obj('Kill switch.', { tripped_sessions: arr(date('date'), 'sessions where it tripped') }),
  alerts: arr(obj('A risk alert of one session.', { ...alertFields, ts: num('epoch ms'), date: date('session date') }), 'risk alerts'),
  session_results: arr(
    obj('One session.', {
      date: date('session date'),
      pnl: num('session P&L, USD'),
      fills: int('fills'),
      events: int('events'),
      final_position: int('contracts'),
      final_mid: nullable(num('last mid price')),
      kill_switch: bool('kill switch tripped'),
    }),
    'per-session figures',
  ),
  equity_curve: arr(obj('One equity sample.', { t: int('epoch ms'), equity: num('USD') }), 'equity per simulated minute, downsampled to at most 500 points (first, last, and the low and high of each bucket)'),
};

const resultKeys = Object.keys(resultFields);
const backtestRun: Schema = obj('A backtest run: metadata plus, once completed, every result field.', { ...runMeta, ...resultFields }, resultKeys);
const { equity_curve: _curve, ...summaryFields } = resultFields;
const backtestRunSummary: Schema = obj('A backtest run without its equity curve.', { ...runMeta, ...summaryFields }, Object.keys(summaryFields));

const events: Record<string, Schema> = {
  state: ref('StateResponse'),
  fill: ref('Fill'),
  alert: obj('A risk alert.', { symbol: str('symbol'), alert: ref('StateAlert') }),
  backtest_progress: obj('Progress of a running backtest (at most ~4 per second per run).', { id: str('run id'), symbol: str('symbol'), progress: num('fraction done, 0..1') }),
  backtest_complete: ref('BacktestRunSummary'),
  shutdown: obj('The server is shutting down; the stream ends after this event.', { reason: str('reason') }),
};

// ---------------------------------------------------------------------------------------------
// Paths.

const json = (schema: Schema) => ({ 'application/json': { schema } });
const err = (description: string, headers?: ResponseObject['headers']): ResponseObject => ({ description, content: json(ref('Error')), ...(headers ? { headers } : {}) });
const retryAfter = { 'Retry-After': { description: 'seconds to wait before retrying', schema: int('seconds') } };
const allow = { Allow: { description: 'methods the path supports', schema: str('e.g. GET, HEAD') } };
/** Responses every operation can give. Spread first, so an operation can override one. */
const common = { '405': err('Method not allowed (see Allow)', allow), '500': err('Unexpected server error (internal_error); logged, details not sent') };

export const openApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'futures-mm-engine API',
    version: VERSION,
    description:
      'Health, Prometheus metrics, live simulation state and stream, and backtests of the CME futures market-making engine. ' +
      'Errors are always JSON `{ "error": { "code", "message", "fields"? } }`. Prices are in price units, money in USD, times ISO 8601 unless a field says otherwise.',
  },
  tags: [
    { name: 'ops', description: 'Health, metrics, this document' },
    { name: 'live', description: 'Live simulation state and stream' },
    { name: 'backtest', description: 'Backtest runs (Piscina pool, journaled under data_dir)' },
  ],
  paths: {
    '/health': {
      get: {
        operationId: 'getHealth',
        tags: ['ops'],
        summary: 'Engine health',
        responses: {
          ...common,
          '200': { description: 'Every worker is healthy', content: json(ref('Health')) },
          '503': { description: 'A worker is dead or stalled (status "degraded", same body)', content: json(ref('Health')) },
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'getMetrics',
        tags: ['ops'],
        summary: 'Prometheus metrics (text exposition format 0.0.4)',
        description:
          'engine_* metrics (base units, `symbol` label where relevant): events, orders, fills by side and liquidity, cancels, rejects, ring drops and predictions totals; ' +
          'position, P&L, fees, equity, drawdown ratio and kill switch gauges; tick-to-trade, book-update and inference latency histograms (seconds); ' +
          'worker up/heartbeat/restarts; SSE clients; backtests by outcome and their duration; HTTP requests. Followed by the Node default metrics.',
        responses: { ...common, '200': { description: 'Metrics', content: { 'text/plain': { schema: str('Prometheus text format') } } } },
      },
    },
    '/api/state': {
      get: {
        operationId: 'getState',
        tags: ['live'],
        summary: 'Live state of every symbol',
        parameters: [{ name: 'symbol', in: 'query', required: false, description: 'only this symbol (e.g. ESH24)', schema: str('symbol') }],
        responses: {
          ...common,
          '200': { description: 'State', content: json(ref('StateResponse')) },
          '404': err('Unknown symbol (code unknown_symbol)'),
        },
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
          'Payload schemas per event: `x-sse-events`.',
        responses: {
          ...common,
          '200': { description: 'Event stream', content: { 'text/event-stream': { schema: str('SSE frames: `event: <name>` + `data: <JSON>`') } } },
          '503': err('Too many stream clients ([http] max_sse_clients; code too_many_clients)', retryAfter),
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
          '(poll /api/backtests/{id} or watch the stream). The body must be `application/json`, at most 64 KiB.',
        parameters: [{ name: 'Prefer', in: 'header', required: false, description: '`respond-async` to get 202 and the run id at once', schema: str('respond-async') }],
        requestBody: { required: true, content: { 'application/json': { schema: ref('BacktestRequest'), example: { symbol: 'ES', initialCapital: 100000, useML: false } } } },
        responses: {
          ...common,
          '200': { description: 'Completed run', content: json(ref('BacktestRun')) },
          '202': {
            description: 'Accepted (Prefer: respond-async)',
            headers: { Location: { description: 'URL of the run', schema: str('/api/backtests/{id}') } },
            content: json(ref('BacktestRun')),
          },
          '400': err('Malformed JSON (invalid_json) or invalid fields (invalid_request, with `fields`)'),
          '413': err('Body over 64 KiB (payload_too_large)'),
          '415': err('Content-Type is not application/json (unsupported_media_type)'),
          '500': err('The run failed (backtest_failed) or an unexpected error (internal_error)'),
          '503': err('Pool busy (busy) or the server is shutting down (shutting_down, cancelled)', retryAfter),
        },
      },
    },
    '/api/backtests': {
      get: {
        operationId: 'listBacktests',
        tags: ['backtest'],
        summary: 'Backtest runs, newest first (without equity curves)',
        parameters: [{ name: 'limit', in: 'query', required: false, description: 'at most this many runs (1..1000, default 100)', schema: int('limit', { minimum: 1, maximum: 1000, default: 100 }) }],
        responses: {
          ...common,
          '200': { description: 'Runs', content: json(ref('BacktestList')) },
          '400': err('Bad limit (invalid_request)'),
        },
      },
    },
    '/api/backtests/{id}': {
      get: {
        operationId: 'getBacktest',
        tags: ['backtest'],
        summary: 'One backtest run',
        parameters: [{ name: 'id', in: 'path', required: true, description: 'run id', schema: str('run id') }],
        responses: { ...common, '200': { description: 'Run', content: json(ref('BacktestRun')) }, '404': err('Unknown id (not_found)') },
      },
      delete: {
        operationId: 'cancelBacktest',
        tags: ['backtest'],
        summary: 'Cancel a running backtest',
        parameters: [{ name: 'id', in: 'path', required: true, description: 'run id', schema: str('run id') }],
        responses: {
          ...common,
          '200': { description: 'Cancelled run', content: json(ref('BacktestRun')) },
          '404': err('Unknown id (not_found)'),
          '409': err('The run is not running (conflict)'),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'getOpenApi',
        tags: ['ops'],
        summary: 'This document',
        responses: { ...common, '200': { description: 'OpenAPI 3.1 document', content: json({ type: 'object', description: 'OpenAPI document' }) } },
      },
    },
  },
  components: {
    schemas: {
      Error: errorSchema,
      Health: health,
      WorkerHealth: workerHealth,
      StateResponse: stateResponse,
      SymbolState: symbolState,
      BookLevel: bookLevel,
      OurOrder: ourOrder,
      Fill: fill,
      LatencySummary: latencySummary,
      StateAlert: obj('A risk alert.', { ...alertFields, time: iso('simulated time of the alert') }),
      BacktestRequest: backtestRequest,
      ResolvedBacktestRequest: resolvedRequest,
      Markout: markout,
      BacktestRun: backtestRun,
      BacktestRunSummary: backtestRunSummary,
      BacktestList: obj('Runs, newest first.', { total: int('runs in the journal'), runs: arr(ref('BacktestRunSummary'), 'runs') }),
      ...Object.fromEntries(Object.entries(events).map(([k, v]) => [`StreamEvent_${k}`, v])),
    },
  },
  'x-sse-events': Object.fromEntries(Object.keys(events).map((k) => [k, ref(`StreamEvent_${k}`)])),
};
