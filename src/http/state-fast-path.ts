// GET /api/state answered before Hono's router, for the requests whose answer is plainly "200 and
// the current state": the route is polled (dashboards, scripts) and its body is prebuilt once per
// 50 ms snapshot, so what a request costs is the framework around it. Through Hono (its request
// and context objects, eight async middleware steps, a Headers object and the adapter's response
// path), a CPU profile under autocannon showed the app reaching about half the rate of a bare
// node:http server sending the same bytes; this path writes the prebuilt bytes directly
// (docs/performance-archive.md, "Round two: HTTP and SSE", has the figures).
//
// It applies the same rules, by the same functions, as the middleware: the Host allow-list, the
// bearer token when reads need it, the security headers, and the request metrics under the same
// route label. Any request whose answer could differ from that 200 goes to Hono unchanged: a
// query string, an Origin (CORS headers), a request body (`Connection: close`), a Host or a token
// the middleware would refuse (it answers the 400 or 401), a state that fails to build (500), any
// other method or path. So every refusal and error still comes from one place. test/integration/http/http-state-fast-path.test.ts checks both paths answer
// the same bytes and that the refusals are unchanged.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks'; // the global is an accessor in Node 20: ~15 ns more per call
import { bearerMatches } from './auth.ts';
import { STATE_HEADERS, STATE_PATH } from './routes/state-path.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

export interface StateFastPathOptions {
  /** The current state as bytes (StateCache.bytes()). */
  body: () => Uint8Array;
  /** The Host allow-list (host-check.ts hostAllowed), or null when any Host is allowed. */
  hostAllowed: ((header: string | undefined) => boolean) | null;
  /** The API token's digest when GET /api/state needs the token, else null. */
  tokenDigest: Buffer | null;
  /** Records a 200 answer that took `seconds` (metrics and log), as the middleware does for Hono's answers. */
  answered: (seconds: number) => void;
}

export interface StateFastPath {
  /** Answers the request and returns true, or returns false and leaves it to Hono. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Requests answered here (for tests and the benchmark). */
  readonly served: number;
}

/** The answer's headers, as Hono sends them (lower case, sorted) plus the length. */
function headersFor(length: number): Record<string, string> {
  const h: Record<string, string> = {};
  const all: Record<string, string> = { ...SECURITY_HEADERS, ...STATE_HEADERS };
  for (const k of Object.keys(all).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))) h[k.toLowerCase()] = all[k];
  h['Content-Length'] = String(length);
  return h;
}

export function stateFastPath(o: StateFastPathOptions): StateFastPath {
  let served = 0;
  // The headers object of the last body: a new snapshot (every 50 ms at most) makes a new one.
  let lastBody: Uint8Array | null = null;
  let lastHeaders: Record<string, string> = {};
  return {
    get served() {
      return served;
    },
    handle(req, res) {
      if (req.method !== 'GET' || req.url !== STATE_PATH) return false;
      const h = req.headers;
      if (h.origin !== undefined || h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0')) return false;
      if (o.hostAllowed !== null && !o.hostAllowed(h.host)) return false;
      if (o.tokenDigest !== null && !bearerMatches(h.authorization, o.tokenDigest)) return false;
      const t0 = performance.now();
      let body: Uint8Array;
      try {
        body = o.body();
      } catch {
        return false; // Hono builds it again and its error handler answers (a logged 500 JSON)
      }
      if (body !== lastBody) {
        lastBody = body;
        lastHeaders = headersFor(body.length);
      }
      res.writeHead(200, lastHeaders);
      res.end(body);
      served++;
      o.answered((performance.now() - t0) / 1000);
      return true;
    },
  };
}
