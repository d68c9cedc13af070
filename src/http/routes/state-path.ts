// The /api/state route's path and its own headers: the route (state.ts), its fast path
// (../state-fast-path.ts) and the request metrics' labels (../metrics.ts) share them.

/** The route's own headers (../security-headers.ts adds nosniff). */
export const STATE_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } as const;
export const STATE_PATH = '/api/state';
