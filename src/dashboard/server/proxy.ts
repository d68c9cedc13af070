// Reverse proxy from the dashboard's origin to the engine's HTTP API, so the browser talks to one
// origin (no CORS) and the engine's port need not be exposed.
//
// hono/proxy forwards the request and returns the engine's response: hop-by-hop headers dropped,
// bodies streamed both ways, nothing buffered, so the Server-Sent Events stream (/api/stream)
// reaches the browser at the engine's cadence. What it leaves to its caller is added here:
// - An unreachable engine answers 502 with the engine's error shape
//   ({ error: { code, message } }), never a crash or an HTML page.
// - When the engine dies in the middle of a stream, the browser's response is ended cleanly (the
//   EventSource then reconnects); when the browser goes away, the upstream request is aborted.
// - Credentials: the proxy adds none (it must not widen access to the engine). The browser's own
//   Authorization header (the API token the backtest form asks for when the engine answers 401)
//   is passed through unchanged, like every other end-to-end header.
// - Every upstream request in flight is tracked, so shutdown can end open streams at once
//   (server.close() would otherwise wait for them forever), and a silent engine times out.

import type { Context } from 'hono';
import { proxy } from 'hono/proxy';
import type pino from 'pino';

export interface ProxyOptions {
  /** Base URL of the engine, e.g. http://127.0.0.1:9090 */
  engineUrl: string;
  logger: pino.Logger;
  /** Time to wait for the engine's response headers (ms, default 10 min: a synchronous backtest may take that long). */
  headersTimeoutMs?: number;
}

export interface EngineProxy {
  forward(c: Context): Promise<Response>;
  /** Upstream requests in flight (streams included). */
  readonly inFlight: number;
  /** Aborts every upstream request (shutdown): open streams end at once. */
  abortAll(reason?: string): void;
}

export function errorJson(status: number, code: string, message: string, fields?: { field: string; message: string }[]): Response {
  return new Response(JSON.stringify({ error: fields ? { code, message, fields } : { code, message } }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: string }).code;
    return code ? `${code}: ${cause.message}` : cause.message;
  }
  return e.message;
}

export function createEngineProxy(o: ProxyOptions): EngineProxy {
  const base = new URL(o.engineUrl);
  const log = o.logger.child({ component: 'dashboard-proxy' });
  const active = new Set<AbortController>();
  const headersTimeoutMs = o.headersTimeoutMs ?? 600_000;

  async function forward(c: Context): Promise<Response> {
    const incoming = c.req.raw;
    const src = new URL(incoming.url);
    const target = new URL(src.pathname + src.search, base);
    const method = incoming.method.toUpperCase();

    const ac = new AbortController();
    const onClientGone = () => ac.abort(new Error('client disconnected'));
    if (incoming.signal.aborted) onClientGone();
    else incoming.signal.addEventListener('abort', onClientGone, { once: true });
    active.add(ac);
    const release = () => {
      active.delete(ac);
      incoming.signal.removeEventListener('abort', onClientGone);
    };
    const headersTimer = setTimeout(() => ac.abort(new Error(`no response from the engine within ${headersTimeoutMs} ms`)), headersTimeoutMs);

    let upstream: Response;
    try {
      upstream = await proxy(target, {
        raw: incoming,
        redirect: 'manual',
        signal: ac.signal, // ours: aborted by the client, the headers timeout or shutdown
        customFetch: (req) => {
          req.headers.delete('host'); // the engine's own, from the target URL
          req.headers.set('x-forwarded-host', src.host);
          req.headers.set('x-forwarded-proto', src.protocol.replace(':', ''));
          return fetch(req);
        },
      });
    } catch (e) {
      clearTimeout(headersTimer);
      release();
      const why = describe(e);
      log.warn({ method, path: src.pathname, engine: base.origin, err: why }, 'engine unreachable');
      return errorJson(502, 'engine_unavailable', `the engine at ${base.origin} is unreachable (${why}); retrying is safe once it is up`);
    } finally {
      clearTimeout(headersTimer);
    }

    const outHeaders = upstream.headers;
    const isStream = (upstream.headers.get('content-type') ?? '').startsWith('text/event-stream');
    if (isStream) {
      outHeaders.set('cache-control', 'no-cache, no-transform');
      outHeaders.set('x-accel-buffering', 'no');
    }
    if (!upstream.body) {
      release();
      return new Response(null, { status: upstream.status, statusText: upstream.statusText, headers: outHeaders });
    }

    // Pipe the upstream body through. An upstream failure mid-body (the engine died) ends the
    // browser's response normally instead of surfacing as an error: the EventSource reconnects.
    const reader = upstream.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            release();
            controller.close();
          } else controller.enqueue(value);
        } catch (e) {
          release();
          if (!ac.signal.aborted || !incoming.signal.aborted) log.info({ path: src.pathname, err: describe(e) }, 'upstream response ended early');
          try {
            controller.close();
          } catch {
            // already closed
          }
        }
      },
      cancel(reason) {
        release();
        ac.abort(reason);
        reader.cancel(reason).catch(() => {});
      },
    });
    return new Response(body, { status: upstream.status, statusText: upstream.statusText, headers: outHeaders });
  }

  return {
    forward,
    get inFlight() {
      return active.size;
    },
    abortAll(reason = 'dashboard shutting down') {
      for (const ac of [...active]) ac.abort(new Error(reason));
      active.clear();
    },
  };
}
