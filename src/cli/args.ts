// Command-line parsing. Pure: returns a result, never prints or exits (the caller maps
// { ok: false } to USAGE on stderr and exit code 2).
//
// Tokenising is node:util parseArgs (--flag VALUE, --flag=VALUE, -h). It runs with strict: false
// and tokens: true because its strict mode accepts a repeated flag (last wins) and a value that
// looks like a flag (`--config --backtest`), and words its errors without the expected value;
// the loop below checks each token and names the flag, the value and what was expected.
import { parseArgs as tokenize } from 'node:util';
import { parseClock, parseDate } from '../market/calendar.ts';
import { MONTH_CODES, ROOT_RE, SYMBOL_RE } from '../market/instruments.ts';
import { STDOUT, tableFormat } from './output-files.ts';

export interface CliOptions {
  /** --backtest: run one backtest from the config and flags, print the result, exit. */
  backtest: boolean;
  /** --config PATH: config file (beats ENGINE_CONFIG). */
  config?: string;
  /** --json: print the backtest result as JSON instead of a table. */
  json: boolean;
  /** --fills FILE|-: every fill, CSV or Parquet by the extension; `-`: CSV on stdout. */
  fills?: string;
  /** --equity FILE|-: the equity curve, CSV or Parquet by the extension; `-`: CSV on stdout. */
  equity?: string;
  /** --orders FILE|-: the order log (every send, cancel and report), CSV or Parquet by the extension. */
  orders?: string;
  /** --quotes FILE|-: our bid/ask, mid and position once a second, CSV or Parquet by the extension. */
  quotes?: string;
  /** --report FILE|-: the self-contained HTML report. */
  report?: string;
  /** --progress: JSON progress lines on stderr (a bar is drawn anyway when stderr is a terminal). */
  progress?: boolean;
  /** --start / --end YYYY-MM-DD: backtest date range (defaults from [simulation]). */
  start?: string;
  end?: string;
  /** --from / --to HH:MM: a time window within the session (New York time); see time-window.ts. */
  from?: string;
  to?: string;
  /** --seed N: backtest seed (default simulation.seed). */
  seed?: number;
  /** --symbol SYMBOL: a configured contract (ESH24) or a root (ES) to backtest. */
  symbol?: string;
  /** --data PATH: replay recorded DBN data (a file or a directory of daily files). */
  data?: string;
  /** --use-ml / --no-ml: backtest with or without the model's predictions; unset: the config's [strategy] use_ml. */
  useMl?: boolean;
  /** --sweep KEY=VALUES (repeatable): run a parameter sweep (src/sweep); implies --backtest. */
  sweep?: string[];
  /** --out FILE.json|FILE.csv: write the sweep's points to FILE. */
  out?: string;
  /** --holdout-days N: rank on the earlier sessions, evaluate the best on the last N. */
  holdoutDays?: number;
  /** --queue redis://HOST:PORT: run the sessions on BullMQ queue workers instead of the local pool. */
  queue?: string;
  /** --worker: take session jobs off --queue until stopped. */
  worker?: boolean;
  /** --help / -h: print USAGE and exit 0. */
  help: boolean;
  /** --inspect FILE: print a DBN file's metadata and records as JSON lines, exit. */
  inspect?: string;
  /** --pretty: with --inspect, prices as decimals and timestamps as ISO 8601 UTC with ns. */
  pretty?: boolean;
  /** --limit N: with --inspect, print at most N records. */
  limit?: number;
  /** --export-dbn OUT: write synthetic sessions as zstd DBN to OUT, exit. */
  exportDbn?: string;
  /** --schema mbo|mbp-10: with --export-dbn, the record schema (default mbo). */
  schema?: 'mbo' | 'mbp-10';
  /** --strategy-file PATH (repeatable): load strategies from a .ts/.js file or a directory of them. */
  strategyFiles?: string[];
  /** --strategy NAME: the strategy to backtest (default [strategy] name). */
  strategy?: string;
  /** --param KEY=VALUE (repeatable): a parameter of the strategy. */
  params?: Record<string, number | boolean>;
  /** --strategy-check NAME|FILE: check a strategy's determinism, promise and allocations, exit. */
  strategyCheck?: string;
}

