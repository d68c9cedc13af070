// The CME calendar as a backtest request, the live clock and the CLI see it: holidays have no
// session, early closes shorten it, a month-coded symbol is refused past its last session, a
// root trades the front month of each date (equity index: rolls on the Thursday 8 days before
// the third Friday).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateBacktestRequest, sessionSpecs, type ResolvedRequest } from '../../../src/backtest/request.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { SimClock } from '../../../src/runtime/clock.ts';
import { runCli, writeConfig } from '../../helpers/cli.ts';

const config = parseConfig('[backtest]\nmax_days = 30\n', 'calendar.toml');
const H = 3600e9;
const at = (h: number, m = 0) => h * H + m * 60e9;

function resolve(body: Record<string, unknown>): ResolvedRequest {
  const v = validateBacktestRequest(body, config);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.request;
}

function refused(body: Record<string, unknown>): { field: string; message: string }[] {
  const v = validateBacktestRequest(body, config);
  assert.ok(!v.ok, `${JSON.stringify(body)} was accepted`);
  return v.ok ? [] : v.errors;
}

test('full holidays have no session: 2024-12-25 and 2024-07-04 are skipped', () => {
  assert.equal(resolve({ symbol: 'ES', startDate: '2024-12-23', endDate: '2024-12-27' }).dates, ['2024-12-23', '2024-12-24', '2024-12-26', '2024-12-27']);
  assert.equal(resolve({ symbol: 'ES', startDate: '2024-07-01', endDate: '2024-07-05' }).dates, ['2024-07-01', '2024-07-02', '2024-07-03', '2024-07-05']);
  // New Year's Day 2023 fell on a Sunday: observed on Monday 2023-01-02.
  assert.equal(resolve({ symbol: 'ES', startDate: '2022-12-30', endDate: '2023-01-03' }).dates, ['2022-12-30', '2023-01-03']);
});

test('a range with only holidays or weekends is a 400 naming the field', () => {
  for (const [startDate, endDate] of [
    ['2024-07-04', '2024-07-04'],
    ['2024-12-25', '2024-12-25'],
    ['2024-03-29', '2024-03-31'],
  ]) {
    const errors = refused({ symbol: 'ES', startDate, endDate });
    assert.equal(
      errors.map((e) => e.field),
      ['endDate'],
      JSON.stringify(errors),
    );
    assert.match(errors[0].message, /no CME session/);
  }
});

test('calendar errors come with the field errors, all in one answer', () => {
  // A weekend range and a bad maxDrawdown: both named at once, not the calendar only once the rest is fixed.
  const errors = refused({ symbol: 'ES', startDate: '2024-03-30', endDate: '2024-03-31', maxDrawdown: 6 });
  assert.equal(errors.map((e) => e.field).sort(), ['endDate', 'maxDrawdown'], JSON.stringify(errors));
  assert.match(errors.find((e) => e.field === 'endDate')!.message, /no CME session between 2024-03-30 and 2024-03-31 \(weekends have no session\)/);
  // A date the schema refused is not checked against the calendar a second time.
  assert.equal(
    refused({ symbol: 'ES', startDate: '2024-3-30', maxDrawdown: 6 })
      .map((e) => e.field)
      .sort(),
    ['maxDrawdown', 'startDate'],
  );
  // Nor is recorded data (its sessions come from the file), nor a body that is not an object.
  assert.equal(
    refused({ dataset: 'x', startDate: '2024-03-30', maxDrawdown: 6 }).map((e) => e.field),
    ['maxDrawdown'],
  );
  assert.equal(refused(null as never).length > 0, true);
});

test('early closes end the session at 13:00 ET; other days at the configured close', () => {
  const req = resolve({ symbol: 'ES', startDate: '2024-11-27', endDate: '2024-11-29' });
  const ends = new Map(sessionSpecs(req, config, false).map((s) => [s.date, s.sessionEndNs]));
  assert.equal(
    [...ends],
    [
      ['2024-11-27', at(16)],
      ['2024-11-29', at(13)],
    ],
  );
  for (const date of ['2024-12-24', '2024-07-03']) {
    const [spec] = sessionSpecs(resolve({ symbol: 'ES', startDate: date }), config, false);
    assert.is(spec.sessionEndNs, at(13), date);
    assert.is(spec.sessionStartNs, at(9, 30), date);
  }
});

test('an afternoon session has no session on an early-close day', () => {
  const afternoon = parseConfig('[simulation]\nsession_start = "13:30"\nsession_end = "16:00"\n', 'afternoon.toml');
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-11-27', endDate: '2024-12-02' }, afternoon);
  assert.equal(v.ok && v.request.dates, ['2024-11-27', '2024-12-02']);
  const only = validateBacktestRequest({ symbol: 'ES', startDate: '2024-11-29' }, afternoon);
  assert.match(only.ok ? 'accepted' : `${only.errors[0].field}: ${only.errors[0].message}`, /^startDate: .*2024-11-29 close early at 13:00 ET/);
  const clock = new SimClock('2024-11-27', at(13, 30), at(16), 1, 0);
  assert.equal(
    [0, 1].map((k) => clock.date(k)),
    ['2024-11-27', '2024-12-02'],
  );
});

