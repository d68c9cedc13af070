// The engine API's Host header check (the rule: src/wire/host-names.ts): [http] allowed_hosts adds
// names such as "engine" (compose: Prometheus and the dashboard call http://engine:9090), and
// "*" there turns the check off (e.g. behind a proxy that checks Host itself).

import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.ts';
import { apiError } from './errors.ts';
import { hostAllowed, LOOPBACK_HOSTS } from '../wire/host-names.ts';

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
