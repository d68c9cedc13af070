// Headers on every engine response, and connection hygiene.
// - X-Content-Type-Options: nosniff, so no browser runs a JSON or text answer as something else;
//   Cache-Control: no-store on everything (API JSON changes from one request to the next), unless
//   a route sets its own (the event stream says no-cache). Set before the handler runs, they are
//   part of the response the handler builds: no copy of the response afterwards.
// - An answer given before the request body was read (413, 401, 429, 415, ...) while the body is
//   still arriving says `Connection: close`: the unread rest would otherwise be parsed as the next
//   request on a keep-alive connection, so Node closes it after the answer and a pooling client
//   opens a fresh one instead of failing its next request.

import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.ts';

/** What every answer says unless its route sets its own Cache-Control. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;

const ENTRIES = Object.entries(SECURITY_HEADERS);

export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    for (const [k, v] of ENTRIES) c.header(k, v);
    await next();
    const incoming = c.env?.incoming;
    if (incoming && !incoming.complete && c.res.headers.get('connection') === null) c.header('Connection', 'close');
  };
}
