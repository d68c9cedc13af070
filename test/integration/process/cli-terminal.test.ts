// The backtest CLI on a terminal: the progress bar, the log lines and the summary do not draw
// over each other; a multi-day run prints a table per session; a kill-switch stop says what to try.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { HeldLog } from '../../../src/cli/held-log.ts';
import { createProgress } from '../../../src/cli/progress.ts';
import { ENGINE, runCli, writeConfig } from '../../helpers/cli.ts';

const SHORT = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "09:50"
`);

test('on a terminal (a pty from script(1)) no log line lands inside the bar, and the summary follows the cleared bar', () => {
  const cmd = `${process.execPath} ${ENGINE} --backtest --config ${SHORT} --start 2024-01-02 --end 2024-01-03`;
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', env: { ...process.env, COLUMNS: '120' }, timeout: 120_000 });
  assert.is(r.status, 0, r.stderr);
  const out = r.stdout;
  const barStart = out.indexOf('backtest [');
  const barEnd = out.indexOf('\x1b[?25h', barStart); // the bar shows the cursor again when it stops
  assert.ok(barStart > 0 && barEnd > barStart, 'a bar was drawn and stopped');
  assert.not.ok(out.slice(barStart, barEnd).includes('{"level"'), `a log line inside the bar:\n${JSON.stringify(out.slice(barStart, barEnd))}`);
  // The log lines held meanwhile come after it, in order; the summary starts a clean line.
  const after = out.slice(barEnd);
  assert.ok(after.indexOf('"backtest started"') >= 0, 'the held line is written after the bar');
  assert.ok(after.includes('\x1b[2K{"level"'), 'the bar line is cleared first');
  assert.match(after, /\nBacktest ESH24 2024-01-02\.\.2024-01-03/, 'the summary starts a line of its own');
});

test('HeldLog: lines written while the bar is drawn wait and follow it in order, once it is cleared', () => {
  const out: string[] = [];
  const log = new HeldLog((t) => out.push(`log:${t}`));
  log.write('before\n');
  const p = createProgress(false, fakeTty(out), () => 0, log);
  log.write('one\n');
  p.update(0.5, { sessionsDone: 0, sessionsTotal: 1, events: 10 });
  log.write('two\n');
  assert.not.ok(
    out.some((s) => s.includes('one') || s.includes('two')),
    'held while the bar runs',
  );
  p.stop();
  assert.equal(out.slice(-1), ['log:one\ntwo\n'], 'released after the bar was cleared, in order');
  assert.is(out[0], 'log:before\n');
  log.write('three\n');
  assert.is(out[out.length - 1], 'log:three\n', 'lines pass again after the bar');
  // Bounded: past 10,000 held lines the rest are counted, not kept.
  log.hold();
  for (let i = 0; i < 10_005; i++) log.write('x\n');
  log.release();
  assert.match(out[out.length - 1], /5 more log lines were dropped/);
});

test('a multi-day run prints a row per session; one session prints none', () => {
  const r = runCli(['--backtest', '--config', SHORT, '--start', '2024-01-02', '--end', '2024-01-03']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {2}date +contract +events +fills +P&L +position +status$/m);
  assert.match(r.stdout, /^ {2}2024-01-02 +ESH24 +[\d,]+ +[\d,]+ +-?\$[\d,]+\.\d\d +-?\d+ +traded$/m);
  assert.match(r.stdout, /^ {2}2024-01-03 +ESH24 /m);
  const one = runCli(['--backtest', '--config', SHORT, '--start', '2024-01-02']);
  assert.not.match(one.stdout, /Sessions:/);
});

test('after a kill-switch stop one line says what to try, with the limit and the next date', () => {
  const tight = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "10:30"
[risk]
max_drawdown_pct = 0.002
`);
  const r = runCli(['--backtest', '--config', tight, '--start', '2024-01-02', '--end', '2024-01-03']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /STOPPED by the kill switch/);
  assert.match(
    r.stdout,
    /^To trade on: raise \[risk\] max_drawdown_pct \(now 0\.002\), or set \[risk\] enable_kill_switch = false to see the strategy unguarded, or run the later sessions on their own \(--start 2024-01-03\)\.$/m,
  );
  assert.match(r.stdout, /^ {2}2024-01-03 +ESH24 .* not traded$/m);
  const calm = runCli(['--backtest', '--config', SHORT, '--start', '2024-01-02']);
  assert.not.match(calm.stdout, /To trade on/);
});

function fakeTty(written: string[]): NodeJS.WriteStream {
  return Object.assign(Object.create(process.stderr), {
    isTTY: true,
    columns: 120,
    write: (s: string) => {
      written.push(String(s));
      return true;
    },
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
    on: () => undefined,
    removeListener: () => undefined,
  }) as NodeJS.WriteStream;
}

test.run();
