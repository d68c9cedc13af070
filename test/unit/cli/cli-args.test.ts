import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseArgs, USAGE, type CliOptions } from '../../../src/cli/args.ts';

const BASE: CliOptions = { backtest: false, json: false, help: false };

function ok(argv: string[]): CliOptions {
  const r = parseArgs(argv);
  if (!r.ok) assert.unreachable(`parseArgs(${JSON.stringify(argv)}) failed: ${r.error}`);
  return (r as { ok: true; options: CliOptions }).options;
}

function fails(argv: string[], ...patterns: RegExp[]): string {
  const r = parseArgs(argv);
  if (r.ok) assert.unreachable(`parseArgs(${JSON.stringify(argv)}) should fail`);
  const error = (r as { ok: false; error: string }).error;
  for (const p of patterns) assert.match(error, p);
  return error;
}

test('no arguments: server mode with defaults', () => {
  assert.equal(ok([]), BASE);
});

test('--config PATH and --config=PATH', () => {
  assert.equal(ok(['--config', 'my.toml']), { ...BASE, config: 'my.toml' });
  assert.equal(ok(['--config=/etc/x=y.toml']), { ...BASE, config: '/etc/x=y.toml' });
  assert.equal(ok(['--backtest', '--config', 'c.toml']), { ...BASE, backtest: true, config: 'c.toml' });
});

test('--help and -h win over everything else', () => {
  assert.ok(ok(['--help']).help);
  assert.ok(ok(['-h']).help);
  assert.ok(ok(['--bogus', '--help']).help);
  assert.ok(ok(['--json', '-h']).help);
});

test('every backtest flag', () => {
  const o = ok([
    '--backtest',
    '--json',
    '--fills',
    'out.csv',
    '--start',
    '2024-01-02',
    '--end',
    '2024-01-05',
    '--seed',
    '7',
    '--symbol',
    'ES',
    '--use-ml',
    '--config',
    'c.toml',
  ]);
  assert.equal(o, {
    backtest: true,
    json: true,
    useMl: true,
    help: false,
    fills: 'out.csv',
    start: '2024-01-02',
    end: '2024-01-05',
    seed: 7,
    symbol: 'ES',
    config: 'c.toml',
  });
  const eq = ok(['--backtest', '--fills=f.csv', '--start=2024-02-01', '--end=2024-02-01', '--seed=0', '--symbol=NQM4']);
  assert.equal(eq, { ...BASE, backtest: true, fills: 'f.csv', start: '2024-02-01', end: '2024-02-01', seed: 0, symbol: 'NQM4' });
  assert.is(ok(['--seed', '12', '--backtest']).seed, 12, 'flag order does not matter');
  assert.is(ok(['--backtest', '--symbol', 'ESH24']).symbol, 'ESH24');
});

test('--no-ml turns the model off whatever the config says; with --use-ml it is an error', () => {
  assert.is(ok(['--backtest', '--no-ml']).useMl, false);
  assert.is(ok(['--backtest']).useMl, undefined, 'no flag: the config decides');
  fails(['--backtest', '--use-ml', '--no-ml'], /--use-ml and --no-ml: give one of them/);
  fails(['--backtest', '--no-ml', '--use-ml'], /--use-ml and --no-ml: give one of them/);
});

test('unknown flags and stray arguments', () => {
  fails(['--bogus'], /unknown option "--bogus"/);
  fails(['--backtest', '--jsn'], /unknown option "--jsn"/);
  fails(['-x'], /unknown option "-x"/);
  fails(['--unknown=3'], /unknown option "--unknown"/);
  fails(['backtest'], /unexpected argument "backtest"/);
  fails(['--backtest', '--', '--json'], /unexpected argument "--"/);
  fails(['--backtest', '-j'], /unknown option "-j"/);
});

