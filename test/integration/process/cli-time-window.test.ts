// --from/--to: a time window within the session for --backtest and --export-dbn, instead of a
// copied config with other session hours; outside the session it is an error naming the flag.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DbnReader } from '../../../src/data/dbn/index.ts';
import { runCli, tempDir, writeConfig } from '../../helpers/cli.ts';

const CONFIG = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "16:00"
`);
// 2024-01-02 is EST: New York 09:45 is 14:45 UTC.
const utcNs = (hhmm: string) => BigInt(Date.parse(`2024-01-02T${hhmm}:00Z`)) * 1_000_000n;

function eventTimes(file: string): { first: bigint; last: bigint; n: number } {
  const r = DbnReader.open(file);
  let first = -1n;
  let last = -1n;
  let n = 0;
  try {
    for (const rec of r.records()) {
      const ts = rec.hd.ts_event;
      if (first < 0n) first = ts;
      last = ts;
      n++;
    }
  } finally {
    r.close();
  }
  return { first, last, n };
}

test('--export-dbn --from 09:45 --to 09:50 writes only that window', () => {
  const out = join(tempDir(), 'w.dbn.zst');
  const r = runCli(['--export-dbn', out, '--config', CONFIG, '--start', '2024-01-02', '--from', '09:45', '--to', '09:50']);
  assert.is(r.code, 0, r.stderr);
  const t = eventTimes(out);
  assert.ok(t.n > 1000, `records: ${t.n}`);
  assert.ok(t.first >= utcNs('14:45'), `first ${t.first}`);
  assert.ok(t.last <= utcNs('14:50'), `last ${t.last}`);
  assert.ok(t.last > utcNs('14:49'), 'the window is filled to its end');
});

test('--backtest --to 09:40: the same run as a config ending the session at 09:40; fills inside the window', () => {
  const dir = tempDir();
  const a = runCli(['--backtest', '--config', CONFIG, '--start', '2024-01-02', '--to', '09:40', '--json', '--fills', join(dir, 'a.csv')]);
  const cut = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "09:40"
`);
  const b = runCli(['--backtest', '--config', cut, '--start', '2024-01-02', '--json']);
  assert.is(a.code, 0, a.stderr);
  assert.is(b.code, 0, b.stderr);
  assert.equal(JSON.parse(a.stdout), JSON.parse(b.stdout));
  const ns = readFileSync(join(dir, 'a.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => BigInt(l.split(',')[9]));
  assert.ok(ns.length > 0);
  for (const t of ns) assert.ok(t >= utcNs('14:30') && t <= utcNs('14:40'), String(t));
});

test('a window outside the session, reversed or malformed is an error naming the flag', () => {
  const cases: [string[], RegExp][] = [
    [['--from', '08:00'], /^error: --from 08:00: outside the session 09:30\.\.16:00 \(\[simulation\] session_start\.\.session_end\)/m],
    [['--to', '17:00'], /^error: --to 17:00: outside the session 09:30\.\.16:00/m],
    [['--from', '10:00', '--to', '09:45'], /^error: --to 09:45 is not after --from 10:00/m],
    [['--from', '9:30'], /--from "9:30": expected a time HH:MM/],
    [['--to', '10:00', '--data', '/nonexistent'], /--to applies to the synthetic market: with --data/],
  ];
  for (const [flags, want] of cases) {
    const r = runCli(['--backtest', '--config', CONFIG, '--start', '2024-01-02', ...flags]);
    assert.is(r.code, 2, flags.join(' '));
    assert.match(r.stderr, want);
  }
  const e = runCli(['--export-dbn', '/tmp/never.dbn.zst', '--config', CONFIG, '--to', '16:30']);
  assert.is(e.code, 2);
  assert.match(e.stderr, /error: --to 16:30: outside the session/);
});

test.run();
