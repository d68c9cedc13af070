// Host header allow-list, against DNS rebinding: a page on evil.example whose name is made to
// resolve to 127.0.0.1 reaches the engine from the victim's browser, but its requests still say
// `Host: evil.example`. Loopback names are always allowed (any port); [http] allowed_hosts adds
// names such as "engine" (compose: Prometheus and the dashboard call http://engine:9090), and
// "*" there turns the check off (e.g. behind a proxy that checks Host itself).

import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context.ts';
import { apiError } from './errors.ts';

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

/** The name part of a Host header value, lower case: "[::1]:9090" -> "[::1]", "Engine:9090" -> "engine". */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  const name = colon < 0 ? h : h.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/**
 * The allow-list as a predicate over the Host header, or null when every Host is allowed ("*").
 * No Host at all is an HTTP/1.0 client, never a browser (browsers always send one): allowed.
 */
export function hostAllowed(allowedHosts: readonly string[]): ((header: string | undefined) => boolean) | null {
  if (allowedHosts.includes('*')) return null;
  const allowed = new Set([...LOOPBACK_HOSTS, ...allowedHosts.map((h) => h.toLowerCase())]);
  return (header) => header === undefined || allowed.has(hostName(header));
}

/** The middleware, or null when every Host is allowed ("*"). */
export function hostCheck(allowedHosts: readonly string[]): MiddlewareHandler<AppEnv> | null {
  const ok = hostAllowed(allowedHosts);
  if (!ok) return null;
  return async (c, next) => {
    const header = c.req.header('host');
    if (ok(header)) return next();
    const shown = header!.length > 100 ? `${header!.slice(0, 100)}...` : header!;
    return apiError(
      c,
      400,
      'invalid_host',
      `the Host header ${JSON.stringify(shown)} is not allowed: expected ${LOOPBACK_HOSTS.join(', ')} (any port) or a name listed in [http] allowed_hosts`,
      [{ field: 'Host', message: 'expected an allowed host name' }],
    );
  };
}
