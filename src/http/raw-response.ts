// Responses whose body a route writes itself on Node's ServerResponse (the event stream), instead
// of handing @hono/node-server a ReadableStream: a web stream per client costs an encode, a
// promise and a reader hop on every write, and the event stream writes 10 frames a second to
// every client. The route admits the request as any other (every middleware runs), answers a
// head-only Response and registers its body writer here. Once the whole middleware chain has
// finished (CORS adds `Vary` after the handler returns), fetch() below writes that head to the
// socket and starts the writer, and tells the adapter the response is already sent.

import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { App, AppEnv } from './app-env.ts';

export interface RawBody {
  /** The head has been written (the middleware chain's status and headers): write the body. */
  start(): void;
  /** The chain answered something else (an error): release what the route reserved. */
  abort(): void;
}

export class RawResponses {
  private readonly pending = new WeakMap<ServerResponse, RawBody>();

  /** Called by a route that answers `status 200, head only` and writes the body itself. */
  defer(outgoing: ServerResponse, body: RawBody): void {
    this.pending.set(outgoing, body);
  }

  /** The finished response, or, for a deferred body, its head written and the body started. */
  finish(res: Response, outgoing: ServerResponse | undefined): Response {
    const body = outgoing === undefined ? undefined : this.pending.get(outgoing);
    if (body === undefined || outgoing === undefined) return res;
    this.pending.delete(outgoing);
    if (res.status !== 200 || outgoing.headersSent) {
      body.abort();
      return res;
    }
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      headers[k] = v;
    });
    outgoing.writeHead(200, headers);
    outgoing.flushHeaders();
    body.start();
    return RESPONSE_ALREADY_SENT;
  }

  /** The app's fetch with deferred bodies finished: what the Node server runs. */
  fetch(app: App): (req: Request, env?: AppEnv['Bindings']) => Response | Promise<Response> {
    return (req, env) => {
      const res = app.fetch(req, env);
      return res instanceof Promise ? res.then((r) => this.finish(r, env?.outgoing)) : this.finish(res, env?.outgoing);
    };
  }
}
