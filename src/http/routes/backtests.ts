// POST /api/backtest, GET /api/backtests, GET|DELETE /api/backtests/:id.

import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { toApi, type BacktestRecord } from '../../backtest/service.ts';
import type { ApiContext, App, AppEnv } from '../context.ts';
import { apiError } from '../errors.ts';

/** application/json, application/json; charset=utf-8, application/problem+json, ... */
function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mime = contentType.split(';')[0].trim().toLowerCase();
  return mime === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mime);
}

function requireJson(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const ct = c.req.header('content-type');
    if (!isJson(ct)) {
      return apiError(c, 415, 'unsupported_media_type', ct ? `Content-Type '${ct}' is not supported: send application/json` : 'missing Content-Type: send application/json');
    }
    await next();
  };
}

/** A message for a body JSON.parse rejected (V8 names the position). */
function jsonErrorMessage(e: unknown, text: string): string {
  if (text.trim() === '') return 'the request body is empty: expected a JSON object';
  const m = e instanceof Error ? e.message : String(e);
  return `the request body is not valid JSON: ${m}`;
}

function completed(c: Context<AppEnv>, rec: BacktestRecord) {
  switch (rec.status) {
    case 'completed':
      return c.json(toApi(rec), 200);
    case 'cancelled':
    case 'interrupted':
      return apiError(c, 503, 'cancelled', `backtest ${rec.id} was cancelled: ${rec.error?.message ?? 'cancelled'}`, undefined, { 'Retry-After': '5' });
    default:
      return apiError(c, 500, 'backtest_failed', `backtest ${rec.id} failed: ${rec.error?.message ?? 'unknown error'}`);
  }
}

export function registerBacktests(app: App, ctx: ApiContext): void {
  const svc = ctx.backtests;
  const limit = bodyLimit({
    maxSize: ctx.maxBodyBytes,
    // The rest of the body is never read, so the connection cannot carry another request: say so,
    // or a keep-alive client reuses it and its next request fails with "other side closed".
    onError: (c) => apiError(c, 413, 'payload_too_large', `the request body is larger than ${ctx.maxBodyBytes} bytes`, undefined, { Connection: 'close' }),
  });

  app.post('/api/backtest', requireJson(), limit, async (c) => {
    const text = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      return apiError(c, 400, 'invalid_json', jsonErrorMessage(e, text));
    }
    const out = svc.submit(body);
    switch (out.kind) {
      case 'invalid':
        return apiError(c, 400, 'invalid_request', `invalid backtest request: ${out.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, out.errors);
      case 'busy':
        return apiError(c, 503, 'busy', out.message, undefined, { 'Retry-After': String(out.retryAfterS) });
      case 'closed':
        return apiError(c, 503, 'shutting_down', 'the server is shutting down', undefined, { 'Retry-After': '5' });
    }
    if (/\brespond-async\b/i.test(c.req.header('prefer') ?? '')) {
      const rec = svc.get(out.id)!;
      return c.json(toApi(rec), 202, { Location: `/api/backtests/${out.id}`, 'Preference-Applied': 'respond-async' });
    }
    return completed(c, await out.done);
  });

  app.get('/api/backtests', (c) => {
    const raw = c.req.query('limit');
    let n = 100;
    if (raw !== undefined) {
      n = Number(raw);
      if (!/^\d+$/.test(raw) || n < 1 || n > 1000) {
        return apiError(c, 400, 'invalid_request', `limit must be an integer in 1..1000, got '${raw}'`, [{ field: 'limit', message: 'expected an integer in 1..1000' }]);
      }
    }
    return c.json({ total: svc.total, runs: svc.list(n).map((r) => toApi(r, false)) });
  });

  app.get('/api/backtests/:id', (c) => {
    const id = c.req.param('id');
    const rec = svc.get(id);
    if (!rec) return apiError(c, 404, 'not_found', `no backtest run with id '${id}'`);
    return c.json(toApi(rec));
  });

  app.delete('/api/backtests/:id', async (c) => {
    const id = c.req.param('id');
    const rec = svc.get(id);
    if (!rec) return apiError(c, 404, 'not_found', `no backtest run with id '${id}'`);
    const done = svc.whenDone(id);
    if (!done || !svc.cancel(id)) return apiError(c, 409, 'conflict', `backtest ${id} is not running (status ${rec.status})`);
    return c.json(toApi(await done));
  });
}
