// The report's axes without a browser: ticks at nice values (whole numbers for contracts), the
// session-compressed time axis (a block per session, no night), New York time, the histogram.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { histogram, pnlByHour } from '../../../src/research/report/html-report.ts';
import { nyStamp, SessionAxis, tradeDate } from '../../../src/research/report/session-axis.ts';
import { niceTicks } from '../../../src/research/report/svg-chart.ts';

const isNice = (step: number) => {
  const m = step / 10 ** Math.floor(Math.log10(step));
  return [1, 2, 5, 10].some((x) => Math.abs(m - x) < 1e-9);
};

test('ticks at 1-2-5 steps covering the range; whole numbers for contracts', () => {
  for (const [lo, hi] of [
    [-61_100, -30_700],
    [0, 2.6954],
    [940_001.12, 1_000_000],
    [-1.3, 1.5],
    [5_201.25, 5_468.5],
  ]) {
    const t = niceTicks(lo, hi);
    const step = t[1] - t[0];
    assert.ok(isNice(Number(step.toPrecision(12))), `step ${step} for ${lo}..${hi}`);
    assert.ok(t[0] <= lo && t[t.length - 1] >= hi, `${t} covers ${lo}..${hi}`);
    assert.ok(t.length >= 3 && t.length <= 12, `${t.length} ticks`);
  }
  // Position 1.3 .. -1.5 read "1.5 and 1.3" before: whole contracts only.
  const pos = niceTicks(-1, 2, 5, true);
  assert.ok(pos.every(Number.isInteger), String(pos));
  assert.ok(niceTicks(0, 1, 5, true).every(Number.isInteger));
  assert.equal(niceTicks(0, 0.3, 3), [0, 0.1, 0.2, 0.3], 'no 0.30000000000000004');
});

test('the session axis: one block per trade date, the night left out, instants placed inside their block', () => {
  const at = (d: string, hm: string) => Date.parse(`${d}T${hm}:00-05:00`); // January: New York is UTC-5
  const instants = [
    at('2024-01-04', '09:30'),
    at('2024-01-04', '16:00'),
    at('2024-01-05', '09:30'),
    at('2024-01-05', '16:00'),
    at('2024-01-08', '09:30'),
    at('2024-01-08', '16:00'),
  ];
  const axis = new SessionAxis(instants);
  assert.equal(
    axis.blocks.map((b) => b.date),
    ['2024-01-04', '2024-01-05', '2024-01-08'],
  );
  const width = axis.blocks.reduce((n, b) => n + b.w, 0);
  assert.ok(width > 0.95, `sessions take ${width} of the axis (a continuous axis gave them about a quarter)`);
  assert.is(axis.pos(at('2024-01-04', '09:30')), 0);
  assert.ok(Math.abs(axis.pos(at('2024-01-08', '16:00')) - 1) < 1e-12);
  assert.ok(axis.pos(at('2024-01-05', '09:30')) > axis.pos(at('2024-01-04', '16:00')), 'the next session starts after a small break');
  assert.ok(axis.pos(at('2024-01-05', '09:30')) - axis.pos(at('2024-01-04', '16:00')) < 0.02, 'the night is not drawn');
  // Evening trading belongs to the next session (CME trade date).
  assert.is(tradeDate(at('2024-01-04', '18:30')), '2024-01-05');
  assert.is(tradeDate(at('2024-01-04', '17:59')), '2024-01-04');
});

test('New York time, labelled, for people', () => {
  assert.is(nyStamp(Date.parse('2024-01-02T19:49:03.867Z')), '2024-01-02 14:49:03 ET');
  assert.is(nyStamp(Date.parse('2024-07-02T13:30:00Z')), '2024-07-02 09:30:00 ET', 'daylight saving time');
});

test('P&L by hour sums the equity changes within sessions; the histogram counts every value once', () => {
  const at = (d: string, hm: string) => Date.parse(`${d}T${hm}:00-05:00`);
  const curve = [
    { t: at('2024-01-04', '09:30'), equity: 100 },
    { t: at('2024-01-04', '09:59'), equity: 90 },
    { t: at('2024-01-04', '10:30'), equity: 95 },
    { t: at('2024-01-05', '09:30'), equity: 1000 }, // the overnight jump is no hour's P&L
    { t: at('2024-01-05', '09:45'), equity: 1010 },
  ];
  assert.equal(
    [...pnlByHour(curve)],
    [
      [9, 0],
      [10, 5],
    ],
  );
  const values = [-160.5, -12, -9.99, -0.01, 3, 3, 40];
  const h = histogram(values);
  assert.is(
    h.reduce((n, [, c]) => n + c, 0),
    values.length,
  );
  const step = h[1][0] - h[0][0];
  assert.ok(isNice(step), `bin width ${step}`);
  assert.ok(h[0][0] <= -160.5);
  assert.equal(histogram([]), []);
});

test.run();
