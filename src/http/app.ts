// The Hono application: middleware (request metrics, security headers, Host allow-list, CORS,
// bearer token, rate limit, 405 handling, JSON errors) and the routes. Route modules live in routes/; shared objects (metrics registry, SSE hub) are created
// here and closed by close(). Also the fast path of plain GET /api/state requests
// (state-fast-path.ts), built from the same checks, and the fetch the Node server runs
// (raw-response.ts: the event stream writes its own body).

import { performance } from 'node:perf_hooks'; // the global is an accessor in Node 20: ~15 ns more per call
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { matchedRoutes } from 'hono/route';
import type { BacktestEvent } from '../backtest-service/service.ts';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ApiContext, HttpDeps } from './context.ts';
import type { App, AppEnv } from './app-env.ts';
import { bearerAuth, bearerMatches, digest, tokenNeeded } from './auth.ts';
import { ApiError, apiError, respondApiError } from './errors.ts';
import { hostCheck } from './host-check.ts';
import { hostAllowed } from '../wire/host-names.ts';
import { EngineMetrics } from './metrics.ts';
import { liveDataSource } from '../runtime/live-source.ts';
import { liveStrategy } from '../strategy/setup.ts';
import { registerBacktestArtifacts } from './routes/backtest-artifacts.ts';
import { registerBacktests } from './routes/backtests.ts';
import { registerDatasets } from './routes/datasets.ts';
import { registerStrategies } from './routes/strategies.ts';
import { registerHealth } from './routes/health.ts';
import { registerMetrics } from './routes/metrics.ts';
import { registerOpenApi } from './routes/openapi.ts';
import { registerState, StateCache } from './routes/state.ts';
import { STATE_PATH } from './routes/state-path.ts';
import { registerStream } from './routes/stream.ts';
import { registerSweeps } from './routes/sweeps.ts';
import { SweepService } from '../sweep/service.ts';
import { rateLimit } from './rate-limit.ts';
import { securityHeaders } from './security-headers.ts';
import { RawResponses } from './raw-response.ts';
import { SseHub } from './sse.ts';
import { stateFastPath, type StateFastPath } from './state-fast-path.ts';

export type { HttpDeps } from './context.ts';

export interface HttpOptions {
  /** Largest accepted request body (default 64 KiB). */
  maxBodyBytes?: number;
  /** SSE keep-alive comment interval (default 15 000 ms). */
  keepAliveMs?: number;
  /** An SSE write pending this long drops the client (default 10 000 ms). */
  sseStallTimeoutMs?: number;
  /** Discrete SSE events a client may have undelivered before it is dropped (default 1000). */
  sseMaxQueuedFrames?: number;
  /** Latency drain timer (default 1000 ms; 0 = only at scrape time). */
  latencyDrainMs?: number;
  /** Register Node default metrics (default true). */
  defaultMetrics?: boolean;
  /** Longest a built /api/state body is reused (default 50 ms, the snapshot interval). */
  stateMaxAgeMs?: number;
  /** The API token (auth.ts resolveApiToken); null or omitted: no authentication. */
  apiToken?: string | null;
}

export interface HttpApp {
  app: App;
  /** What the Node server runs: app.fetch, with the bodies routes write themselves (raw-response.ts) started. */
  fetch: (req: Request, env?: AppEnv['Bindings']) => Response | Promise<Response>;
  /** GET /api/state before the router (state-fast-path.ts): true when it answered. */
  fastPath: StateFastPath;
  metrics: EngineMetrics;
  hub: SseHub;
  ctx: ApiContext;
  /** Ends every SSE stream and stops timers (does not close the backtest service). */
  close(): Promise<void>;
}

/** nginx's "client closed request": the status of an answer nobody was left to read (counted as client_closed). */
const CLIENT_CLOSED = 499;

/**
 * True when `err` is the request's body read failing because the client went away (Node: "aborted",
 * ECONNRESET), not a fault of ours that merely happened after the client left.
 */
