// The race for a new price level: when the spread widens, fast participants fill the level
// that opened within tens of microseconds, so an order reacting through 150 µs of latency rarely
// finds it empty (issue: 89 % of the ML strategy's fills came from winning that race).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DenseBook } from '../../../src/book/dense-book.ts';
import { EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, EV_TS } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { MarketGenerator } from '../../../src/market/generator.ts';
import { CONTRACTS } from '../../../src/market/instruments.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const OPEN = 9.5 * 3600e9;

/** One-tick gaps of an hour of ES: how long each lasted (ns) and the time share of a one-tick spread. */
function gaps(profile: Record<string, number> = {}): { durations: number[]; oneTick: number } {
  const g = new MarketGenerator(CONTRACTS.ES, '2024-01-02', 42, { sessionStartNs: OPEN, sessionEndNs: OPEN + 3600e9, profile });
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 14, false);
  const book = new DenseBook(4096);
  const durations: number[] = [];
  let gapStart = -1,
    last = OPEN,
    oneTick = 0,
    total = 0;
  while (!g.done) {
    ring.release();
    const n = g.generate(ring, 4096);
    for (let i = 0; i < n; i++) {
      const o = ring.peek(),
        d = ring.data,
        ts = d[o + EV_TS];
      if (ts > OPEN) {
        total += ts - last;
        if (book.bestAsk - book.bestBid === 1) oneTick += ts - last;
      }
      last = ts;
      book.apply(d[o + EV_KIND], d[o + EV_SIDE], d[o + EV_PRICE], d[o + EV_QTY]);
      const gap = book.bestAsk - book.bestBid > 1;
      if (ts > OPEN && gap && gapStart < 0) gapStart = ts;
      else if (!gap && gapStart >= 0) {
        durations.push(ts - gapStart);
        gapStart = -1;
      }
      ring.advance();
    }
  }
  return { durations: durations.sort((a, b) => a - b), oneTick: oneTick / total };
}

test('a widened spread is raced: the median gap closes within 100 µs, and the spread is one tick over 99 % of the time', () => {
  const raced = gaps();
  const median = raced.durations[raced.durations.length >> 1];
  assert.ok(raced.durations.length > 1000, `${raced.durations.length} gaps`);
  assert.ok(median < 100e3, `median gap ${median / 1e3} µs`);
  assert.ok(raced.oneTick >= 0.99 && raced.oneTick < 0.9995, `one-tick share ${raced.oneTick}`);
  // Some gaps still wait for the slower flow: the race is not won every time.
  assert.ok(raced.durations[Math.floor(raced.durations.length * 0.99)] > 1e6, 'the slowest 1 % last over a millisecond');
  // Without the race the same market's gaps last close to a millisecond (its bursts of activity
  // alone close some fast; without them too, over 2 ms): dozens of times longer.
  const slow = gaps({ raceProb: 0 });
  const slowMedian = slow.durations[slow.durations.length >> 1];
  assert.ok(slowMedian > 500e3 && slowMedian > 20 * median, `the race is what closes gaps fast: median ${slowMedian / 1e3} µs without it`);
});

test('the ML strategy no longer earns mostly from winning races for empty levels', async () => {
  const c = shippedConfigNoModel();
  c.simulation.session_start = '09:30';
  c.simulation.session_end = '10:30';
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-02', useML: true, seed: 42 }, c);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const r = (await runBacktest(v.request, c)).result;
  assert.ok(r.total_fills > 50, `${r.total_fills} fills`);
  const share = r.zero_ahead_fills / r.total_fills;
  assert.ok(share < 0.35, `${r.zero_ahead_fills} of ${r.total_fills} fills joined an empty level (${(share * 100).toFixed(1)} %)`);
});

test.run();
