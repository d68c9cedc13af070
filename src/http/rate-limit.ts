// Per-client rate limit of mutating requests (POST, DELETE), of the research artifacts' GETs
// (each may recompute a run) and of reads refused for want of the API token: at most [http]
// rate_limit_requests in each window of rate_limit_window_s seconds, then
// 429 with Retry-After (seconds until the window resets). A client is its API token when it sent
// the right one, else its IP address. It runs before authentication, so a flood of bad tokens is
// limited by address like any other.
// hono-rate-limiter (fixed window, in-memory store) rather than a hand-written counter: it keeps
// the store bounded (expired keys are swept) and sets Retry-After and the RateLimit-* headers.

import type { MiddlewareHandler } from 'hono';
import { rateLimiter } from 'hono-rate-limiter';
import { ARTIFACT_NAMES } from '../wire/backtest-artifacts.ts';
import type { AppEnv } from './app-env.ts';
import { apiError } from './errors.ts';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Reads that recompute a run (the research artifacts): limited like mutations. */
const COSTLY_READ = new RegExp(`^/api/backtests/[^/]+/(?:${ARTIFACT_NAMES.map((n) => n.replace('.', '\\.')).join('|')})$`);

export interface RateLimitOptions {
  /** Requests per window per client (0 = no limit: returns null). */
  limit: number;
  windowS: number;
  /** True when the request carries the valid API token (its key is then the token, not the address). */
  authenticated: (authorization: string | undefined) => boolean;
  /** True for a read that authentication will refuse (no valid token where one is needed). */
  refusedRead: (method: string, path: string, authorization: string | undefined) => boolean;
}

export function rateLimit(o: RateLimitOptions): MiddlewareHandler<AppEnv> | null {
  if (o.limit === 0) return null;
  return rateLimiter<AppEnv>({
    windowMs: o.windowS * 1000,
    limit: o.limit,
    standardHeaders: 'draft-6',
    skip: (c) => !MUTATING.has(c.req.method) && !COSTLY_READ.test(c.req.path) && !o.refusedRead(c.req.method, c.req.path, c.req.header('authorization')),
    keyGenerator: (c) => (o.authenticated(c.req.header('authorization')) ? 'token' : `ip:${c.env?.incoming?.socket.remoteAddress ?? 'unknown'}`),
    handler: (c) =>
      apiError(
        c,
        429,
        'rate_limited',
        `more than ${o.limit} POST/DELETE requests (or artifact GETs, or requests without the API token) from this client within ` +
          `${o.windowS} s ([http] rate_limit_requests); retry after the seconds in Retry-After`,
      ),
  });
}