/** The flag that selects a run mode other than the server. */
type Mode = 'backtest' | 'inspect' | 'export-dbn' | 'strategy-check';

export type ParseResult = { ok: true; options: CliOptions } | { ok: false; error: string };

interface Flag {
  /** The value's placeholder in the usage; absent for a boolean flag. */
  value?: string;
  backtestOnly: boolean;
  /** A backtest flag that also applies in this other mode. */
  alsoWith?: Mode;
  /** Applies only in this mode, or these (its own section of the usage). */
  only?: Mode | readonly Mode[];
  help: string;
  /** May be given more than once (each occurrence is stored). */
  repeatable?: boolean;
  /** Checks the value and stores it; returns an error message or undefined. */
  set: (o: CliOptions, v: string) => string | undefined;
}

function checkDate(flag: string, v: string): string | undefined {
  if (parseDate(v) === null) return `${flag} ${JSON.stringify(v)}: expected a calendar date YYYY-MM-DD, e.g. 2024-01-02`;
  return undefined;
}

function checkClock(flag: string, v: string): string | undefined {
  if (parseClock(v) === null) return `${flag} ${JSON.stringify(v)}: expected a time HH:MM (New York, 24-hour), e.g. 09:45`;
  return undefined;
}

// Only the form is checked here: the roots a run knows come from the config ([contracts.<ROOT>])
// and the data's definitions, both read after the flags; the request check names unknown roots.
function checkSymbol(v: string): string | undefined {
  if (ROOT_RE.test(v) || SYMBOL_RE.test(v)) return undefined;
  return (
    `--symbol ${JSON.stringify(v)}: expected a contract root such as ES or a month-coded symbol such as ESH24: malformed contract ` +
    `symbol '${v}': expected root + month code (${MONTH_CODES}) + year, e.g. ESH24 or ESH4`
  );
}

