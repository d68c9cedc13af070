// GET /api/stream: Server-Sent Events. The hub (sse.ts) does the fan-out, coalescing and drops;
// this route only admits the client and wires the Hono stream to it.

import { streamSSE } from 'hono/streaming';
import type { ApiContext, App } from '../context.ts';
import { apiError } from '../errors.ts';
import type { SseSink } from '../sse.ts';

/** Reconnect delay suggested to EventSource clients (ms). */
const RETRY_MS = 2000;

export function registerStream(app: App, ctx: ApiContext): void {
  app.get('/api/stream', (c) => {
    const hub = ctx.hub;
    if (hub.isClosing) return apiError(c, 503, 'shutting_down', 'the server is shutting down', undefined, { 'Retry-After': '5' });
    if (hub.full) {
      return apiError(c, 503, 'too_many_clients', `the live stream already has ${hub.size} clients, the configured maximum ([http] max_sse_clients)`, undefined, { 'Retry-After': '10' });
    }
    if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    // Built before the stream opens: a failing runtime gives a 500 JSON, not an empty stream.
    const first = `retry: ${RETRY_MS}\n${hub.stateFrame()}`;
    const outgoing = c.env?.outgoing;
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const sink: SseSink = {
        write: (chunk) => stream.write(chunk),
        close: () => stream.close(),
        destroy: () => {
          stream.abort();
          outgoing?.destroy();
        },
      };
      // The callback runs synchronously up to its first await, so the capacity check above holds.
      const client = hub.attach(sink, first);
      if (!client) return;
      const leave = () => hub.detach(client);
      stream.onAbort(leave);
      c.req.raw.signal.addEventListener('abort', leave, { once: true });
      await client.done;
      c.req.raw.signal.removeEventListener('abort', leave);
    });
  });
}
