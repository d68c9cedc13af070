// --strategy-check through the CLI (issue 42, §5): the built-in and the example strategies pass;
// fixture strategies with one bug each (test/fixtures/strategies/) are caught by the check meant
// for it, reported, and exit 1. Sessions are capped at the first 100,000 events (--limit) to keep
// the file short; timings and allocations are printed by the check, never asserted here.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CheckReport } from '../../../src/strategy-check/check.ts';
import { ROOT, runCli, tempDir } from '../../helpers/cli.ts';

const EVENTS = '100000';
const FIXTURES = join(ROOT, 'test', 'fixtures', 'strategies');
const EXAMPLES = join(ROOT, 'examples', 'strategies');

function check(target: string, ...extra: string[]): { code: number; report: CheckReport; stderr: string } {
  const r = runCli(['--strategy-check', target, '--limit', EVENTS, '--json', ...extra]);
  let report: CheckReport;
  try {
    report = JSON.parse(r.stdout) as CheckReport;
  } catch {
    throw new Error(`exit ${r.code}, no JSON report on stdout:\n${r.stdout}\n${r.stderr}`);
  }
  return { code: r.code, report, stderr: r.stderr };
}

const verdict = (r: CheckReport, name: string) => {
  const v = r.verdicts.find((x) => x.check === name);
  if (!v) throw new Error(`no '${name}' verdict in ${JSON.stringify(r.verdicts)}`);
  return v;
};

/** A run's cost figures are measured, not judged: present and sane, never compared with a speed. */
function costIsMeasured(r: CheckReport): void {
  const c = r.cost!;
  assert.is(c.events, 100_000);
  for (const x of [c.cpuNsPerEvent, c.wallNsPerEvent]) assert.ok(Number.isFinite(x) && x > 0, `ns per event ${x}`);
  assert.ok(Number.isInteger(c.gcs) && c.gcs >= 0);
  assert.ok(c.allocatedBytesPerEvent >= 0 && c.quietShare >= 0 && c.quietShare <= 1);
}

test('the built-in market maker passes: reproducible, its quiet path and its promise hold', () => {
  const { code, report, stderr } = check('market_maker');
  assert.is(code, 0, stderr);
  assert.ok(report.pass);
  for (const name of ['determinism', 'quiet path', 'promise', 'clock and random'])
    assert.is(verdict(report, name).status, 'pass', `${name}: ${verdict(report, name).detail}`);
  // 3 sessions in one thread, then quiet path off and promise off; 1 in a fresh thread
  assert.equal(
    report.runs.thread.map((r) => r.mode),
    ['as-defined', 'as-defined', 'as-defined', 'quiet-off', 'promise-off'],
  );
  assert.is(report.runs.fresh.length, 1);
  const [a] = report.runs.thread;
  assert.ok(a.quietEvents > 0 && a.quietEvents < a.events, `quiet events ${a.quietEvents}`);
  assert.is(report.runs.thread[3].quietEvents, 0, 'the quiet path off takes no event quietly');
  assert.ok(a.fills > 0, 'it traded');
  costIsMeasured(report);
});

test('both example strategies pass, loaded from their files', () => {
  for (const file of ['imbalance-quoter.ts', 'breakout-taker.ts']) {
    const { code, report, stderr } = check(join(EXAMPLES, file));
    assert.is(code, 0, `${file}: ${stderr}\n${JSON.stringify(report.verdicts)}`);
    assert.is(verdict(report, 'determinism').status, 'pass');
    assert.is(verdict(report, 'clock and random').status, 'pass');
    // neither makes a standing promise: nothing to compare there
    assert.is(verdict(report, 'promise').status, 'n/a');
    assert.is(verdict(report, 'quiet path').status, 'n/a');
    assert.ok(report.runs.thread[0].fills > 0, `${file} traded`);
    assert.is(report.strategy.file, join(EXAMPLES, file));
    costIsMeasured(report);
  }
});

test('module-level state: the second session in a thread differs from the first, a fresh thread repeats the first; exit 1', () => {
  const { code, report } = check(join(FIXTURES, 'module-state.ts'));
  assert.is(code, 1);
  assert.not.ok(report.pass);
  const d = verdict(report, 'determinism');
  assert.is(d.status, 'fail');
  assert.match(d.detail, /keeps state from one session to the next/);
  const [a, b] = report.runs.thread;
  assert.is.not(a.hash, b.hash);
  assert.is(report.runs.fresh[0].hash, a.hash);
  assert.is(verdict(report, 'clock and random').status, 'pass', 'it reads no clock: only determinism catches it');
});

