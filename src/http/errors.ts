// API errors. Every error response has one shape:
//   { "error": { "code": "invalid_request", "message": "...", "fields": [{ "field", "message" }] } }
// Handlers throw ApiError (or return apiError(...)); the app's onError/notFound hooks turn anything
// else into a JSON 404/500, so a client never sees an HTML or plain-text error and the process
// never crashes on a bad request.

import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorBody, ErrorCode, FieldError } from '../wire/error.ts';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    message: string,
    readonly fields?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export function errorBody(code: ErrorCode, message: string, fields?: FieldError[]): ErrorBody {
  return { error: fields && fields.length ? { code, message, fields } : { code, message } };
}

/** A JSON error response with the common shape. */
export function apiError(
  c: Context,
  status: ContentfulStatusCode,
  code: ErrorCode,
  message: string,
  fields?: FieldError[],
  headers?: Record<string, string>,
): Response {
  return c.json(errorBody(code, message, fields), status, headers);
}

export function respondApiError(c: Context, e: ApiError): Response {
  return apiError(c, e.status, e.code, e.message, e.fields, e.headers);
}
