// POST /api/backtest, GET /api/backtests, GET|DELETE /api/backtests/:id.
//
// A synchronous POST whose client disconnects cancels its run (nobody is left to read the
// answer); `Prefer: respond-async` answers 202 at once and the run goes on. `Idempotency-Key`
// (draft-ietf-httpapi-idempotency-key-header) makes a retried POST return the first run.

import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { toApi, toListItem, type BacktestRecord } from '../../backtest/service.ts';
import type { ApiContext, App, AppEnv } from '../context.ts';
import { apiError } from '../errors.ts';

/** application/json, application/json; charset=utf-8, application/problem+json, ... */
function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mime = contentType.split(';')[0].trim().toLowerCase();
  return mime === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mime);
}

export function requireJson(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const ct = c.req.header('content-type');
    if (!isJson(ct)) {
      return apiError(c, 415, 'unsupported_media_type', ct ? `Content-Type '${ct}' is not supported: send application/json` : 'missing Content-Type: send application/json');
    }
    await next();
  };
}

/** A message for a body JSON.parse rejected (V8 names the position). */
export function jsonErrorMessage(e: unknown, text: string): string {
  if (text.trim() === '') return 'the request body is empty: expected a JSON object';
  const m = e instanceof Error ? e.message : String(e);
  return `the request body is not valid JSON: ${m}`;
}

/** The largest `limit` of GET /api/backtests (a page of index entries is ~500 bytes each). */
export const MAX_PAGE = 100;
const DEFAULT_PAGE = 50;
/** Idempotency-Key: a string of 1..255 visible ASCII characters, quoted (RFC 8941 sf-string) or bare. */
const KEY_RE = /^[\x21\x23-\x7e]{1,255}$/;

/** The Idempotency-Key of a request: null when absent, a field error when malformed. */
export function idempotencyKey(raw: string | undefined): { key: string | null } | { error: string } {
  if (raw === undefined) return { key: null };
  const key = /^".*"$/.test(raw) ? raw.slice(1, -1) : raw;
  if (!KEY_RE.test(key)) return { error: 'expected 1..255 visible ASCII characters, optionally in double quotes (no spaces, quotes or backslashes)' };
  return { key };
}

/** `limit` (1..MAX_PAGE, default 50) and `cursor` of a list request (backtests, sweeps), or the 400 answer. */
export function pageQuery(c: Context<AppEnv>): { limit: number; cursor: string | null } | Response {
  const raw = c.req.query('limit');
  let limit = DEFAULT_PAGE;
  if (raw !== undefined) {
    limit = Number(raw);
    if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_PAGE) {
      const expected = `an integer in 1..${MAX_PAGE}`;
      return apiError(c, 400, 'invalid_request', `limit must be ${expected}, got '${raw}'`, [{ field: 'limit', message: `expected ${expected}` }]);
    }
  }
  return { limit, cursor: c.req.query('cursor') ?? null };
}

/** The 400 answer to a cursor the list did not issue. */
export function badCursor(c: Context<AppEnv>, cursor: string | null): Response {
  return apiError(c, 400, 'invalid_request', `cursor '${cursor}' is not one this server issued: pass next_cursor of a previous page`, [
    { field: 'cursor', message: 'expected next_cursor of a previous page' },
  ]);
}

function completed(c: Context<AppEnv>, rec: BacktestRecord | null) {
  if (!rec) return apiError(c, 500, 'storage_error', 'the journal file of this run is missing');
  if (rec.error?.code === 'storage_error' || rec.error?.code === 'record_too_large') {
    return apiError(c, 500, 'storage_error', `backtest ${rec.id} failed: ${rec.error.message}`);
  }
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
    const k = idempotencyKey(c.req.header('idempotency-key'));
    if ('error' in k) return apiError(c, 400, 'invalid_request', `invalid Idempotency-Key header: ${k.error}`, [{ field: 'Idempotency-Key', message: k.error }]);
    const out = svc.submit(body, k.key);
    switch (out.kind) {
      case 'invalid':
        return apiError(c, 400, 'invalid_request', `invalid backtest request: ${out.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, out.errors);
      case 'busy':
        return apiError(c, 503, 'busy', out.message, undefined, { 'Retry-After': String(out.retryAfterS) });
      case 'closed':
        return apiError(c, 503, 'shutting_down', 'the server is shutting down', undefined, { 'Retry-After': '5' });
      case 'key_mismatch':
        return apiError(c, 422, 'idempotency_key_mismatch', `the Idempotency-Key header names run ${out.id}, which was started by a different request: use a new key for a new request`, [
          { field: 'Idempotency-Key', message: `already used for run ${out.id} with a different request` },
        ]);
    }
    if (/\brespond-async\b/i.test(c.req.header('prefer') ?? '')) {
      const rec = await svc.read(out.id);
      if (!rec) return completed(c, null);
      const status = rec.status === 'running' ? 202 : 200;
      return c.json(toApi(rec), status, { Location: `/api/backtests/${out.id}`, 'Preference-Applied': 'respond-async' });
    }
    if (out.kind === 'accepted') {
      // Nobody is left to read the answer of a synchronous request whose client went away.
      const signal = c.req.raw.signal;
      const onAbort = () => svc.cancel(out.id, 'the client disconnected');
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      const rec = await out.done;
      signal.removeEventListener('abort', onAbort);
      return completed(c, rec);
    }
    return completed(c, await out.done);
  });

  app.get('/api/backtests', (c) => {
    const q = pageQuery(c);
    if (q instanceof Response) return q;
    let page;
    try {
      page = svc.list(q.limit, q.cursor);
    } catch {
      return badCursor(c, q.cursor);
    }
    return c.json({ total: svc.total, runs: page.entries.map(toListItem), next_cursor: page.nextCursor });
  });

  app.get('/api/backtests/:id', async (c) => {
    const id = c.req.param('id');
    if (!svc.entry(id)) return apiError(c, 404, 'not_found', `no backtest run with id '${id}'`);
    const rec = await svc.read(id);
    if (!rec) return apiError(c, 500, 'storage_error', `the journal file of backtest ${id} is missing or unreadable`);
    return c.json(toApi(rec));
  });

  app.delete('/api/backtests/:id', async (c) => {
    const id = c.req.param('id');
    const e = svc.entry(id);
    if (!e) return apiError(c, 404, 'not_found', `no backtest run with id '${id}'`);
    const done = svc.whenDone(id);
    if (!done || !svc.cancel(id)) return apiError(c, 409, 'conflict', `backtest ${id} is not running (status ${e.status})`);
    return c.json(toApi(await done));
  });
}