test('missing values', () => {
  fails(['--config'], /--config needs a value: --config PATH/);
  fails(['--config='], /--config needs a value/);
  fails(['--config', '--backtest'], /--config needs a value/);
  fails(['--backtest', '--fills'], /--fills needs a value: --fills FILE/);
  fails(['--backtest', '--start'], /--start needs a value: --start YYYY-MM-DD/);
  fails(['--backtest', '--end', '--json'], /--end needs a value/);
  fails(['--backtest', '--seed'], /--seed needs a value: --seed N/);
  fails(['--backtest', '--symbol'], /--symbol needs a value: --symbol SYMBOL/);
});

test('boolean flags take no value', () => {
  fails(['--backtest=yes'], /--backtest takes no value/);
  fails(['--backtest', '--json=1'], /--json takes no value/);
  fails(['--backtest', '--use-ml=true'], /--use-ml takes no value/);
});

test('malformed dates', () => {
  fails(['--backtest', '--start', '2024-1-2'], /--start "2024-1-2": expected a calendar date YYYY-MM-DD/);
  fails(['--backtest', '--end', '2024-02-30'], /--end "2024-02-30": expected a calendar date/);
  fails(['--backtest', '--start=20240102'], /--start "20240102"/);
  fails(['--backtest', '--start', '2024-01-05', '--end', '2024-01-02'], /--end 2024-01-02 is before --start 2024-01-05/);
});

test('malformed seeds', () => {
  fails(['--backtest', '--seed', '-1'], /--seed "-1": expected a non-negative integer/);
  fails(['--backtest', '--seed', '1.5'], /--seed "1\.5": expected a non-negative integer/);
  fails(['--backtest', '--seed', 'abc'], /--seed "abc"/);
  fails(['--backtest', '--seed', '99999999999999999999'], /--seed "99999999999999999999"/);
  fails(['--backtest', '--seed', '1e3'], /--seed "1e3"/);
});

test('bad symbols', () => {
  fails(['--backtest', '--symbol', 'ESQ2024'], /--symbol "ESQ2024"/, /malformed contract symbol/);
  // A well-formed root is checked once the config is read (it may add [contracts.XX]):
  // test/integration/process/instruments-any-root.test.ts has the CLI's error for an unknown one.
  assert.is(ok(['--backtest', '--symbol', 'ZZH24']).symbol, 'ZZH24');
  assert.is(ok(['--backtest', '--symbol', 'es']).symbol, 'ES', 'upper-cased');
  fails(['--backtest', '--symbol', 'e$'], /--symbol "E\$"/, /malformed contract symbol/);
});

test('repeated flags are an error', () => {
  fails(['--config', 'a', '--config', 'b'], /--config given more than once/);
  fails(['--backtest', '--backtest'], /--backtest given more than once/);
  fails(['--backtest', '--seed', '1', '--seed=2'], /--seed given more than once/);
});

test('backtest-only flags without --backtest', () => {
  for (const argv of [
    ['--json'],
    ['--fills', 'f.csv'],
    ['--start', '2024-01-02'],
    ['--end', '2024-01-02'],
    ['--seed', '1'],
    ['--symbol', 'ES'],
    ['--use-ml'],
  ]) {
    fails(argv, new RegExp(`${argv[0]} only applies with --backtest`));
  }
  fails(['--json', '--use-ml'], /--json, --use-ml only apply with --backtest/);
});

test('USAGE documents every flag, the environment and the exit codes', () => {
  for (const s of [
    '--backtest',
    '--config PATH',
    '--json',
    '--fills FILE',
    '--start YYYY-MM-DD',
    '--end YYYY-MM-DD',
    '--seed N',
    '--symbol SYMBOL',
    '--use-ml',
    '--help',
    '-h',
  ]) {
    assert.ok(USAGE.includes(s), `USAGE lacks ${s}`);
  }
  for (const s of ['RUST_LOG', 'RUST_BACKTRACE', 'PORT', 'HOST', 'LOG_DIR', 'LOG_MAX_SIZE_MB', 'LOG_MAX_FILES', 'ENGINE_CONFIG'])
    assert.ok(USAGE.includes(s), `USAGE lacks ${s}`);
  assert.match(USAGE, /0\s+success/);
  assert.match(USAGE, /1\s+runtime or configuration error/);
  assert.match(USAGE, /2\s+usage error/);
});

test.run();
