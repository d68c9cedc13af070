// The dashboard server's Hono app: the built front-end as static files, and the engine's API
// (/api/*, /health, /openapi.json) proxied to ENGINE_URL on the same origin.

import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { compress } from 'hono/compress';
import { etag } from 'hono/etag';
import type pino from 'pino';
import { hostAllowed, hostName, LOOPBACK_HOSTS } from '../../wire/host-names.ts';
import { createEngineProxy, errorJson, type EngineProxy } from './proxy.ts';
import type { StreamRecorder } from './recorder.ts';

export interface DashboardAppOptions {
  engineUrl: string;
  /** The built front-end (dist/dashboard: index.html, app.js, app.css and their maps). */
  staticDir: string;
  logger: pino.Logger;
  /** Records the engine's stream for GET /dashboard/history (optional). */
  recorder?: StreamRecorder;
  /**
   * Host names this server answers besides localhost, 127.0.0.1 and [::1] (any port); ["*"] turns
   * the check off. DASHBOARD_ALLOWED_HOSTS in src/bin/dashboard.ts; default none.
   */
  allowedHosts?: readonly string[];
}

export interface DashboardApp {
  app: Hono;
  proxy: EngineProxy;
}

// Only our bundle runs: no inline script, no third-party origin. lightweight-charts sets element
// styles, hence 'unsafe-inline' for styles only.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'";

export function createDashboardApp(o: DashboardAppOptions): DashboardApp {
  const app = new Hono();
  const proxy = createEngineProxy({ engineUrl: o.engineUrl, logger: o.logger });

  // DNS rebinding: the proxy gives the engine its own Host, so the engine's check never sees the
  // browser's; this one does, before any page is served or any request proxied (the engine's rule,
  // src/wire/host-names.ts, with the dashboard's own list).
  const hostOk = hostAllowed(o.allowedHosts ?? []);
  if (hostOk) {
    app.use('*', async (c, next) => {
      const header = c.req.header('host');
      if (hostOk(header)) return next();
      const name = hostName(header!);
      const shown = name.length > 100 ? `${name.slice(0, 100)}...` : name;
      return errorJson(
        400,
        'invalid_host',
        `the Host header name ${JSON.stringify(shown)} is not allowed: expected ${LOOPBACK_HOSTS.join(', ')} (any port) or a name listed in ` +
          `DASHBOARD_ALLOWED_HOSTS`,
        [{ field: 'Host', message: 'expected an allowed host name' }],
      );
    });
  }

  app.all('/api/*', (c) => proxy.forward(c));
  app.all('/health', (c) => proxy.forward(c));
  app.all('/openapi.json', (c) => proxy.forward(c));

  // The dashboard's own liveness (the engine's is /health).
  app.get('/dashboard/health', (c) =>
    c.json(
      {
        status: 'ok',
        engine_url: o.engineUrl,
        streams: proxy.inFlight,
        recorder: o.recorder ? { connected: o.recorder.connected, frames: o.recorder.frames } : null,
      },
      200,
      { 'cache-control': 'no-store' },
    ),
  );
  // What the page would have drawn had it been open since the dashboard started (see recorder.ts).
  app.get('/dashboard/history', compress(), (c) => {
    const snap = o.recorder?.snapshot() ?? null;
    if (!snap) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } }); // nothing recorded yet
    return c.json(snap, 200, { 'cache-control': 'no-store' });
  });

  // serveStatic refuses paths with "..", "//" or "%" (next() then answers 404); etag() hashes what
  // it serves, so a reload revalidates with a 304.
  app.on(
    ['GET', 'HEAD'],
    '*',
    etag(),
    async (c, next) => {
      c.header('cache-control', 'no-cache');
      c.header('x-content-type-options', 'nosniff');
      if (c.req.path === '/' || c.req.path.endsWith('.html')) {
        c.header('content-security-policy', CSP);
        c.header('referrer-policy', 'no-referrer');
      }
      await next();
    },
    serveStatic({ root: o.staticDir }),
    (c) => errorJson(404, 'not_found', `no dashboard file ${c.req.path}`),
  );
  app.all('*', (c) => errorJson(405, 'method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}`));

  app.onError((err, c) => {
    o.logger.error({ component: 'dashboard', err, path: c.req.path }, 'dashboard request failed');
    return errorJson(500, 'internal_error', 'internal error in the dashboard server (logged)');
  });

  return { app, proxy };
}
