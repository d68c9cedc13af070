// Runs the Hono app on a Node HTTP server, with a graceful close():
//   1. stop accepting connections;
//   2. end every SSE stream (server.close() would otherwise wait for them forever);
//   3. cancel running backtests (journaled as cancelled; their POSTs answer 503) and destroy the pool;
//   4. end idle keep-alive connections (also ones that never sent a request: fetch clients open
//      spare connections, which server.closeIdleConnections() leaves alone), end each busy one when
//      its response is done, and after `graceMs` destroy whatever remains.

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener, RequestError } from '@hono/node-server';
import { createHttpApp, type HttpApp, type HttpDeps, type HttpOptions } from './app.ts';
import type { AppEnv } from './app-env.ts';
import type { ErrorCode } from '../wire/error.ts';
import { errorBody } from './errors.ts';

export interface StartOptions extends HttpOptions {
  port: number;
  /** Interface to bind (default 127.0.0.1: loopback only). */
  host?: string;
  /** Time given to in-flight requests on close before connections are cut (default 3000 ms). */
  graceMs?: number;
}

export interface HttpServer {
  port: number;
  host: string;
  http: HttpApp;
  server: Server;
  /** Graceful shutdown; idempotent. */
  close(): Promise<void>;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

/** A Host header value: a name or IPv4 address (characters a URL host may have) or an IPv6 literal, and an optional port. */
const HOST_RE = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

export function wellFormedHost(host: string): boolean {
  const m = HOST_RE.exec(host);
  return m !== null && (m[1] === undefined || Number(m[1]) <= 65535);
}

function malformedHost(res: ServerResponse): void {
  const body = JSON.stringify(
    errorBody('invalid_host', 'the Host header is malformed: expected a host name or address with an optional port, e.g. localhost:9090', [
      { field: 'Host', message: 'expected host[:port]' },
    ]),
  );
  res.writeHead(400, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * A request Hono never saw because no Request could be built from it (e.g. a backslash in the
 * path): a JSON 400 like every other error (the adapter's default is an empty body).
 */
function unparsedRequest(e: unknown): Response {
  const body =
    e instanceof RequestError
      ? errorBody('invalid_request', `the request line or URL cannot be parsed: ${e.message}`)
      : errorBody('internal_error', 'internal error (logged)');
  return new Response(JSON.stringify(body), { status: e instanceof RequestError ? 400 : 500, headers: JSON_HEADERS });
}

/**
 * What Node's HTTP parser refuses before any handler runs (a control character in a header,
 * headers over the size limit): the same JSON error shape, then the connection is closed (the
 * parser cannot go on). Node's default answer has no body at all.
 */
function parserRefusal(err: NodeJS.ErrnoException, socket: Socket): void {
  // As Node's default: nothing is written once a response on this socket has begun.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message]: [number, string, ErrorCode, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'invalid_request', 'the request headers are larger than the server accepts']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'invalid_request', 'the request did not arrive in time']
        : [400, 'Bad Request', 'invalid_request', `the request cannot be parsed as HTTP/1.1 (${err.code ?? 'parse error'})`];
  const body = JSON.stringify(errorBody(code, message));
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    ...Object.entries(JSON_HEADERS).map(([k, v]) => `${k}: ${v}`),
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

export async function startHttpServer(deps: HttpDeps, opts: StartOptions): Promise<HttpServer> {
  const http = createHttpApp(deps, opts);
  const log = deps.logger.child({ component: 'http' });
  // GET /api/state first (state-fast-path.ts), everything else through Hono.
  const hono = getRequestListener((req, env) => http.fetch(req, env as AppEnv['Bindings']), { errorHandler: unparsedRequest });
  const fast = http.fastPath;
  const server = createServer((req, res) => {
    if (fast.handle(req, res)) return;
    // A Host no URL can be built from (the adapter would answer an empty 400).
    const h = req.headers.host;
    if (h !== undefined && !wellFormedHost(h)) malformedHost(res);
    else void hono(req, res);
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => {
      server.off('listening', onListening);
      reject(e);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(opts.port, host);
  }).catch(async (e) => {
    await http.close();
    throw e;
  });
  server.on('error', (e) => log.error({ err: e }, 'HTTP server error'));
  server.on('clientError', parserRefusal);

  // Open connections and their requests in progress.
  const sockets = new Map<Socket, number>();
  let stopping = false;
  server.on('connection', (so: Socket) => {
    sockets.set(so, 0);
    so.once('close', () => sockets.delete(so));
  });
  server.on('request', (req, res) => {
    // Answered already (GET /api/state's fast path ends its response synchronously): nothing to
    // wait for on close, and no listener to add per request.
    if (res.writableEnded) return;
    const so = req.socket;
    if (sockets.has(so)) sockets.set(so, (sockets.get(so) ?? 0) + 1);
    res.once('close', () => {
      if (!sockets.has(so)) return;
      const n = Math.max(0, (sockets.get(so) ?? 1) - 1);
      sockets.set(so, n);
      if (stopping && n === 0) so.end();
    });
  });
  const port = (server.address() as AddressInfo).port;
  log.info({ host, port }, `HTTP API listening on ${host}:${port}`);

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      const t0 = Date.now();
      const graceMs = opts.graceMs ?? 3000;
      stopping = true;
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const [so, n] of sockets) if (n === 0) so.end();
      await http.close();
      await deps.backtests.close('server shutting down');
      let timer: NodeJS.Timeout | undefined;
      const late = await Promise.race([
        closed.then(() => false),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(true), Math.max(0, graceMs - (Date.now() - t0))))),
      ]);
      clearTimeout(timer);
      if (late) {
        log.warn({ connections: sockets.size }, 'destroying the remaining HTTP connections');
        for (const so of sockets.keys()) so.destroy();
        server.closeAllConnections();
      }
      await closed;
      log.info({ ms: Date.now() - t0 }, 'HTTP API stopped');
    })();
    return closing;
  };
  return { port, host, http, server, close };
}