test('ESH24 after its last session is a 400 naming the field and the last trading day', () => {
  let errors = refused({ symbol: 'ESH24', startDate: '2024-06-03' });
  assert.equal(
    errors.map((e) => e.field),
    ['startDate'],
  );
  assert.match(errors[0].message, /ESH24/);
  assert.match(errors[0].message, /2024-03-15/);
  errors = refused({ symbol: 'ESH24', startDate: '2024-03-01', endDate: '2024-06-03' });
  assert.equal(
    errors.map((e) => e.field),
    ['endDate'],
  );
  // Trading in ESH24 terminates at 09:30 ET on 2024-03-15, so its last regular session is the 14th.
  assert.equal(resolve({ symbol: 'ESH24', startDate: '2024-03-14' }).contracts, ['ESH24']);
  assert.equal(
    refused({ symbol: 'ESH24', startDate: '2024-03-15' }).map((e) => e.field),
    ['startDate'],
  );
  // A month-coded symbol means that contract only, even where it is not the front month.
  assert.equal(resolve({ symbol: 'ESM24', startDate: '2024-01-02' }).contracts, ['ESM24']);
});

test('a root trades the front month, rolling on the Thursday 8 days before expiry', () => {
  const req = resolve({ symbol: 'ES', startDate: '2024-03-06', endDate: '2024-03-15' });
  assert.equal(req.dates, ['2024-03-06', '2024-03-07', '2024-03-08', '2024-03-11', '2024-03-12', '2024-03-13', '2024-03-14', '2024-03-15']);
  assert.equal(req.contracts, ['ESH24', 'ESM24', 'ESM24', 'ESM24', 'ESM24', 'ESM24', 'ESM24', 'ESM24']);
  assert.equal(resolve({ symbol: 'ES', startDate: '2024-03-14' }).contracts, ['ESM24']);
  assert.equal(resolve({ symbol: 'ES', startDate: '2024-03-15' }).contracts, ['ESM24']);
  assert.equal(resolve({ symbol: 'CL', startDate: '2024-01-02' }).contracts, ['CLG24']);
  assert.equal(resolve({ symbol: 'GC', startDate: '2024-01-02' }).contracts, ['GCG24']);
});

test('the live clock skips holidays and shortens early closes', () => {
  const speed = 1000;
  const clock = new SimClock('2024-11-27', at(9, 30), at(16), speed, 0);
  assert.equal(
    [0, 1, 2].map((k) => clock.date(k)),
    ['2024-11-27', '2024-11-29', '2024-12-02'],
  );
  const b = clock.sessionBounds(1);
  assert.is(b.endNs - b.startNs, at(13) - at(9, 30));
  // Session 2 opens when the short session 1 has run its 3.5 h at `speed`.
  const wallOpen2 = clock.wallMsAt(clock.sessionBounds(2).startNs, 2);
  assert.is(wallOpen2, (at(16) - at(9, 30) + (at(13) - at(9, 30))) / 1e6 / speed);
  assert.is(clock.sessionIndex(wallOpen2 - 1), 1);
  assert.is(clock.sessionIndex(wallOpen2 + 1), 2);
  assert.is(clock.nowNs(wallOpen2 + 1), clock.sessionBounds(2).startNs + 1e6 * speed);
  const july = new SimClock('2024-07-03', at(9, 30), at(16), speed, 0);
  assert.equal(
    [0, 1].map((k) => july.date(k)),
    ['2024-07-03', '2024-07-05'],
  );
});

test('the live simulation refuses a configured contract that has expired by its start date, naming the key', () => {
  const issue = (toml: string, key: string) => {
    try {
      parseConfig(toml, 'live.toml');
    } catch (e) {
      return (e as Error).message.split('\n').find((l) => l.startsWith(`live.toml: ${key} = `)) ?? (e as Error).message;
    }
    return 'accepted';
  };
  assert.match(
    issue('[trading]\nsymbols = ["ESH24"]\n[simulation]\nstart_date = "2024-06-03"\nend_date = "2024-06-03"\n', 'trading.symbols[0]'),
    /ESH24.*2024-03-15.*last session is 2024-03-14/,
  );
  // Its last session: Friday 2024-03-15 is the last trading day, but ESH24 stops at 09:30 ET.
  assert.match(
    issue('[trading]\nsymbols = ["ESH24"]\n[simulation]\nstart_date = "2024-03-15"\nend_date = "2024-03-15"\n', 'trading.symbols[0]'),
    /last session is 2024-03-14/,
  );
  assert.is(issue('[trading]\nsymbols = ["ESH24"]\n[simulation]\nstart_date = "2024-03-14"\nend_date = "2024-03-14"\n', 'trading.symbols[0]'), 'accepted');
  assert.match(issue('[simulation]\nstart_date = "2040-01-03"\nend_date = "2040-01-03"\n', 'simulation.start_date'), /2015-2035/);
});

test('CLI: a month-coded symbol past its last session, or a holiday --start, exits 2 naming --start', () => {
  const cfg = writeConfig('[simulation]\nsession_start = "09:30"\nsession_end = "09:40"\n');
  let r = runCli(['--backtest', '--config', cfg, '--symbol', 'ESH24', '--start', '2024-06-03']);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /--start.*ESH24.*2024-03-15/);
  r = runCli(['--backtest', '--config', cfg, '--symbol', 'ES', '--start', '2024-12-25']);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /--start.*no CME session.*2024-12-25 Christmas Day/);
});

test.run();
