// Dashboard server entry: `node dist/dashboard.js`.
//
// Serves the built front-end (dist/dashboard/) and proxies the engine's API to it on one origin.
// Configured by its environment only: USAGE below lists the variables (`--help` prints it).
// Exit codes: 0 after SIGINT/SIGTERM or --help, 1 when it cannot start, 2 on an argument or a bad
// environment value.

import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { packageRoot } from '../core/paths.ts';
import { createDashboardApp } from '../dashboard/server/app.ts';
import { StreamRecorder } from '../dashboard/server/recorder.ts';
import { createLogger } from '../log.ts';
import { VERSION } from '../version.ts';

const DEFAULT_PORT = 3000;
const DEFAULT_ENGINE_URL = 'http://127.0.0.1:9090';
const CLOSE_GRACE_MS = 2000;

const USAGE = `Usage:
  dashboard                the dashboard on http://127.0.0.1:3000, proxying the engine's API
  dashboard --help         this text

It takes no other arguments: it is configured by its environment.

Environment:
  DASHBOARD_PORT           TCP port (default 3000; 0 = any free port, logged at start)
  DASHBOARD_HOST           interface to bind (default 127.0.0.1, this machine only; the image sets 0.0.0.0)
  ENGINE_URL               the engine's HTTP API (default http://127.0.0.1:9090)
  DASHBOARD_ALLOWED_HOSTS  comma-separated Host names answered besides localhost, 127.0.0.1 and
                           [::1], or "*" for any Host (default none)
  RUST_LOG                 log level (JSON lines on stdout)
`;

function usageError(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

/** --help prints the usage; any other argument is refused (the dashboard reads only its environment). */
function readArgs(args: string[]): void {
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (args.length > 0)
    usageError(`unknown argument ${JSON.stringify(args[0])}: the dashboard takes none but --help; set DASHBOARD_PORT, ENGINE_URL, ... instead`);
}

function readPort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_PORT;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > 65535) usageError(`DASHBOARD_PORT=${JSON.stringify(raw)}: expected a TCP port in 0..65535`);
  return Number(raw);
}

function readEngineUrl(raw: string | undefined): string {
  const s = raw === undefined || raw.trim() === '' ? DEFAULT_ENGINE_URL : raw.trim();
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    usageError(`ENGINE_URL=${JSON.stringify(s)}: expected a URL such as ${DEFAULT_ENGINE_URL}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') usageError(`ENGINE_URL=${JSON.stringify(s)}: expected an http:// or https:// URL`);
  return u.origin;
}

const HOST_NAME = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/i;

function readAllowedHosts(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const names = raw.split(',').map((s) => s.trim());
  for (const name of names) {
    if (name !== '*' && !(name.length <= 253 && HOST_NAME.test(name))) {
      usageError(
        `DASHBOARD_ALLOWED_HOSTS=${JSON.stringify(raw)}: ${JSON.stringify(name)} is not a host name; expected comma-separated names without ` +
          `a port, e.g. "dash.example.com,[::1]", or "*" for any Host`,
      );
    }
  }
  return names;
}

async function main(): Promise<void> {
  readArgs(process.argv.slice(2));
  const port = readPort(process.env.DASHBOARD_PORT);
  const host = process.env.DASHBOARD_HOST?.trim() || '127.0.0.1';
  const engineUrl = readEngineUrl(process.env.ENGINE_URL);
  const allowedHosts = readAllowedHosts(process.env.DASHBOARD_ALLOWED_HOSTS);
  const root = createLogger({ env: process.env });
  const log = root.child({ component: 'dashboard' });

  const staticDir = join(packageRoot(), 'dist', 'dashboard');
  if (!existsSync(join(staticDir, 'index.html'))) {
    log.error({ dir: staticDir }, `the dashboard files are missing from ${staticDir}: run npm run build`);
    process.exitCode = 1;
    return;
  }
  const recorder = new StreamRecorder({ engineUrl, logger: root });
  const { app, proxy } = createDashboardApp({ engineUrl, staticDir, logger: root, recorder, allowedHosts });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  server.on('error', (e) => log.error({ err: e }, 'HTTP server error'));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    log.error({ err: e, port, host }, `cannot listen on ${host}:${port}`);
    process.exitCode = 1;
    return;
  }
  recorder.start();
  const actual = (server.address() as AddressInfo).port;
  log.info(
    { version: VERSION, host, port: actual, engine_url: engineUrl, files: staticDir },
    `dashboard listening on http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${actual} (engine ${engineUrl})`,
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal, streams: proxy.inFlight }, 'dashboard stopping');
    const closed = new Promise<void>((r) => server.close(() => r()));
    recorder.stop();
    proxy.abortAll(); // ends the proxied event streams, which server.close() would wait for
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    timer.unref();
    void closed.then(() => {
      clearTimeout(timer);
      log.info('dashboard stopped');
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
