// Runs the Hono app on a Node HTTP server, with a graceful close():
//   1. stop accepting connections;
//   2. end every SSE stream (server.close() would otherwise wait for them forever);
//   3. cancel running backtests (journaled as cancelled; their POSTs answer 503) and destroy the pool;
//   4. end idle keep-alive connections (also ones that never sent a request: fetch clients open
//      spare connections, which server.closeIdleConnections() leaves alone), end each busy one when
//      its response is done, and after `graceMs` destroy whatever remains.

import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createHttpApp, type HttpApp, type HttpDeps, type HttpOptions } from './app.ts';
import type { AppEnv } from './context.ts';

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

export async function startHttpServer(deps: HttpDeps, opts: StartOptions): Promise<HttpServer> {
  const http = createHttpApp(deps, opts);
  const log = deps.logger.child({ component: 'http' });
  // GET /api/state first (state-fast-path.ts), everything else through Hono.
  const hono = getRequestListener((req, env) => http.fetch(req, env as AppEnv['Bindings']));
  const fast = http.fastPath;
  const server = createServer((req, res) => {
    if (!fast.handle(req, res)) void hono(req, res);
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
      const late = await Promise.race([closed.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), Math.max(0, graceMs - (Date.now() - t0)))))]);
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