/** Every flag, in usage order: the parser, the usage text and the --help docs test all read this. */
export const FLAGS: Record<string, Flag> = {
  config: {
    value: 'PATH',
    backtestOnly: false,
    help: 'config file (TOML); beats ENGINE_CONFIG; default: the shipped config/config.toml',
    set: (o, v) => void (o.config = v),
  },
  backtest: { backtestOnly: false, help: 'run a backtest instead of starting the server', set: (o) => void (o.backtest = true) },
  worker: {
    backtestOnly: false,
    help: 'run backtest sessions from --queue (a queue worker) instead of starting the server',
    set: (o) => void (o.worker = true),
  },
  queue: {
    value: 'URL',
    backtestOnly: false,
    help: 'redis://HOST:PORT: with --backtest or --sweep run the sessions on queue workers; with --worker the queue to serve',
    set: (o, v) =>
      /^redis:\/\/[^/\s]+/.test(v) ? void (o.queue = v) : `--queue ${JSON.stringify(v)}: expected a Redis URL redis://HOST[:PORT], e.g. redis://127.0.0.1:6379`,
  },
  symbol: {
    value: 'SYMBOL',
    backtestOnly: true,
    alsoWith: 'export-dbn',
    help: 'contract (ESH24) or root (ES) to backtest; default: the first configured symbol',
    // Contract symbols are upper case (ES, ESH24): `--symbol es` means ES.
    set: (o, v) => checkSymbol(v.toUpperCase()) ?? void (o.symbol = v.toUpperCase()),
  },
  data: {
    value: 'PATH',
    backtestOnly: true,
    help: 'replay recorded market data: a Databento DBN file (.dbn, .dbn.zst; MBO or MBP-10) or a directory of daily files; default: the synthetic market',
    set: (o, v) => (v === '' ? '--data "": expected a DBN file or directory' : void (o.data = v)),
  },
  start: {
    value: 'YYYY-MM-DD',
    backtestOnly: true,
    alsoWith: 'export-dbn',
    help: 'first session date; default: simulation.start_date',
    set: (o, v) => checkDate('--start', v) ?? void (o.start = v),
  },
  end: {
    value: 'YYYY-MM-DD',
    backtestOnly: true,
    alsoWith: 'export-dbn',
    help: 'last session date (>= --start); default: simulation.end_date',
    set: (o, v) => checkDate('--end', v) ?? void (o.end = v),
  },
  from: {
    value: 'HH:MM',
    backtestOnly: true,
    alsoWith: 'export-dbn',
    help: 'start each session at HH:MM New York time, within [simulation] session_start..session_end',
    set: (o, v) => checkClock('--from', v) ?? void (o.from = v),
  },
  to: {
    value: 'HH:MM',
    backtestOnly: true,
    alsoWith: 'export-dbn',
    help: 'end each session at HH:MM New York time (after --from), within the session',
    set: (o, v) => checkClock('--to', v) ?? void (o.to = v),
  },
  seed: {
    value: 'N',
    backtestOnly: true,
    alsoWith: 'export-dbn',
    help: 'non-negative integer seed; default: simulation.seed',
    set: (o, v) => {
      if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) return `--seed ${JSON.stringify(v)}: expected a non-negative integer, e.g. 42`;
      o.seed = Number(v);
      return undefined;
    },
  },
  'use-ml': {
    backtestOnly: true,
    help: "shift quotes by the prediction of the root's model (models/<ROOT>.json); default: strategy.use_ml",
    set: (o) => (o.useMl === false ? '--use-ml and --no-ml: give one of them' : void (o.useMl = true)),
  },
  'no-ml': {
    backtestOnly: true,
    help: 'quote without the model, whatever strategy.use_ml says',
    set: (o) => (o.useMl === true ? '--use-ml and --no-ml: give one of them' : void (o.useMl = false)),
  },
  json: { backtestOnly: true, alsoWith: 'strategy-check', help: 'print the result as JSON', set: (o) => void (o.json = true) },
  fills: {
    value: 'FILE',
    backtestOnly: true,
    help: 'write every fill to FILE (.csv or .parquet; - for CSV on stdout)',
    set: (o, v) => checkTable('--fills', v) ?? void (o.fills = v),
  },
  equity: {
    value: 'FILE',
    backtestOnly: true,
    help: 'write the equity curve to FILE (.csv or .parquet; - for CSV on stdout)',
    set: (o, v) => checkTable('--equity', v) ?? void (o.equity = v),
  },
  orders: {
    value: 'FILE',
    backtestOnly: true,
    help: 'write the order log (every send, cancel, ack, reject and fill with its times and latencies) to FILE (.csv or .parquet; - for CSV on stdout)',
    set: (o, v) => checkTable('--orders', v) ?? void (o.orders = v),
  },
  quotes: {
    value: 'FILE',
    backtestOnly: true,
    help: 'write our bid/ask, the mid and our position once a second to FILE (.csv or .parquet; - for CSV on stdout)',
    set: (o, v) => checkTable('--quotes', v) ?? void (o.quotes = v),
  },
  report: { value: 'FILE', backtestOnly: true, help: 'write a self-contained HTML report to FILE (- for stdout)', set: (o, v) => void (o.report = v) },
  progress: { backtestOnly: true, help: 'progress as JSON lines on stderr (a terminal gets a bar anyway)', set: (o) => void (o.progress = true) },
  inspect: { value: 'FILE', backtestOnly: false, only: 'inspect', help: 'DBN file (.dbn or .dbn.zst) to print', set: (o, v) => void (o.inspect = v) },
  pretty: {
    backtestOnly: false,
    only: 'inspect',
    help: 'prices as decimal numbers, timestamps as ISO 8601 UTC with nanoseconds (default: the raw integers)',
    set: (o) => void (o.pretty = true),
  },
  limit: {
    value: 'N',
    backtestOnly: false,
    only: ['inspect', 'strategy-check'],
    help: 'print at most N records (default: all); --strategy-check: replay the first N market events (default 1000000)',
    set: (o, v) => {
      if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) return `--limit ${JSON.stringify(v)}: expected a non-negative integer, e.g. 10`;
      o.limit = Number(v);
      return undefined;
    },
  },
  'export-dbn': {
    value: 'OUT',
    backtestOnly: false,
    only: 'export-dbn',
    help: 'file to write (.dbn.zst); --symbol, --start, --end, --from, --to, --seed as for --backtest',
    set: (o, v) => void (o.exportDbn = v),
  },
  schema: {
    value: 'SCHEMA',
    backtestOnly: false,
    only: 'export-dbn',
    help: 'records to export: mbo (default) or mbp-10',
    set: (o, v) => {
      if (v !== 'mbo' && v !== 'mbp-10') return `--schema ${JSON.stringify(v)}: expected mbo or mbp-10`;
      o.schema = v;
      return undefined;
    },
  },
  'strategy-file': {
    value: 'PATH',
    backtestOnly: false,
    repeatable: true,
    help: 'load strategies from a TypeScript/JavaScript file or a directory of them (repeatable; also [strategy] files)',
    set: (o, v) => void (o.strategyFiles = [...(o.strategyFiles ?? []), v]),
  },
  strategy: {
    value: 'NAME',
    backtestOnly: true,
    help: 'the strategy to run by name (default: [strategy] name, the built-in market_maker)',
    set: (o, v) =>
      /^[a-z][a-z0-9_]{0,63}$/.test(v)
        ? void (o.strategy = v)
        : `--strategy ${JSON.stringify(v)}: expected a strategy name (lower case letters, digits and underscores), not a path: load files with --strategy-file`,
  },
  param: {
    value: 'KEY=VALUE',
    backtestOnly: true,
    alsoWith: 'strategy-check',
    repeatable: true,
    help: 'set a parameter of the strategy (repeatable), e.g. --param spread_multiplier=1.5',
    set: (o, v) => {
      const m = /^([a-z][a-z0-9_]{0,63})=(.+)$/.exec(v);
      if (!m) return `--param ${JSON.stringify(v)}: expected KEY=VALUE, e.g. --param spread_multiplier=1.5`;
      const val = m[2] === 'true' ? true : m[2] === 'false' ? false : Number(m[2]);
      if (typeof val === 'number' && !Number.isFinite(val)) return `--param ${JSON.stringify(v)}: expected a number or true/false as the value`;
      if (o.params && Object.prototype.hasOwnProperty.call(o.params, m[1])) return `--param ${m[1]} given more than once`;
      o.params = { ...(o.params ?? {}), [m[1]]: val };
      return undefined;
    },
  },
  'strategy-check': {
    value: 'NAME|FILE',
    backtestOnly: false,
    only: 'strategy-check',
    help:
      'run a strategy several times in one thread and once in a fresh one, with the quiet path and its promise on and off; report ' +
      'determinism, allocations and ns per event; exit',
    set: (o, v) => void (o.strategyCheck = v),
  },
  sweep: {
    value: 'KEY=VALUES',
    backtestOnly: true,
    repeatable: true,
    help: 'sweep a [strategy]/[risk]/[execution] key over v1,v2,... or start:stop:step (repeatable: the grid is the product)',
    set: (o, v) => void (o.sweep = [...(o.sweep ?? []), v]),
  },
  out: {
    value: 'FILE',
    backtestOnly: true,
    help: 'with --sweep: write the points to FILE.json or FILE.csv',
    set: (o, v) => (/\.(json|csv)$/i.test(v) ? void (o.out = v) : `--out ${JSON.stringify(v)}: expected a file name ending in .json or .csv`),
  },
  'holdout-days': {
    value: 'N',
    backtestOnly: true,
    help: 'with --sweep: rank on the earlier sessions, run the best 3 on the last N',
    set: (o, v) => {
      if (!/^\d+$/.test(v) || Number(v) < 1 || !Number.isSafeInteger(Number(v)))
        return `--holdout-days ${JSON.stringify(v)}: expected a positive integer (trading days), e.g. 5`;
      o.holdoutDays = Number(v);
      return undefined;
    },
  },
};