test('a false standing promise (stands() ignores the last trade quote() reads) is caught; exit 1', () => {
  const { code, report } = check(join(FIXTURES, 'false-promise.ts'));
  assert.is(code, 1);
  assert.is(verdict(report, 'determinism').status, 'pass', 'it is reproducible: only the promise is wrong');
  const p = verdict(report, 'promise');
  assert.is(p.status, 'fail');
  assert.match(p.detail, /its stands\(\) or bands\(\) said the decision stood/);
  const off = report.runs.thread.find((r) => r.mode === 'promise-off')!;
  const quietOff = report.runs.thread.find((r) => r.mode === 'quiet-off')!;
  assert.is.not(off.hash, quietOff.hash);
});

test('a promise whose bounds() outlast its stands() is caught by the quiet path off; its stands() passes; exit 1', () => {
  const { code, report } = check(join(FIXTURES, 'bounds-lie.ts'));
  assert.is(code, 1);
  assert.is(verdict(report, 'determinism').status, 'pass');
  const q = verdict(report, 'quiet path');
  assert.is(q.status, 'fail');
  assert.match(q.detail, /bounds\(\)/);
  assert.is(verdict(report, 'promise').status, 'pass');
  assert.ok(report.runs.thread[0].quietEvents > 0, 'the quiet path was taken');
});

test('Math.random in a callback: the results differ and the calls are counted; exit 1', () => {
  const { code, report } = check(join(FIXTURES, 'math-random.ts'));
  assert.is(code, 1);
  assert.is(verdict(report, 'determinism').status, 'fail');
  const c = verdict(report, 'clock and random');
  assert.is(c.status, 'fail');
  assert.match(c.detail, /Math\.random [\d,]+ times/);
  assert.match(c.detail, /ctx\.random\(\)/);
  for (const r of report.runs.thread) assert.ok(r.clockCalls['Math.random'] > 0 && r.clockCalls['Date.now'] === 0);
});

test('the human report names each check and what failed; --param sets a parameter', () => {
  const r = runCli(['--strategy-check', join(FIXTURES, 'module-state.ts'), '--limit', EVENTS, '--param', 'patience=5']);
  assert.is(r.code, 1);
  assert.match(r.stdout, /^Strategy check: module_state_quoter 1\.0\.0 \(sha256 [0-9a-f]{16}, .*module-state\.ts\)$/m);
  assert.match(r.stdout, /^ {2}parameters {8}patience=5$/m);
  assert.match(r.stdout, /^ {2}determinism {7}FAIL/m);
  assert.match(r.stdout, /^ {2}cost {14}[\d.]+ ns\/event CPU/m);
  assert.match(r.stdout, /^FAIL: determinism/m);
  const ok = runCli(['--strategy-check', 'market_maker', '--limit', '100000']);
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^PASS$/m);
});

test('a strategy that allocates at every event shows it in bytes per event (reported, not judged: it passes)', () => {
  const { code, report } = check(join(FIXTURES, 'allocating.ts'));
  assert.is(code, 0);
  // a new two-field object per event is at least 16 bytes; the check itself adds no per-event allocation
  assert.ok(report.cost!.allocatedBytesPerEvent >= 16, `${report.cost!.allocatedBytesPerEvent} B/event`);
});

test('a strategy that throws: the check says where (callback, session, exchange time) and exits 1', () => {
  const file = join(tempDir(), 'throws.mjs');
  writeFileSync(
    file,
    "export default { name: 'throwing_quoter', version: '1', description: 'throws', wakes: 'touch', params: {}, create: () => ({ quote() { throw new Error('boom'); } }) };\n",
  );
  const r = runCli(['--strategy-check', file, '--limit', EVENTS]);
  assert.is(r.code, 1, r.stderr);
  assert.match(
    r.stdout,
    /^ {2}error {13}session ES 2024-01-02: strategy throwing_quoter threw in quote\(\) at exchange time 2024-01-02T\S+Z \(\d+ ns after New York midnight\): boom$/m,
  );
  assert.match(r.stdout, /^FAIL: the strategy did not run$/m);
});

test('bad input: an unknown name or file exits 1 naming it, a bad parameter exits 2 naming the flag', () => {
  const name = runCli(['--strategy-check', 'no_such_strategy']);
  assert.is(name.code, 1);
  assert.match(name.stderr, /--strategy-check no_such_strategy: no strategy of that name is loaded \(loaded: .*market_maker/);
  const file = runCli(['--strategy-check', join(FIXTURES, 'missing.ts')]);
  assert.is(file.code, 1);
  assert.match(file.stderr, /missing\.ts: no such file/);
  const param = runCli(['--strategy-check', 'market_maker', '--param', 'spread_multiplier=-1']);
  assert.is(param.code, 2);
  assert.match(param.stderr, /--param spread_multiplier/);
  const events = runCli(['--strategy-check', 'market_maker', '--limit', '0']);
  assert.is(events.code, 2);
  assert.match(events.stderr, /--limit 0: expected a positive number of market events/);
  assert.match(runCli(['--param', 'x=1']).stderr, /--param only applies with --backtest/);
});

test.run();
