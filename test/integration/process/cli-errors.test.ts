// The CLI's errors as a user meets them: the flag they typed, the nearest trading days, one line
// pointing at --help instead of the whole usage; a lower-case root is taken as meant.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseArgs } from '../../../src/cli/args.ts';
import { runCli, writeConfig } from '../../helpers/cli.ts';

const SHORT = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "09:40"
`);

test('a weekend --start is reported as --start, with the nearest trading days', () => {
  const r = runCli(['--backtest', '--config', SHORT, '--start', '2024-01-06']);
  assert.is(r.code, 2, r.stderr);
  const line = r.stderr.split('\n').find((l) => l.startsWith('error:')) ?? '';
  assert.match(line, /^error: --start: no CME session on 2024-01-06/);
  assert.not.match(line, /--end/);
  assert.match(line, /2024-01-05 \(before\) and 2024-01-08 \(after\)/);
});

test('a weekend --end after a weekend --start names the range and both neighbours', () => {
  const r = runCli(['--backtest', '--config', SHORT, '--start', '2024-01-06', '--end', '2024-01-07']);
  assert.is(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /error: --end: no CME session between 2024-01-06 and 2024-01-07 \(weekends have no session\); the nearest sessions: 2024-01-05 \(before\) and 2024-01-08 \(after\)/,
  );
});

test('--export-dbn names --start too', () => {
  const r = runCli(['--export-dbn', '/tmp/never-written.dbn.zst', '--config', SHORT, '--start', '2024-01-06']);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /error: --start: no CME session on 2024-01-06/);
});

test('a usage error prints one line and "see --help", not the 50-line usage', () => {
  for (const args of [
    ['--backtest', '--seed', 'x'],
    ['--fills', 'a.csv'],
    ['--backtest', '--bogus'],
  ]) {
    const r = runCli(args);
    assert.is(r.code, 2);
    assert.not.match(r.stderr, /Usage:/, args.join(' '));
    assert.match(r.stderr, /see --help/, args.join(' '));
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});

test('--symbol es is taken as ES (and esh24 as ESH24)', () => {
  const a = parseArgs(['--backtest', '--symbol', 'es']);
  assert.ok(a.ok && a.options.symbol === 'ES', JSON.stringify(a));
  const b = parseArgs(['--backtest', '--symbol', 'esh24']);
  assert.ok(b.ok && b.options.symbol === 'ESH24', JSON.stringify(b));
  const r = runCli(['--backtest', '--config', SHORT, '--symbol', 'es', '--json']);
  assert.is(r.code, 0, r.stderr);
  assert.is(JSON.parse(r.stdout).symbol, 'ES');
});

test.run();