function checkTable(flag: string, v: string): string | undefined {
  const f = tableFormat(flag, v);
  return f === 'csv' || f === 'parquet' ? undefined : f;
}

/** The environment the engine reads, with what each variable does. */
export const ENVIRONMENT: [string, string][] = [
  ['RUST_LOG', 'log level: trace, debug, info, warn, error (default: config log_level, else info)'],
  ['RUST_BACKTRACE', '1 = include stack traces in error logs'],
  ['PORT', 'HTTP port (default: config metrics_port, 9090)'],
  ['HOST', 'address the HTTP API binds (default: config [http] host, 127.0.0.1 = this machine only)'],
  ['ENGINE_API_TOKEN', 'bearer token POST and DELETE require (default: config [http] api_token_file, else none)'],
  ['LOG_DIR', 'also write the logs to LOG_DIR/engine.log, rotated by size (default: no log file)'],
  ['LOG_MAX_SIZE_MB', 'size of one log file before it rotates, MiB (default 10)'],
  ['LOG_MAX_FILES', 'rotated log files kept (default 5)'],
  ['ENGINE_CONFIG', 'config file used when --config is absent'],
  ['QUEUE_URL', 'redis://HOST:PORT: the server runs backtest and sweep sessions on queue workers (default: the local pool)'],
];

