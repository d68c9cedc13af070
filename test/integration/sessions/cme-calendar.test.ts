// The holiday rules and contract rules against published dates: NYSE holiday and early-close
// schedules (2020-2025), and the CME last trading days of contracts that have expired.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBacktest } from '../../../src/backtest/run.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { fillsCsv } from '../../../src/research/fills-csv.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { cmeHolidays, earlyCloses } from '../../../src/market/cme-holidays.ts';
import { frontMonth, lastTradingDay } from '../../../src/market/contract-calendar.ts';
import { parseSymbol } from '../../../src/market/instruments.ts';

const holidayDates = (y: number) => cmeHolidays(y).map((h) => h.date);

test('holidays match the published NYSE schedules', () => {
  assert.equal(holidayDates(2024), [
    '2024-01-01',
    '2024-01-15',
    '2024-02-19',
    '2024-03-29',
    '2024-05-27',
    '2024-06-19',
    '2024-07-04',
    '2024-09-02',
    '2024-11-28',
    '2024-12-25',
  ]);
  assert.equal(holidayDates(2025), [
    '2025-01-01',
    '2025-01-09',
    '2025-01-20',
    '2025-02-17',
    '2025-04-18',
    '2025-05-26',
    '2025-06-19',
    '2025-07-04',
    '2025-09-01',
    '2025-11-27',
    '2025-12-25',
  ]);
  // Saturday New Year's Day 2022 is not observed (Friday 2021-12-31 trades); Juneteenth from 2022.
  assert.equal(holidayDates(2021), [
    '2021-01-01',
    '2021-01-18',
    '2021-02-15',
    '2021-04-02',
    '2021-05-31',
    '2021-07-05',
    '2021-09-06',
    '2021-11-25',
    '2021-12-24',
  ]);
  assert.equal(holidayDates(2022), [
    '2022-01-17',
    '2022-02-21',
    '2022-04-15',
    '2022-05-30',
    '2022-06-20',
    '2022-07-04',
    '2022-09-05',
    '2022-11-24',
    '2022-12-26',
  ]);
  assert.is(cmeHolidays(2018).find((h) => h.date === '2018-12-05')?.name, 'National Day of Mourning (George H. W. Bush)');
});

test('early closes: day after Thanksgiving, July 3 and December 24 on Monday to Thursday', () => {
  assert.equal(earlyCloses(2024), ['2024-07-03', '2024-11-29', '2024-12-24']);
  assert.equal(earlyCloses(2025), ['2025-07-03', '2025-11-28', '2025-12-24']);
  assert.equal(earlyCloses(2023), ['2023-07-03', '2023-11-24']); // Dec 24 was a Sunday
  assert.equal(earlyCloses(2020), ['2020-11-27', '2020-12-24']); // July 3 was the observed holiday
});

test('years outside the calendar are an error naming the years covered', () => {
  assert.throws(() => cmeHolidays(2014), /2015-2035/);
  assert.throws(() => cmeHolidays(2036), /2015-2035/);
});

test('last trading days of expired contracts (CME)', () => {
  const ltd = (s: string) => lastTradingDay(parseSymbol(s));
  assert.is(ltd('ESH24'), '2024-03-15');
  assert.is(ltd('ESM24'), '2024-06-21');
  assert.is(ltd('NQZ24'), '2024-12-20');
  assert.is(ltd('CLG24'), '2024-01-22'); // Jan 25 a Thursday: 3 business days before
  assert.is(ltd('CLF24'), '2023-12-19'); // Dec 25 a holiday: 4 business days before
  assert.is(ltd('CLH24'), '2024-02-20'); // Feb 25 a Sunday, Feb 19 Presidents' Day
  assert.is(ltd('CLK24'), '2024-04-22');
  assert.is(ltd('GCG24'), '2024-02-27');
  assert.is(ltd('GCJ24'), '2024-04-26');
});

test('front month: equity index rolls on the Thursday 8 days before expiry, CL on its last day, GC at first notice', () => {
  const front = (root: string, d: string) => frontMonth(root, d).symbol;
  assert.is(front('ES', '2024-06-12'), 'ESM24');
  assert.is(front('ES', '2024-06-13'), 'ESU24');
  assert.is(front('MNQ', '2024-12-11'), 'MNQZ24');
  assert.is(front('MNQ', '2024-12-12'), 'MNQH25');
  assert.is(front('CL', '2024-01-19'), 'CLG24');
  assert.is(front('CL', '2024-01-22'), 'CLH24');
  assert.is(front('GC', '2024-01-30'), 'GCG24');
  assert.is(front('GC', '2024-01-31'), 'GCJ24');
});

test('across a roll, each session result and each fill names the contract traded that day', async () => {
  const config = parseConfig('[simulation]\nsession_start = "09:30"\nsession_end = "09:40"\n', 'roll.toml');
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-03-06', endDate: '2024-03-07' }, config);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const run = await runBacktest(v.request, config, { collectFills: true });
  assert.equal(
    run.result.session_results.map((s) => [s.date, s.contract]),
    [
      ['2024-03-06', 'ESH24'],
      ['2024-03-07', 'ESM24'],
    ],
  );
  assert.equal(run.result.contracts, ['ESH24', 'ESM24']);
  const rows = fillsCsv(v.request, run.sessions)
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));
  assert.ok(rows.length > 0, 'the sessions filled');
  for (const [, date, symbol] of rows) assert.is(symbol, date === '2024-03-06' ? 'ESH24' : 'ESM24', date);
});

test.run();
