// GET /api/stream: Server-Sent Events. The hub (sse.ts) does the fan-out, coalescing and drops;
// this route only admits the client and wires Node's response to it. Frames are written straight
// to the ServerResponse (raw-response.ts says why), after every middleware has had its say on the
// head (security headers, CORS).

import type { ServerResponse } from 'node:http';
import type { ApiContext } from '../context.ts';
import type { App } from '../app-env.ts';
import { apiError } from '../errors.ts';
import type { SseSink } from '../sse.ts';

/** Reconnect delay suggested to EventSource clients (ms). */
const RETRY_MS = 2000;

/** The head of the stream (the same as hono/streaming's streamSSE sends). */
const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'Transfer-Encoding': 'chunked',
  'X-Accel-Buffering': 'no',
};

/** A hub sink over Node's response: every write goes to the socket as the buffer it is given. */
function nodeSink(outgoing: ServerResponse): SseSink {
  return {
    write: (chunk, done) => {
      outgoing.write(chunk, done);
    },
    close: () => new Promise<void>((resolve) => outgoing.end(resolve)),
    destroy: () => outgoing.destroy(),
  };
}

export function registerStream(app: App, ctx: ApiContext): void {
  app.get('/api/stream', (c) => {
    const hub = ctx.hub;
    if (hub.isClosing) return apiError(c, 503, 'shutting_down', 'the server is shutting down', undefined, { 'Retry-After': '5' });
    if (hub.full) {
      return apiError(
        c,
        503,
        'too_many_clients',
        `the live stream already has ${hub.size} clients, the configured maximum ([http] max_sse_clients)`,
        undefined,
        { 'Retry-After': '10' },
      );
    }
    if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    const outgoing = c.env?.outgoing;
    if (!outgoing) throw new Error('GET /api/stream needs the Node server (c.env.outgoing): it writes to the socket itself');
    // Built before the stream opens: a failing runtime gives a 500 JSON, not an empty stream.
    const first = Buffer.from(`retry: ${RETRY_MS}\n${hub.stateFrame()}`);
    // The client takes its slot now (the capacity check above holds) and is held until the head is out.
    const client = hub.attach(nodeSink(outgoing), first, true);
    if (!client) return apiError(c, 503, 'shutting_down', 'the server is shutting down', undefined, { 'Retry-After': '5' });
    const leave = () => hub.detach(client);
    outgoing.once('close', leave);
    ctx.rawResponses.defer(outgoing, {
      start: () => hub.release(client),
      abort: () => {
        outgoing.off('close', leave);
        leave();
      },
    });
    return c.body(null, 200, STREAM_HEADERS);
  });
}
