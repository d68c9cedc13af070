// What POST and list routes share (backtests, sweeps): a JSON body within the size limit, the
// Idempotency-Key header, the answers to a refused submission, and cursor pages.

import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { FieldError } from '../../wire/error.ts';
import type { ApiContext } from '../context.ts';
import type { AppEnv } from '../app-env.ts';
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
      return apiError(
        c,
        415,
        'unsupported_media_type',
        ct ? `Content-Type '${ct}' is not supported: send application/json` : 'missing Content-Type: send application/json',
      );
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
function pageQuery(c: Context<AppEnv>): { limit: number; cursor: string | null } | Response {
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

/** The page a list request asks for (`limit`, `cursor`), or the 400 answer to a bad limit or a cursor `list` did not issue. */
export function requestedPage<P>(c: Context<AppEnv>, list: (limit: number, cursor: string | null) => P): P | Response {
  const q = pageQuery(c);
  if (q instanceof Response) return q;
  try {
    return list(q.limit, q.cursor);
  } catch {
    return apiError(c, 400, 'invalid_request', `cursor '${q.cursor}' is not one this server issued: pass next_cursor of a previous page`, [
      { field: 'cursor', message: 'expected next_cursor of a previous page' },
    ]);
  }
}

/** The body limit of a POST. */
export function jsonBodyLimit(ctx: ApiContext): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize: ctx.maxBodyBytes,
    // The rest of the body is never read, so the connection cannot carry another request: say so,
    // or a keep-alive client reuses it and its next request fails with "other side closed".
    onError: (c) => apiError(c, 413, 'payload_too_large', `the request body is larger than ${ctx.maxBodyBytes} bytes`, undefined, { Connection: 'close' }),
  });
}

/** The parsed JSON body and the Idempotency-Key of a POST, or the 400 answer. */
export async function readSubmission(c: Context<AppEnv>): Promise<{ body: unknown; key: string | null } | Response> {
  const text = await c.req.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    return apiError(c, 400, 'invalid_json', jsonErrorMessage(e, text));
  }
  const k = idempotencyKey(c.req.header('idempotency-key'));
  if ('error' in k) return apiError(c, 400, 'invalid_request', `invalid Idempotency-Key header: ${k.error}`, [{ field: 'Idempotency-Key', message: k.error }]);
  return { body, key: k.key };
}

/** A submission the service did not take, as every submitting service reports it. */
export type Refusal =
  | { kind: 'invalid'; errors: FieldError[] }
  | { kind: 'busy'; retryAfterS: number; message: string }
  | { kind: 'closed' }
  | { kind: 'key_mismatch'; id: string }
  /** The journal could not store it (a full disk, a directory gone): nothing was started. */
  | { kind: 'storage_error'; message: string };

/** The answer to a refused submission; `what` names the thing an Idempotency-Key names ("run", "sweep"). */
export function refusal(c: Context<AppEnv>, r: Refusal, what: 'run' | 'sweep', request: 'backtest' | 'sweep'): Response {
  switch (r.kind) {
    case 'invalid':
      return apiError(c, 400, 'invalid_request', `invalid ${request} request: ${r.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, r.errors);
    case 'busy':
      return apiError(c, 503, 'busy', r.message, undefined, { 'Retry-After': String(r.retryAfterS) });
    case 'closed':
      return apiError(c, 503, 'shutting_down', 'the server is shutting down', undefined, { 'Retry-After': '5' });
    case 'key_mismatch':
      return apiError(
        c,
        422,
        'idempotency_key_mismatch',
        `the Idempotency-Key header names ${what} ${r.id}, which was started by a different request: use a new key for a new request`,
        [{ field: 'Idempotency-Key', message: `already used for ${what} ${r.id} with a different request` }],
      );
    case 'storage_error':
      return apiError(c, 500, 'storage_error', r.message);
  }
}
