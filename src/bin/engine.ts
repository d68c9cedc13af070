// CLI entry: `node dist/engine.js [--backtest] [--config PATH] ...`.
// Exit codes: 0 ok, 1 runtime or config error, 2 usage error.

import { parseArgs, USAGE } from '../cli/args.ts';
import { backtestCommand } from '../cli/backtest-command.ts';
import { exportDbnCommand } from '../cli/export-dbn-command.ts';
import { inspectCommand } from '../cli/inspect-command.ts';
import { simulateCommand } from '../cli/simulate-command.ts';
import { sweepCommand } from '../cli/sweep-command.ts';
import { workerCommand } from '../jobs/worker.ts';
import { ConfigError, loadConfig } from '../config/load.ts';
import { createLogger } from '../log.ts';
import { stderrLog } from '../cli/held-log.ts';
import { setUpStrategies } from '../strategy/setup.ts';
import { strategyCheckCommand } from '../cli/strategy-check-command.ts';
import { VERSION } from '../version.ts';

async function main(): Promise<number> {
  const parsed = parseArgs(process.argv.slice(2));
  if (!parsed.ok) {
    // The one useful line, not the whole usage after it.
    process.stderr.write(`error: ${parsed.error}${/see --help/.test(parsed.error) ? '' : ' (see --help)'}\n`);
    return 2;
  }
  const opts = parsed.options;
  if (opts.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  // Reading a DBN file needs no config.
  if (opts.inspect !== undefined) return inspectCommand(opts.inspect, opts.limit, opts.pretty);
  let loaded;
  try {
    loaded = loadConfig({ path: opts.config, env: process.env });
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const { config, path } = loaded;
  // In backtest mode (and the strategy check) stdout carries the result, so logs go to stderr.
  const oneShot = opts.backtest || opts.worker || opts.exportDbn !== undefined || opts.strategyCheck !== undefined;
  // stderr's lines wait while a progress bar is drawn there (src/cli/held-log.ts).
  const log = createLogger({ configLevel: config.log_level, env: process.env, destination: oneShot ? stderrLog : 1 });
  const mode = opts.worker
    ? 'worker'
    : opts.backtest
      ? 'backtest'
      : opts.exportDbn !== undefined
        ? 'export-dbn'
        : opts.strategyCheck !== undefined
          ? 'strategy-check'
          : 'simulation';
  log.info({ version: VERSION, config: path, mode }, `${config.name} ${VERSION} starting`);
  if (config.trading.live_enabled) {
    log.error(
      { key: 'trading.live_enabled' },
      'live_enabled = true, but this build has no live venue connection: it trades only the simulated exchange. Set live_enabled = false.',
    );
    return 1;
  }
  // Strategies from files: loaded (compiled) once, before anything runs or the config's choice is checked.
  const strategyError = await setUpStrategies(config, opts.strategyFiles ?? []);
  if (strategyError !== null) {
    log.error({ key: 'strategy' }, strategyError);
    process.stderr.write(`error: ${strategyError}\n`);
    return 1;
  }
  if (opts.strategyCheck !== undefined) return strategyCheckCommand(opts, config, log);
  if (opts.worker) return workerCommand(opts.queue!, config, log);
  if (opts.sweep) return sweepCommand(opts, config, log);
  if (opts.backtest) return backtestCommand(opts, config, log);
  if (opts.exportDbn !== undefined) return exportDbnCommand(opts, config, log);
  // The live simulation's threads load the same strategy files (the CLI's with the config's).
  return simulateCommand(
    opts.strategyFiles?.length ? { ...config, strategy: { ...config.strategy, files: [...config.strategy.files, ...opts.strategyFiles] } } : config,
    log,
  );
}

main().then(
  (code) => {
    process.exitCode = code;
    // Worker threads and pools are stopped by now; exit even if a stray handle lingers.
    setTimeout(() => process.exit(code), 100).unref();
  },
  (err) => {
    process.stderr.write(`fatal: ${process.env.RUST_BACKTRACE === '1' && err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
