// `node dist/engine.js` (no --backtest): live simulation of every configured symbol, paced to the
// wall clock, with the HTTP API (health, metrics, state, stream, backtests) on PORT.
// SIGTERM/SIGINT: stop accepting, close streams, cancel running backtests (journaled as
// cancelled), stop the workers, flush the logs, exit 0 — within 10 seconds.

import type pino from 'pino';
import { liveMarketError } from '../runtime/live-source.ts';
import type { EngineConfig } from '../config/schema.ts';
import { DataDirLocked, lockDataDir, type DataDirLock } from '../core/data-dir-lock.ts';
import { createQueueExecutor, type QueueExecutor } from '../jobs/executor.ts';
import { BacktestService } from '../backtest-service/service.ts';
import { resolveApiToken } from '../http/auth.ts';
import { startHttpServer } from '../http/server.ts';
import { loadRootModel } from '../ml/inference/model-store.ts';
import { SimulationRuntime, type ModelStatus } from '../runtime/simulation.ts';

const SHUTDOWN_DEADLINE_MS = 9000;

/** The HTTP port: PORT if set (validated), else the config's metrics_port. */
export function httpPort(env: NodeJS.ProcessEnv, config: EngineConfig): number | string {
  const raw = env.PORT;
  if (raw === undefined || raw === '') return config.metrics_port;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n > 65535) return `PORT = ${JSON.stringify(raw)}: expected an integer port in 0..65535`;
  return n;
}

/** The model of a traded root (models/<ROOT>.json); without one that root runs without predictions. */
function modelStatus(config: EngineConfig, log: pino.Logger, root: string): ModelStatus {
  if (!config.model.enabled) return { file: null, error: 'disabled by config ([model] enabled = false)' };
  const r = loadRootModel(config, root);
  if (!r.ok) {
    log.warn({ root, error: r.error }, `no usable model for ${root}: its symbols run without predictions`);
    return { file: null, error: r.error };
  }
  log.info({ root, model: r.model.modelVersion, path: r.path }, 'model loaded');
  return { file: r.model, error: null };
}

export async function simulateCommand(config: EngineConfig, log: pino.Logger): Promise<number> {
  const port = httpPort(process.env, config);
  if (typeof port === 'string') {
    log.error(port);
    return 1;
  }
  let apiToken: string | null;
  try {
    apiToken = resolveApiToken(process.env, config);
  } catch (e) {
    log.error(`cannot start: ${(e as Error).message}`);
    return 1;
  }
  // The market next: replay data that cannot be used is one clear error before any worker starts.
  const market = liveMarketError(config);
  if (market !== null) {
    log.error(`cannot start: ${market}`);
    return 1;
  }
  // One server per data_dir, before anything in it is read or written (a second one would recover
  // the live one's journal); --backtest, --sweep and --worker write no journal and take no lock.
  let lock: DataDirLock;
  try {
    lock = await lockDataDir(config.data_dir);
  } catch (e) {
    if (e instanceof DataDirLocked) log.error({ data_dir: e.dir, holder_pid: e.holder.pid }, `cannot start: ${e.message}`);
    else log.error(`cannot start: data_dir = ${JSON.stringify(config.data_dir)}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  // Storage first: a data_dir that cannot be used is one clear error and exit 1 before any worker
  // thread exists (a started worker would keep the process alive with nothing listening).
  let backtests: BacktestService;
  // QUEUE_URL: sessions run on BullMQ queue workers (src/jobs); an unreachable Redis stops the start.
  let executor: QueueExecutor | undefined;
  const queueUrl = process.env.QUEUE_URL?.trim();
  if (queueUrl) {
    try {
      executor = await createQueueExecutor(queueUrl, config, { onEvent: (msg, fields) => log.warn(fields, msg) });
      log.info({ queue: queueUrl }, 'backtest sessions run on the queue');
    } catch (e) {
      log.error(`cannot start: QUEUE_URL: ${(e as Error).message}`);
      lock.release();
      return 1;
    }
  }
  try {
    backtests = await BacktestService.open({ config, logger: log, executor });
  } catch (e) {
    log.error(`cannot start: data_dir = ${JSON.stringify(config.data_dir)}: ${e instanceof Error ? e.message : String(e)}`);
    lock.release();
    return 1;
  }
  const runtime = new SimulationRuntime({ config, logger: log, models: (root) => modelStatus(config, log, root) });
  runtime.start();
  const host = process.env.HOST?.trim() || config.http.host;
  const auth = apiToken === null ? 'none' : config.http.require_auth_for_reads ? 'all routes but /health, /metrics, /openapi.json' : 'POST and DELETE';
  if (apiToken !== null) log.info({ auth }, 'API token required');
  else if (host === '127.0.0.1' || host === '::1' || host === 'localhost') log.info({ auth }, 'no API token: POST and DELETE are open to local clients');
  else log.warn({ auth, host }, `no API token and listening on ${host}: POST and DELETE are open to whoever reaches the port (set ENGINE_API_TOKEN)`);
  let http;
  try {
    // HOST: the interface to bind (default [http] host, loopback; the container image sets 0.0.0.0).
    http = await startHttpServer({ runtime, config, logger: log, backtests }, { port, host, apiToken });
  } catch (e) {
    log.error({ err: e, port, host }, `cannot start: cannot listen on ${host}:${port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    await backtests.close();
    await executor?.close();
    await runtime.stop();
    lock.release();
    return 1;
  }
  log.info({ port: http.port, symbols: runtime.symbols, engine_idle: config.simulation.engine_idle }, `listening on http://${http.host}:${http.port}`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'shutting down');
      const deadline = setTimeout(() => {
        log.error('shutdown took too long; exiting');
        resolve(1);
      }, SHUTDOWN_DEADLINE_MS);
      deadline.unref();
      try {
        await http.close();
        await executor?.close();
        await runtime.stop();
        lock.release();
        log.info('stopped');
        log.flush();
        resolve(0);
      } catch (e) {
        log.error({ err: e }, 'error during shutdown');
        resolve(1);
      } finally {
        clearTimeout(deadline);
      }
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}
