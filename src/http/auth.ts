// Optional bearer-token authentication. The token comes from ENGINE_API_TOKEN, else from the file
// named by [http] api_token_file; without either the API is open (the loopback bind and the Host
// allow-list still apply). With a token, POST and DELETE need `Authorization: Bearer <token>`, and
// with [http] require_auth_for_reads every other route too, except the ones operators' tools poll
// without credentials: /health (container health checks), /metrics (Prometheus) and /openapi.json.
// Both sides are hashed to SHA-256 first, so timingSafeEqual compares equal lengths and the time
// taken says nothing about the token's length or its first differing byte.

import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { MiddlewareHandler } from 'hono';
import type { EngineConfig } from '../config/schema.ts';
import type { AppEnv } from './app-env.ts';
import { apiError } from './errors.ts';

/** Shortest accepted token: 16 characters (e.g. `openssl rand -hex 32` gives 64). */
export const MIN_TOKEN_CHARS = 16;
const MAX_TOKEN_CHARS = 4096;

/** Routes that stay open when reads require the token (see the header comment). */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/health', '/metrics', '/openapi.json']);

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function checkToken(token: string, source: string): string {
  if (token.length < MIN_TOKEN_CHARS || token.length > MAX_TOKEN_CHARS || /\s/.test(token)) {
    // Never echo the token itself: only its length.
    throw new Error(
      `${source}: expected a token of ${MIN_TOKEN_CHARS}..${MAX_TOKEN_CHARS} characters without spaces (got ${token.length} characters), ` +
        `e.g. from \`openssl rand -hex 32\``,
    );
  }
  return token;
}

/**
 * The API token: ENGINE_API_TOKEN if set and non-empty, else the first line of [http]
 * api_token_file (resolved against the working directory), else null (no authentication).
 * Throws an Error naming the variable or key when the token is unusable.
 */
export function resolveApiToken(env: NodeJS.ProcessEnv, config: EngineConfig): string | null {
  const fromEnv = env.ENGINE_API_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') return checkToken(fromEnv, 'ENGINE_API_TOKEN');
  const file = config.http.api_token_file;
  if (file === undefined) return null;
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`[http] api_token_file = ${JSON.stringify(file)}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return checkToken(text.split(/\r?\n/)[0].trim(), `[http] api_token_file = ${JSON.stringify(file)}`);
}

/** SHA-256 of a token: what bearerMatches compares. */
export const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** True when `authorization` is "Bearer <token>" for this token, compared in constant time. */
export function bearerMatches(authorization: string | undefined, tokenDigest: Buffer): boolean {
  const m = authorization === undefined ? null : /^Bearer +(\S+) *$/i.exec(authorization);
  return m !== null && timingSafeEqual(digest(m[1]), tokenDigest);
}

export interface AuthOptions {
  token: string;
  /** Require the token for reads too ([http] require_auth_for_reads). */
  reads: boolean;
}

/** Whether a request needs the token (see the header comment); `reads`: [http] require_auth_for_reads. */
export function tokenNeeded(method: string, path: string, reads: boolean): boolean {
  return READ_METHODS.has(method) ? reads && method !== 'OPTIONS' && !OPEN_PATHS.has(path) : true;
}

/** 401 with `WWW-Authenticate: Bearer` unless the request may pass (see the header comment). */
export function bearerAuth(o: AuthOptions): MiddlewareHandler<AppEnv> {
  const tokenDigest = digest(o.token);
  return async (c, next) => {
    const method = c.req.method;
    if (!tokenNeeded(method, c.req.path, o.reads)) return next();
    const header = c.req.header('authorization');
    if (bearerMatches(header, tokenDigest)) return next();
    const [challenge, message] =
      header === undefined
        ? ['Bearer realm="futures-mm-engine"', `${method} ${c.req.path} requires the API token: send the header Authorization: Bearer <token>`]
        : [
            'Bearer realm="futures-mm-engine", error="invalid_token"',
            'the Authorization header does not carry the API token (expected Authorization: Bearer <token>)',
          ];
    return apiError(c, 401, 'unauthorized', message, undefined, { 'WWW-Authenticate': challenge });
  };
}
