// `--fills -` as people pipe it: the CSV streams session by session, byte for byte the file
// --fills FILE.csv writes, and a reader that stops early (`| head`) stops the run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINE, runCli, tempDir, writeConfig } from '../../helpers/cli.ts';

// One pool thread: a session starts only after the one before it, so the run is far from over
// when the first session's rows meet the closed pipe, however fast the machine.
const CONFIG = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "10:00"
[backtest]
pool_size = 1
`);
const RANGE = ['--start', '2024-01-02', '--end', '2024-01-09'];

test('--fills - on stdout is the same bytes as --fills FILE.csv', () => {
  const file = join(tempDir(), 'fills.csv');
  const a = runCli(['--backtest', '--config', CONFIG, '--start', '2024-01-02', '--end', '2024-01-03', '--fills', file]);
  const b = runCli(['--backtest', '--config', CONFIG, '--start', '2024-01-02', '--end', '2024-01-03', '--fills', '-']);
  assert.is(a.code, 0, a.stderr);
  assert.is(b.code, 0, b.stderr);
  assert.ok(b.stdout.split('\n').length > 10, 'fills were written');
  assert.is(b.stdout, readFileSync(file, 'utf8'));
});

test('a reader closing the pipe after the first line stops the run (exit 0, no summary)', async () => {
  const child = spawn(process.execPath, [ENGINE, '--backtest', '--config', CONFIG, ...RANGE, '--fills', '-'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // Like `head -1`: read up to the first newline, then close our end.
  await new Promise<void>((resolve) => {
    let got = '';
    child.stdout.on('data', (d) => {
      got += d;
      if (got.includes('\n')) {
        child.stdout.destroy();
        resolve();
      }
    });
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  assert.is(code, 0, stderr);
  assert.match(stderr, /stdout was closed by its reader: run stopped after \d of 6 sessions/);
  assert.not.match(stderr, /events processed/, 'the run did not go on to its summary');
});

test.run();
