// The backtest CLI's research outputs as a user runs them: --fills - (a clean CSV on stdout),
// output paths checked before the run, --progress JSON lines (nothing on a pipe otherwise),
// the bar on a terminal, and errors that name the flag typed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { runCli, tempDir, writeConfig } from '../../helpers/cli.ts';
import { createProgress } from '../../../src/cli/progress.ts';
import { FILLS_CSV_HEADER } from '../../../src/research/fills-csv.ts';

const dir = tempDir('research-cli-');
let config: string;
const short = (...args: string[]) => runCli(['--backtest', '--config', config, '--start', '2024-01-02', '--end', '2024-01-03', ...args]);

beforeAll(test, () => {
  ensureBuilt();
  config = writeConfig('[simulation]\nsession_start = "09:30"\nsession_end = "09:40"\n');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test('--fills - writes only the CSV to stdout; the summary goes to stderr', () => {
  const r = short('--fills', '-');
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.is(lines[0], FILLS_CSV_HEADER);
  const fills = Number(/fills\s+([\d,]+)/.exec(r.stderr)![1].replace(/,/g, ''));
  assert.is(lines.length, fills + 1);
  assert.ok(
    lines.slice(1).every((l) => l.split(',').length === 18),
    'every row has every column',
  );
  assert.match(r.stderr, /^Backtest ESH24 2024-01-02\.\.2024-01-03/m);
});

test('--equity and --fills: the format follows the extension', () => {
  const eq = join(dir, 'equity.parquet');
  const fills = join(dir, 'fills.csv');
  const r = short('--equity', eq, '--fills', fills);
  assert.is(r.code, 0, r.stderr);
  assert.is(readFileSync(eq).subarray(0, 4).toString(), 'PAR1');
  assert.is(readFileSync(fills, 'utf8').split('\n')[0], FILLS_CSV_HEADER);
});

test('an output path that cannot be written fails before the run, naming the flag', () => {
  const missing = join(dir, 'no-such-dir', 'fills.csv');
  const r = short('--fills', missing, '--report', join(dir, 'r.html'));
  assert.is(r.code, 2);
  assert.ok(r.stderr.includes(`error: --fills ${missing}: directory ${join(dir, 'no-such-dir')} does not exist`), r.stderr);
  assert.not.match(r.stderr, 'backtest started');
  assert.not.ok(existsSync(join(dir, 'r.html')), 'nothing written');
  const d = short('--report', dir);
  assert.is(d.code, 2);
  assert.match(d.stderr, `--report ${dir}: is a directory`);
});

test('bad output flags are usage errors naming the flag', () => {
  let r = short('--fills', join(dir, 'fills.txt'));
  assert.is(r.code, 2);
  assert.match(r.stderr, '--fills');
  assert.match(r.stderr, '.csv or .parquet');
  r = short('--fills', '-', '--json');
  assert.is(r.code, 2);
  assert.match(r.stderr, '--fills - and --json all write to stdout');
});

test('request errors name the CLI flag typed, not the request field', () => {
  const r = runCli(['--backtest', '--config', config, '--start', '2024-01-06', '--end', '2024-01-07']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /^error: --end: no CME session between 2024-01-06 and 2024-01-07/m);
  assert.not.match(r.stderr, 'endDate');
});

test('--progress: JSON lines on stderr ending with every session done; without it nothing on a pipe', () => {
  const r = short('--progress');
  assert.is(r.code, 0, r.stderr);
  const lines = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('{"sessions_done"'))
    .map((l) => JSON.parse(l));
  assert.ok(lines.length >= 2, r.stderr);
  for (const l of lines) assert.equal(Object.keys(l), ['sessions_done', 'sessions_total', 'events', 'events_per_s', 'eta_s']);
  const last = lines[lines.length - 1];
  assert.is(last.sessions_done, 2);
  assert.is(last.sessions_total, 2);
  assert.is(last.eta_s, 0);
  const json = JSON.parse(short('--json').stdout);
  assert.is(last.events, json.events_processed);
  const quiet = short();
  assert.not.match(quiet.stderr, 'sessions_done');
  assert.not.match(quiet.stderr, '\r');
});

test('on a terminal the bar shows sessions, events/s and the ETA', () => {
  let out = '';
  const tty = Object.assign(Object.create(process.stderr), {
    isTTY: true,
    columns: 120,
    write: (s: string) => {
      out += s;
      return true;
    },
    cursorTo: () => true,
    clearLine: () => true,
    clearScreenDown: () => true,
    moveCursor: () => true,
  }) as NodeJS.WriteStream;
  let t = 0;
  const p = createProgress(false, tty, () => t);
  t = 2000;
  p.update(0.5, { sessionsDone: 1, sessionsTotal: 2, events: 1_000_000 });
  p.stop();
  assert.match(out, 'sessions 1/2');
  assert.match(out, '500,000 events/s');
  assert.match(out, 'ETA 2 s');
  const pipe = Object.assign(Object.create(process.stderr), { isTTY: false, write: () => assert.unreachable('wrote to a pipe') }) as NodeJS.WriteStream;
  const q = createProgress(false, pipe);
  q.update(0.5, { sessionsDone: 1, sessionsTotal: 2, events: 1 });
  q.stop();
});

test.run();
