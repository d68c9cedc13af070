// The dashboard server's Hono app: the built front-end as static files, and the engine's API
// (/api/*, /health, /openapi.json) proxied to ENGINE_URL on the same origin.

import { Hono } from 'hono';
import { compress } from 'hono/compress';
import type pino from 'pino';
import { createEngineProxy, errorJson, type EngineProxy } from './proxy.ts';
import type { StreamRecorder } from './recorder.ts';
import type { StaticFiles } from './static-files.ts';

export interface DashboardAppOptions {
  engineUrl: string;
  files: StaticFiles;
  logger: pino.Logger;
  /** Records the engine's stream for GET /dashboard/history (optional). */
  recorder?: StreamRecorder;
}

export interface DashboardApp {
  app: Hono;
  proxy: EngineProxy;
}

// Only our bundle runs: no inline script, no third-party origin. lightweight-charts sets element
// styles, hence 'unsafe-inline' for styles only.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function createDashboardApp(o: DashboardAppOptions): DashboardApp {
  const app = new Hono();
  const proxy = createEngineProxy({ engineUrl: o.engineUrl, logger: o.logger });

  app.all('/api/*', (c) => proxy.forward(c));
  app.all('/health', (c) => proxy.forward(c));
  app.all('/openapi.json', (c) => proxy.forward(c));

  // The dashboard's own liveness (the engine's is /health).
  app.get('/dashboard/health', (c) =>
    c.json({ status: 'ok', engine_url: o.engineUrl, streams: proxy.inFlight, recorder: o.recorder ? { connected: o.recorder.connected, frames: o.recorder.frames } : null }, 200, { 'cache-control': 'no-store' }),
  );
  // What the page would have drawn had it been open since the dashboard started (see recorder.ts).
  app.get('/dashboard/history', compress(), (c) => {
    const snap = o.recorder?.snapshot() ?? null;
    if (!snap) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } }); // nothing recorded yet
    return c.json(snap, 200, { 'cache-control': 'no-store' });
  });

  app.on(['GET', 'HEAD'], '*', (c) => {
    const f = o.files.lookup(c.req.path);
    if (!f) return errorJson(404, 'not_found', `no dashboard file ${c.req.path}`);
    const headers: Record<string, string> = {
      'content-type': f.type,
      etag: f.etag,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    };
    if (f.type.startsWith('text/html')) {
      headers['content-security-policy'] = CSP;
      headers['referrer-policy'] = 'no-referrer';
    }
    if (c.req.header('if-none-match') === f.etag) return new Response(null, { status: 304, headers });
    return new Response(c.req.method === 'HEAD' ? null : f.body, { status: 200, headers: { ...headers, 'content-length': String(f.body.byteLength) } });
  });
  app.all('*', (c) => errorJson(405, 'method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}`));

  app.onError((err, c) => {
    o.logger.error({ component: 'dashboard', err, path: c.req.path }, 'dashboard request failed');
    return errorJson(500, 'internal_error', 'internal error in the dashboard server (logged)');
  });

  return { app, proxy };
}