/** The modes a flag is limited to ([]: any). */
const modesOf = (f: Flag): readonly Mode[] => (f.only === undefined ? [] : typeof f.only === 'string' ? [f.only] : f.only);
const row = (left: string, right: string, width: number) => `  ${left.padEnd(width)} ${right}`;
const flagText = (name: string) => `--${name}${FLAGS[name].value ? ` ${FLAGS[name].value}` : ''}`;
const flagRows = (backtestOnly: boolean, only?: Mode) =>
  Object.keys(FLAGS)
    .filter((n) => FLAGS[n].backtestOnly === backtestOnly && (only === undefined ? FLAGS[n].only === undefined : modesOf(FLAGS[n]).includes(only)))
    .map((n) => row(flagText(n), FLAGS[n].help, 18));

export const USAGE = `Usage:
  engine [--config PATH]                 start the engine: HTTP API, dashboard stream, live simulation
  engine --backtest [options]            run one backtest, print the result, exit
  engine --inspect FILE [--limit N] [--pretty]  print a DBN file's metadata, then one JSON line per record
  engine --export-dbn OUT [options]      write synthetic sessions as zstd DBN (MBO or MBP-10), exit
  engine --sweep KEY=VALUES ... [options]  run a backtest per grid point, print them ranked, exit
  engine --worker --queue URL             take backtest sessions off a BullMQ queue on Redis
  engine --strategy-check NAME|FILE      check a strategy: determinism, its standing promise, allocations
  engine --help | -h                     print this help

Options:
${flagRows(false).join('\n')}
Backtest options (only with --backtest or --sweep):
${flagRows(true).join('\n')}
DBN options:
${[...flagRows(false, 'inspect'), ...flagRows(false, 'export-dbn')].join('\n')}
Strategy check (docs/strategy-check.md; also --limit, --param, --json):
${flagRows(false, 'strategy-check').join('\n')}
  Every flag that takes a value also accepts --flag=VALUE.

Environment:
${ENVIRONMENT.map(([k, v]) => row(k, v, 18)).join('\n')}

Logs: JSON lines (pino) on stdout; with --backtest on stderr, since stdout carries the result.

Exit codes:
  0  success
  1  runtime or configuration error
  2  usage error (bad flags)
`;

const TOKEN_OPTIONS = Object.fromEntries([
  ...Object.entries(FLAGS).map(([n, f]) => [n, { type: f.value ? ('string' as const) : ('boolean' as const) }]),
  ['help', { type: 'boolean' as const, short: 'h' }],
]);

