// Prints the stylized-fact table (docs/synthetic-market.md) of the synthetic ES market: a full session on the
// market-generator test's date with seed 42, and the range over seeds 1-7 in brackets.
//   node --import tsx scripts/stylized-facts.ts
import { DenseBook } from '../src/book/dense-book.ts';
import { EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, EV_TS } from '../src/core/events.ts';
import { RecordRing } from '../src/core/ring.ts';
import { parseClock } from '../src/market/calendar.ts';
import { MarketGenerator } from '../src/market/generator.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { MarketStats } from '../test/helpers/market-stats.ts';

const DATE = '2024-03-15';
const OPEN = parseClock('09:30')!;
const CLOSE = parseClock('16:00')!;

type Facts = Record<string, number>;

function facts(seed: number): Facts {
  const gen = new MarketGenerator(contractForRoot('ES'), DATE, seed, { sessionStartNs: OPEN, sessionEndNs: CLOSE });
  const ring = RecordRing.allocate(EV_STRIDE, 8192, false);
  const stats = new MarketStats(OPEN);
  const book = new DenseBook(4096);
  const gaps: number[] = [];
  let gapStart = -1;
  while (!gen.done) {
    ring.release();
    const n = gen.generate(ring, 4096);
    for (let i = 0; i < n; i++) {
      const o = ring.peek(), d = ring.data, ts = d[o + EV_TS];
      stats.onEvent(ts, d[o + EV_KIND], d[o + EV_SIDE], d[o + EV_PRICE], d[o + EV_QTY]);
      book.apply(d[o + EV_KIND], d[o + EV_SIDE], d[o + EV_PRICE], d[o + EV_QTY]);
      const gap = ts > OPEN && book.bestAsk - book.bestBid > 1;
      if (gap && gapStart < 0) gapStart = ts;
      else if (!gap && gapStart >= 0) {
        gaps.push(ts - gapStart);
        gapStart = -1;
      }
      ring.advance();
    }
  }
  const s = stats.summary();
  gaps.sort((a, b) => a - b);
  return {
    oneTick: s.oneTickSpreadFraction * 100,
    gapMedianUs: gaps[gaps.length >> 1] / 1e3,
    gapP99Ms: gaps[Math.floor(gaps.length * 0.99)] / 1e6,
    queue: s.meanBestQueue,
    range: s.rangeFraction * 100,
    vol: s.annualisedVol * 100,
    acf: s.absReturnAcf.reduce((a: number, b: number) => a + b, 0) / s.absReturnAcf.length,
    open: s.openActivityRatio,
    ofi: s.ofiNextCorr,
    events: s.events / 1e6,
  };
}

const rows: [string, string, (f: Facts) => number, number][] = [
  ['spread = 1 tick, time-weighted', '%', (f) => f.oneTick, 2],
  ['one-tick gap duration, median', 'µs', (f) => f.gapMedianUs, 1],
  ['one-tick gap duration, 99th percentile', 'ms', (f) => f.gapP99Ms, 1],
  ['mean best-level queue', 'contracts', (f) => f.queue, 0],
  ['daily high–low range', '%', (f) => f.range, 2],
  ['annualised vol of 1-min mid returns', '%', (f) => f.vol, 1],
  ['ACF of \\|1-min returns\\|, lags 1–5', '', (f) => f.acf, 2],
  ['events/min, first 30 min vs 12:00–14:00', '×', (f) => f.open, 1],
  ['corr(OFI over 1 s, next 1 s mid change)', '', (f) => f.ofi, 2],
  ['events per session', 'M', (f) => f.events, 1],
];

const main = facts(42);
const others = [1, 2, 3, 4, 5, 6, 7].map(facts);
const fmt = (x: number, d: number) => x.toFixed(d);
console.log('| stylized fact | measured |\n|---|---|');
for (const [name, unit, get, d] of rows) {
  const v = others.map(get);
  const u = unit === '%' || unit === '×' ? unit : unit ? ` ${unit}` : '';
  console.log(`| ${name} | ${fmt(get(main), d)}${u} (${fmt(Math.min(...v), d)}–${fmt(Math.max(...v), d)}${u}) |`);
}