function clientClosed(req: Request, err: unknown): boolean {
  const e = err as (Error & { code?: string }) | null;
  return e?.code === 'ECONNRESET' || e?.code === 'ERR_STREAM_PREMATURE_CLOSE' || (req.signal.aborted && e?.name === 'AbortError');
}

function routeLabel(c: Parameters<typeof matchedRoutes>[0]): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) if (routes[i].method !== 'ALL') return routes[i].path;
  return 'unmatched';
}

export function createHttpApp(deps: HttpDeps, opts: HttpOptions = {}): HttpApp {
  const { runtime, config, logger, backtests } = deps;
  const log = logger.child({ component: 'http' });
  let lastErrorLog = 0;
  const rateLimitedError = (err: unknown, what: string) => {
    const now = Date.now();
    if (now - lastErrorLog < 10_000) return;
    lastErrorLog = now;
    log.error({ err }, `${what} failed (repeats within 10 s are not logged)`);
  };
  const metrics = new EngineMetrics(runtime, {
    latencyDrainMs: opts.latencyDrainMs,
    defaultMetrics: opts.defaultMetrics,
    onError: (e) => rateLimitedError(e, 'runtime.drainLatency()'),
  });

  const sweeps =
    deps.sweeps ?? new SweepService({ config, logger, pool: () => backtests.ensurePool(), poolThreads: backtests.poolSize, executor: backtests.executor });
  const stateCache = new StateCache(runtime, opts.stateMaxAgeMs, liveDataSource(config), liveStrategy(config));
  const hub = new SseHub({
    hz: config.http.stream_hz,
    maxClients: config.http.max_sse_clients,
    keepAliveMs: opts.keepAliveMs,
    stallTimeoutMs: opts.sseStallTimeoutMs,
    maxQueuedFrames: opts.sseMaxQueuedFrames,
    state: () => stateCache.json(),
    sources: [
      (publish) =>
        runtime.subscribe((ev) => {
          if (ev.type === 'fill') publish('fill', ev.fill);
          else publish('alert', { symbol: ev.symbol, alert: ev.alert });
        }),
      (publish) =>
        backtests.subscribe((ev: BacktestEvent) => {
          if (ev.type === 'progress') publish('backtest_progress', { id: ev.id, symbol: ev.symbol, progress: ev.progress });
          else publish('backtest_complete', ev.run);
        }),
      (publish) => sweeps.subscribe((ev) => publish('sweep_progress', ev)),
    ],
    onClientCount: (n) => metrics.sseClients.set(n),
    onDrop: (reason) => {
      metrics.sseDropped.inc({ reason });
      log.warn({ reason }, 'dropped a slow SSE client');
    },
    onCoalesce: () => metrics.sseCoalesced.inc(),
    onError: (e, what) => rateLimitedError(e, `SSE: ${what}`),
  });
  metrics.sseClients.set(0);

  backtests.observer = metrics.backtestObserver();
  metrics.backtestsRunning.set(backtests.running);

  const rawResponses = new RawResponses();
  const ctx: ApiContext = { ...deps, sweeps, metrics, hub, rawResponses, maxBodyBytes: opts.maxBodyBytes ?? 64 * 1024 };
  const app: App = new Hono<AppEnv>();

  const debug = log.isLevelEnabled('debug');
  /** Request metrics and log line of every answer of Hono's (the fast path's below: the same series). */
  const answered = (method: string, path: string, route: string, status: number, seconds: number) => {
    // A client that went away mid-request is no server failure: its own label, a debug line.
    const closed = status === CLIENT_CLOSED;
    metrics.httpRequests.inc({ method, route, status: closed ? 'client_closed' : String(status) });
    metrics.httpDuration.observe({ method, route }, seconds);
    if (status >= 500 && !closed) log.warn({ method, path, status }, 'request failed');
    else if (debug) log.debug({ method, path, status: closed ? 'client_closed' : status }, 'request');
  };
  app.use('*', async (c, next) => {
    const t0 = performance.now();
    await next();
    answered(c.req.method, c.req.path, routeLabel(c), c.res.status, (performance.now() - t0) / 1000);
  });
  app.use('*', securityHeaders());
  const hosts = hostCheck(config.http.allowed_hosts);
  if (hosts) app.use('*', hosts);
  const origins = config.http.cors_origins;
  const corsHeaders = cors({
    origin: origins.includes('*') ? '*' : origins,
    allowMethods: ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'Prefer', 'Idempotency-Key', 'Last-Event-ID', 'Cache-Control', 'Authorization'],
    exposeHeaders: ['Retry-After', 'Location', 'Allow', 'WWW-Authenticate'],
    maxAge: 600,
  });
  // CORS only concerns browsers, which always send Origin on cross-origin requests. Skipping it
  // otherwise keeps Hono's fast response path (setting headers on c.res copies the response).
  app.use('*', (c, next) => (c.req.header('origin') === undefined ? next() : corsHeaders(c, next)));
  const token = opts.apiToken ?? null;
  const tokenDigest = token === null ? null : digest(token);
  const reads = config.http.require_auth_for_reads;
  // The limiter runs before authentication, so requests without the valid token are limited too
  // (by address): mutations, and reads that will be refused for want of it.
  const limiter = rateLimit({
    limit: config.http.rate_limit_requests,
    windowS: config.http.rate_limit_window_s,
    authenticated: (header) => tokenDigest !== null && bearerMatches(header, tokenDigest),
    refusedRead: (method, path, header) => tokenDigest !== null && tokenNeeded(method, path, reads) && !bearerMatches(header, tokenDigest),
  });
  if (limiter) app.use('*', limiter);
  if (token !== null) app.use('*', bearerAuth({ token, reads }));
  const fastPath = stateFastPath({
    body: () => stateCache.bytes(),
    hostAllowed: hostAllowed(config.http.allowed_hosts),
    tokenDigest: tokenDigest !== null && tokenNeeded('GET', STATE_PATH, config.http.require_auth_for_reads) ? tokenDigest : null,
    answered: (seconds) => {
      metrics.stateAnswered(seconds);
      if (debug) log.debug({ method: 'GET', path: STATE_PATH, status: 200 }, 'request');
    },
  });
  app.use(
    '*',
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        apiError(c, 405, 'method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}; allowed: ${methods.join(', ')}`, undefined, {
          Allow: methods.join(', '),
        }),
    }),
  );

  registerHealth(app, ctx);
  registerMetrics(app, ctx);
  registerState(app, ctx, stateCache);
  registerStream(app, ctx);
  registerBacktests(app, ctx);
  registerDatasets(app, ctx);
  registerStrategies(app, ctx);
  registerSweeps(app, ctx, sweeps);
  registerBacktestArtifacts(app, ctx);
  registerOpenApi(app, ctx);

  app.notFound((c) => apiError(c, 404, 'not_found', `no route ${c.req.method} ${c.req.path}`));
  app.onError((err, c) => {
    if (err instanceof ApiError) return respondApiError(c, err);
    if (err instanceof HTTPException && err.status < 500) {
      return apiError(c, err.status as ContentfulStatusCode, err.status === 413 ? 'payload_too_large' : 'invalid_request', err.message || 'bad request');
    }
    if (clientClosed(c.req.raw, err)) {
      if (debug) log.debug({ method: c.req.method, path: c.req.path, err: (err as Error).message }, 'the client closed the connection mid-request');
      return new Response(null, { status: CLIENT_CLOSED }); // nobody reads it
    }
    log.error({ err, method: c.req.method, path: c.req.path }, 'unhandled error in a request handler');
    return apiError(c, 500, 'internal_error', 'internal error (logged)');
  });

  return {
    app,
    fetch: rawResponses.fetch(app),
    fastPath,
    metrics,
    hub,
    ctx,
    async close() {
      // Sweeps stop before the backtest service destroys the pool they run on.
      await sweeps.close();
      await hub.closeAll();
      metrics.close();
    },
  };
}