/** Parses argv without the node and script entries (process.argv.slice(2)). */
export function parseArgs(argv: string[]): ParseResult {
  const options: CliOptions = { backtest: false, json: false, help: false };
  const err = (error: string): ParseResult => ({ ok: false, error });
  // --help / -h anywhere wins over every other flag (and over mistakes in them).
  if (argv.includes('--help') || argv.includes('-h')) return { ok: true, options: { ...options, help: true } };

  const { tokens } = tokenize({ args: argv, options: TOKEN_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind === 'positional') return err(`unexpected argument ${JSON.stringify(t.value)}: options start with -- (see --help)`);
    if (t.kind === 'option-terminator') return err('unexpected argument "--" (see --help)');
    const flag = t.rawName;
    const spec = Object.prototype.hasOwnProperty.call(FLAGS, t.name) && flag === `--${t.name}` ? FLAGS[t.name] : undefined;
    if (!spec) return err(`unknown option ${JSON.stringify(flag)} (see --help)`);
    if (!spec.value && t.value !== undefined) return err(`${flag} takes no value (got ${JSON.stringify(`${flag}=${t.value}`)})`);
    // Without '=', parseArgs takes the next argument as the value even when it is a flag.
    const value = t.value === undefined || (!t.inlineValue && (t.value.startsWith('--') || t.value === '-h')) ? undefined : t.value;
    if (spec.value && (value === undefined || value === '')) return err(`${flag} needs a value: ${flag} ${spec.value}`);
    if (seen.has(flag) && !spec.repeatable) return err(`${flag} given more than once`);
    seen.add(flag);
    const bad = spec.set(options, value ?? '');
    if (bad) return err(bad);
  }

  const modes = (['backtest', 'inspect', 'export-dbn', 'strategy-check'] as const).filter((m) => seen.has(`--${m}`));
  if (modes.length > 1) return err(`${modes.map((m) => `--${m}`).join(' and ')} cannot be combined: choose one`);
  const mode = modes[0];
  for (const f of seen) {
    const only = modesOf(FLAGS[f.slice(2)]);
    if (only.length > 0 && !only.includes(mode as Mode)) return err(`${f} only applies with ${only.map((m) => `--${m}`).join(' or ')}`);
  }
  if (options.sweep && mode !== undefined && mode !== 'backtest') return err(`--sweep and --${mode} cannot be combined: choose one`);
  // A sweep is a batch of backtests: --sweep needs no --backtest; --out and --holdout-days need --sweep.
  if (options.sweep) options.backtest = true;
  else {
    const needSweep = ['--out', '--holdout-days'].filter((f) => seen.has(f));
    if (needSweep.length) return err(`${needSweep.join(', ')} only ${needSweep.length === 1 ? 'applies' : 'apply'} with --sweep`);
  }
  for (const k of ['fills', 'orders', 'quotes'] as const) if (options.sweep && options[k]) return err(`--${k} applies to one backtest, not to a --sweep`);
  // Recorded data brings its own session bounds (docs/research.md).
  if (options.data && (options.from || options.to))
    return err(`${options.from ? '--from' : '--to'} applies to the synthetic market: with --data, pick the sessions with --start/--end`);
  if (options.worker) {
    if (!options.queue) return err('--worker needs --queue redis://HOST:PORT');
    if (options.backtest) return err('--worker runs sessions for others: it takes no --backtest or --sweep');
  }
  if (options.queue && !options.worker && !options.backtest) return err('--queue applies with --backtest, --sweep or --worker (the server reads QUEUE_URL)');
  if (!options.backtest) {
    const stray = [...seen].filter((f) => FLAGS[f.slice(2)].backtestOnly && (mode === undefined || FLAGS[f.slice(2)].alsoWith !== mode));
    if (stray.length > 0) return err(`${stray.join(', ')} only ${stray.length === 1 ? 'applies' : 'apply'} with --backtest`);
  }
  // stdout carries one thing: the summary, the JSON result or one output given as `-`.
  const toStdout = (['fills', 'equity', 'orders', 'quotes', 'report'] as const).filter((k) => options[k] === STDOUT).map((k) => `--${k} -`);
  if (options.json) toStdout.push('--json');
  if (toStdout.length > 1) return err(`${toStdout.join(' and ')} all write to stdout: choose one`);
  if (options.start !== undefined && options.end !== undefined && options.end < options.start) {
    return err(`--end ${options.end} is before --start ${options.start}: expected --end on or after --start`);
  }
  return { ok: true, options };
}
