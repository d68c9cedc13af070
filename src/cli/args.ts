// Command-line parsing. Pure: returns a result, never prints or exits (the caller maps
// { ok: false } to USAGE on stderr and exit code 2).
import { parseDate } from '../market/calendar.ts';
import { CONTRACTS, contractForRoot, parseSymbol, SymbolError } from '../market/instruments.ts';

export interface CliOptions {
  /** --backtest: run one backtest from the config and flags, print the result, exit. */
  backtest: boolean;
  /** --config PATH: config file (beats ENGINE_CONFIG). */
  config?: string;
  /** --json: print the backtest result as JSON instead of a table. */
  json: boolean;
  /** --fills FILE: write the backtest fills as CSV to FILE. */
  fills?: string;
  /** --start / --end YYYY-MM-DD: backtest date range (defaults from [simulation]). */
  start?: string;
  end?: string;
  /** --seed N: backtest seed (default simulation.seed). */
  seed?: number;
  /** --symbol SYMBOL: a configured contract (ESH24) or a root (ES) to backtest. */
  symbol?: string;
  /** --use-ml: backtest with the model's predictions. */
  useMl: boolean;
  /** --help / -h: print USAGE and exit 0. */
  help: boolean;
}

export type ParseResult = { ok: true; options: CliOptions } | { ok: false; error: string };

export const USAGE = `Usage:
  engine [--config PATH]                 start the engine: HTTP API, dashboard stream, live simulation
  engine --backtest [options]            run one backtest, print the result, exit
  engine --help | -h                     print this help

Options:
  --config PATH      config file (TOML); beats ENGINE_CONFIG; default: the shipped config/config.toml
  --backtest         run a backtest instead of starting the server
Backtest options (only with --backtest):
  --symbol SYMBOL    contract (ESH24) or root (ES) to backtest; default: the first configured symbol
  --start YYYY-MM-DD first session date; default: simulation.start_date
  --end YYYY-MM-DD   last session date (>= --start); default: simulation.end_date
  --seed N           non-negative integer seed; default: simulation.seed
  --use-ml           shift quotes by the model's prediction
  --json             print the result as JSON
  --fills FILE       write every fill as CSV to FILE
  Every flag that takes a value also accepts --flag=VALUE.

Environment:
  RUST_LOG           log level: trace, debug, info, warn, error (default: config log_level, else info)
  RUST_BACKTRACE     1 = include stack traces in error logs
  PORT               HTTP port (default: config metrics_port, 9090)
  ENGINE_CONFIG      config file used when --config is absent

Exit codes:
  0  success
  1  runtime or configuration error
  2  usage error (bad flags)
`;

const VALUE_FLAGS = new Set(['--config', '--fills', '--start', '--end', '--seed', '--symbol']);
const BOOL_FLAGS = new Set(['--backtest', '--json', '--use-ml', '--help', '-h']);
const BACKTEST_ONLY = ['--json', '--fills', '--start', '--end', '--seed', '--symbol', '--use-ml'];

function checkDate(flag: string, v: string): string | undefined {
  if (parseDate(v) === null) return `${flag} ${JSON.stringify(v)}: expected a calendar date YYYY-MM-DD, e.g. 2024-01-02`;
  return undefined;
}

function checkSymbol(v: string): string | undefined {
  if (Object.prototype.hasOwnProperty.call(CONTRACTS, v)) return undefined;
  try {
    // A bare root (letters only) is checked as a root so the message names the known roots.
    if (/^[A-Z]{1,3}$/.test(v)) contractForRoot(v);
    else parseSymbol(v);
    return undefined;
  } catch (e) {
    const why = e instanceof SymbolError ? e.message : String(e);
    return `--symbol ${JSON.stringify(v)}: expected a contract root such as ES or a month-coded symbol such as ESH24: ${why}`;
  }
}

/** Parses argv without the node and script entries (process.argv.slice(2)). */
export function parseArgs(argv: string[]): ParseResult {
  const options: CliOptions = { backtest: false, json: false, useMl: false, help: false };
  const seen = new Set<string>();
  const err = (error: string): ParseResult => ({ ok: false, error });
  // --help / -h anywhere wins over every other flag (and over mistakes in them).
  if (argv.includes('--help') || argv.includes('-h')) return { ok: true, options: { ...options, help: true } };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    let flag = arg;
    let inline: string | undefined;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 2) {
      flag = arg.slice(0, eq);
      inline = arg.slice(eq + 1);
    }

    if (BOOL_FLAGS.has(flag)) {
      if (inline !== undefined) return err(`${flag} takes no value (got ${JSON.stringify(arg)})`);
      if (seen.has(flag)) return err(`${flag} given more than once`);
      seen.add(flag);
      if (flag === '--backtest') options.backtest = true;
      else if (flag === '--json') options.json = true;
      else if (flag === '--use-ml') options.useMl = true;
      continue;
    }

    if (!VALUE_FLAGS.has(flag)) {
      if (arg.startsWith('-')) return err(`unknown option ${JSON.stringify(flag)} (see --help)`);
      return err(`unexpected argument ${JSON.stringify(arg)}: options start with -- (see --help)`);
    }

    let value: string | undefined;
    if (inline !== undefined) value = inline;
    else {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--') && next !== '-h') {
        value = next;
        i++;
      }
    }
    if (value === undefined || value === '') {
      const what = flag === '--seed' ? 'N' : flag === '--start' || flag === '--end' ? 'YYYY-MM-DD' : flag === '--symbol' ? 'SYMBOL' : flag === '--fills' ? 'FILE' : 'PATH';
      return err(`${flag} needs a value: ${flag} ${what}`);
    }
    if (seen.has(flag)) return err(`${flag} given more than once`);
    seen.add(flag);

    switch (flag) {
      case '--config':
        options.config = value;
        break;
      case '--fills':
        options.fills = value;
        break;
      case '--start':
      case '--end': {
        const bad = checkDate(flag, value);
        if (bad) return err(bad);
        if (flag === '--start') options.start = value;
        else options.end = value;
        break;
      }
      case '--seed': {
        if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
          return err(`--seed ${JSON.stringify(value)}: expected a non-negative integer, e.g. 42`);
        }
        options.seed = Number(value);
        break;
      }
      case '--symbol': {
        const bad = checkSymbol(value);
        if (bad) return err(bad);
        options.symbol = value;
        break;
      }
    }
  }

  if (!options.backtest) {
    const stray = BACKTEST_ONLY.filter((f) => seen.has(f));
    if (stray.length > 0) return err(`${stray.join(', ')} only ${stray.length === 1 ? 'applies' : 'apply'} with --backtest`);
  }
  if (options.start !== undefined && options.end !== undefined && options.end < options.start) {
    return err(`--end ${options.end} is before --start ${options.start}: expected --end on or after --start`);
  }
  return { ok: true, options };
}
