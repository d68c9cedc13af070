// MarketGenerator: the synthetic market's stylized facts (docs/synthetic-market.md), measured from the
// outside on its event stream with MarketStats (own DenseBook), plus stream invariants,
// determinism, consumer-book equality and the allocation-free hot path.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { measureAllocation } from '../../helpers/allocation.ts';
import { ASK, BID, EV_KIND, EV_PRICE, EV_QTY, EV_RECV, EV_SIDE, EV_STRIDE, EV_TS, MD_ADD, MD_TRADE } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { DenseBook } from '../../../src/book/dense-book.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { parseClock } from '../../../src/market/calendar.ts';
import { MAX_DEPTH, MarketGenerator } from '../../../src/market/generator.ts';
import { MarketStats, type MarketStatsSummary } from '../../../src/market/facts/market-stats.ts';

const OPEN = parseClock('09:30')!;
const CLOSE = parseClock('16:00')!;
const DATE = '2024-03-15';
const SEED = 42;
const BATCH = 4096;

const ES = contractForRoot('ES');

/** FNV-1a over the raw bytes of every record (as 32-bit words): a byte-for-byte stream hash. */
class StreamHash {
  h = 0x811c9dc5;
  n = 0;
  add(ring: RecordRing, off: number): void {
    const words = new Uint32Array(ring.data.buffer, off * 8, EV_STRIDE * 2);
    let h = this.h;
    for (let i = 0; i < words.length; i++) {
      h ^= words[i];
      h = Math.imul(h, 0x01000193);
    }
    this.h = h >>> 0;
    this.n++;
  }
}

/** Every level of two books within the generator's depth of the touch, and their touch. */
function assertSameBook(a: DenseBook, b: DenseBook, where: string): void {
  assert.is(a.bestBid, b.bestBid, `${where}: best bid`);
  assert.is(a.bestAsk, b.bestAsk, `${where}: best ask`);
  assert.is(a.bidLevels, b.bidLevels, `${where}: bid levels`);
  assert.is(a.askLevels, b.askLevels, `${where}: ask levels`);
  for (let p = a.bestBid - MAX_DEPTH - 8; p <= a.bestAsk + MAX_DEPTH + 8; p++) {
    if (a.size(BID, p) !== b.size(BID, p) || a.size(ASK, p) !== b.size(ASK, p)) {
      assert.unreachable(`${where}: level ${p} differs: bid ${a.size(BID, p)} vs ${b.size(BID, p)}, ask ${a.size(ASK, p)} vs ${b.size(ASK, p)}`);
    }
  }
}

interface SessionRun {
  gen: MarketGenerator;
  stats: MarketStatsSummary;
  hash: number;
  events: number;
  checkpoints: number;
  recvMismatch: number;
  firstEvents: number[][];
}

/** Generates a session, feeding every event to a MarketStats consumer; checks books en route. */
function runSession(root: string, date: string, seed: number, start: number, end: number, checkEvery = 1_500_000): SessionRun {
  const gen = new MarketGenerator(contractForRoot(root), date, seed, { sessionStartNs: start, sessionEndNs: end });
  const ring = RecordRing.allocate(EV_STRIDE, 8192, false);
  const stats = new MarketStats(start);
  const hash = new StreamHash();
  let nextCheck = checkEvery;
  let checkpoints = 0;
  let recvMismatch = 0;
  const firstEvents: number[][] = [];
  const d = ring.data;
  for (;;) {
    const n = gen.generate(ring, BATCH);
    if (n === 0) break;
    for (let i = 0; i < n; i++) {
      const off = ring.peek();
      if (d[off + EV_RECV] !== d[off + EV_TS]) recvMismatch++;
      if (firstEvents.length < 200) firstEvents.push([d[off + EV_TS], d[off + EV_KIND], d[off + EV_SIDE], d[off + EV_PRICE], d[off + EV_QTY]]);
      stats.onEvent(d[off + EV_TS], d[off + EV_KIND], d[off + EV_SIDE], d[off + EV_PRICE], d[off + EV_QTY]);
      hash.add(ring, off);
      ring.advance(1);
    }
    ring.release();
    if (hash.n >= nextCheck) {
      assertSameBook(gen.book, stats.book, `${root} after ${hash.n} events`);
      checkpoints++;
      nextCheck += checkEvery;
    }
  }
  assertSameBook(gen.book, stats.book, `${root} at the session end`);
  checkpoints++;
  return { gen, stats: stats.summary(), hash: hash.h, events: hash.n, checkpoints, recvMismatch, firstEvents };
}

/** Hash of a generated stream without any consumer work. */
function streamHash(root: string, date: string, seed: number, start: number, end: number, activity = 1): { hash: number; events: number } {
  const gen = new MarketGenerator(contractForRoot(root), date, seed, { sessionStartNs: start, sessionEndNs: end, activity });
  const ring = RecordRing.allocate(EV_STRIDE, 8192, false);
  const hash = new StreamHash();
  for (;;) {
    const n = gen.generate(ring, BATCH);
    if (n === 0) break;
    for (let i = 0; i < n; i++) {
      hash.add(ring, ring.peek());
      ring.advance(1);
    }
    ring.release();
  }
  assert.is(hash.n, gen.eventsGenerated);
  return { hash: hash.h, events: hash.n };
}

// ---- the hot path allocates nothing (first, before the big session fills the heap) ----

test('a million events allocate nothing: no scavenge, flat heap', async () => {
  const gen = new MarketGenerator(ES, DATE, 7, { sessionStartNs: OPEN, sessionEndNs: CLOSE });
  const ring = RecordRing.allocate(EV_STRIDE, BATCH, false);
  const pump = (events: number): number => {
    let total = 0;
    while (total < events) {
      const n = gen.generate(ring, BATCH);
      ring.advance(n);
      ring.release();
      total += n;
    }
    return total;
  };
  pump(600_000); // warm-up: JIT tiers, field representations
  await new Promise((r) => setTimeout(r, 20));
  // Scavenges (minor GCs) are what allocation in the loop would cause; a major GC finishing
  // work started by earlier tests (other files share the process) is not counted.
  let done = 0;
  const { scavenges, heapGrowth } = await measureAllocation(() => {
    done = pump(1_000_000);
  });
  assert.ok(done >= 1_000_000);
  assert.ok(!gen.done, 'the session must still be running');
  assert.is(scavenges, 0, `scavenges during 1M events: ${scavenges}`);
  // 1 MiB, as the other components' tests: optimised code and feedback land in the heap too, and
  // how much depends on what the whole suite loaded before (~300 KB seen). Allocating per event
  // would show in the scavenge count first (1M events x even 16 bytes is several new spaces).
  assert.ok(heapGrowth < 1 << 20, `heap grew by ${heapGrowth} bytes over 1M events`);
});

// ---- one full ES session, shared by the stylized-fact tests ----

let es: SessionRun | null = null;
const session = (): SessionRun => (es ??= runSession('ES', DATE, SEED, OPEN, CLOSE));

test('ES session: event count and rate in the budget', () => {
  const { stats, events, gen } = session();
  assert.is(events, gen.eventsGenerated);
  assert.ok(gen.done);
  assert.ok(events >= 2_000_000 && events <= 15_000_000, `events per session ${events}`);
  assert.ok(stats.eventsPerSecond >= 100 && stats.eventsPerSecond <= 650, `events/s ${stats.eventsPerSecond}`);
  assert.ok(stats.trades > 100_000, `trades ${stats.trades}`);
});

test('ES stream invariants: tick grid, positive sizes, never crossed, bounded depth', () => {
  const { stats, recvMismatch } = session();
  assert.is(stats.badFields, 0, 'non-integer/negative fields or removal of more than rests');
  assert.is(stats.crossed, 0, 'crossed or one-sided book');
  assert.is(stats.nonMonotonicTs, 0, 'timestamps went backwards');
  assert.is(recvMismatch, 0, 'EV_RECV must equal EV_TS');
  assert.ok(stats.minLevels >= 20, `min levels per side ${stats.minLevels}`);
  assert.ok(stats.maxLevelDistance <= MAX_DEPTH, `a level rested ${stats.maxLevelDistance} ticks from the touch`);
  assert.is(stats.sweepContinuations > 0, true, 'market orders must sometimes walk several levels');
});

test('ES initial book comes from the stream: MD_ADDs at the session start', () => {
  const { firstEvents, gen } = session();
  const snapshot = firstEvents.filter((e) => e[0] === OPEN);
  assert.is(snapshot.length, 2 * (MAX_DEPTH + 1));
  assert.ok(snapshot.every((e) => e[1] === MD_ADD && e[4] > 0));
  const book = new DenseBook(1024);
  for (const e of snapshot) book.apply(e[1], e[2], e[3], e[4]);
  assert.is(book.bestBid, gen.startPriceTicks);
  assert.is(book.bestAsk, gen.startPriceTicks + 1);
  assert.is(book.bidLevels, MAX_DEPTH + 1);
  assert.ok(firstEvents[snapshot.length][0] > OPEN, 'flow starts after the snapshot');
  const price = gen.startPriceTicks * ES.tickSize;
  assert.ok(price >= ES.typicalLow && price <= ES.typicalHigh, `start price ${price}`);
});

test('ES consumer book equals the generator book at checkpoints and the end', () => {
  const { checkpoints } = session();
  assert.ok(checkpoints >= 4, `checkpoints ${checkpoints}`);
});

test('ES spread is one tick >= 90% of the time', () => {
  const { stats } = session();
  assert.ok(stats.oneTickSpreadFraction >= 0.9, `one-tick fraction ${stats.oneTickSpreadFraction}`);
  assert.ok(stats.oneTickSpreadFraction < 1, 'the spread must sometimes open up');
});

test('ES best queues hold hundreds of contracts', () => {
  const { stats } = session();
  assert.ok(stats.meanBestQueue >= 100 && stats.meanBestQueue <= 600, `mean best queue ${stats.meanBestQueue}`);
});

test('ES mid moves: daily range and annualised volatility in a realistic band', () => {
  const { stats } = session();
  assert.ok(stats.rangeFraction >= 0.004 && stats.rangeFraction <= 0.03, `range ${stats.rangeFraction}`);
  assert.ok(stats.annualisedVol >= 0.08 && stats.annualisedVol <= 0.4, `annualised vol ${stats.annualisedVol}`);
});

test('ES volatility clustering and U-shaped activity', () => {
  const { stats } = session();
  const acf = stats.absReturnAcf.reduce((a, b) => a + b, 0) / stats.absReturnAcf.length;
  assert.ok(acf > 0.05, `mean ACF of |1-min returns| at lags 1..5: ${acf}`);
  assert.ok(stats.openActivityRatio > 1.3, `first 30 min / 12:00-14:00 events per minute ${stats.openActivityRatio}`);
  assert.ok(stats.closeActivityRatio > 1.3, `last 30 min / 12:00-14:00 events per minute ${stats.closeActivityRatio}`);
});

test('ES informed flow: OFI predicts the next mid change; passive fills are adversely selected', () => {
  const { stats } = session();
  assert.ok(stats.ofiNextCorr > 0.1, `corr(OFI 1s, next 1s mid change) ${stats.ofiNextCorr}`);
  assert.ok(stats.ofiSameCorr > stats.ofiNextCorr, 'contemporaneous OFI explains more');
  const [m100ms, m1s, m10s] = stats.markoutTicks;
  assert.ok(m100ms > 0 && m1s > 0 && m10s > 0, `markouts ${stats.markoutTicks}`);
  assert.ok(m1s > m100ms, 'adverse selection builds up after the trade');
  assert.ok(m10s < 3, `markout at 10 s ${m10s} ticks: informed, not a one-way street`);
});

// ---- determinism ----

test('determinism: same (root, date, seed) gives the same stream byte for byte', () => {
  const a = session();
  const b = streamHash('ES', DATE, SEED, OPEN, CLOSE);
  assert.is(b.events, a.events);
  assert.is(b.hash, a.hash);
});

test('determinism: another seed or date gives another stream', () => {
  const end = OPEN + 10 * 60e9;
  const base = streamHash('ES', DATE, SEED, OPEN, end);
  assert.equal(streamHash('ES', DATE, SEED, OPEN, end), base);
  assert.is.not(streamHash('ES', DATE, SEED + 1, OPEN, end).hash, base.hash);
  assert.is.not(streamHash('ES', '2024-03-18', SEED, OPEN, end).hash, base.hash);
  const g1 = new MarketGenerator(ES, DATE, SEED, { sessionStartNs: OPEN, sessionEndNs: end });
  const g2 = new MarketGenerator(ES, DATE, SEED, { sessionStartNs: OPEN, sessionEndNs: end });
  assert.is(g1.startPriceTicks, g2.startPriceTicks);
});

test('activity option scales the order flow', () => {
  const end = OPEN + 20 * 60e9;
  const one = streamHash('ES', DATE, 5, OPEN, end, 1).events;
  const two = streamHash('ES', DATE, 5, OPEN, end, 2).events;
  const ratio = two / one;
  assert.ok(ratio > 1.5 && ratio < 2.5, `events at activity 2 / activity 1 = ${ratio}`);
});

// ---- API behaviour ----

test('small batches: exactly maxEvents per call, the book always matches the stream', () => {
  const gen = new MarketGenerator(ES, DATE, 3, { sessionStartNs: OPEN, sessionEndNs: OPEN + 60e9 });
  const ring = RecordRing.allocate(EV_STRIDE, 64, false);
  const consumer = new DenseBook(256);
  const d = ring.data;
  let calls = 0;
  let lastTs = 0;
  for (;;) {
    const want = 1 + (calls % 5);
    const n = gen.generate(ring, want);
    if (n === 0) break;
    assert.ok(n === want || gen.done, `returned ${n} of ${want} before the end`);
    for (let i = 0; i < n; i++) {
      const off = ring.peek();
      assert.ok(d[off + EV_TS] >= lastTs);
      lastTs = d[off + EV_TS];
      assert.ok(lastTs < OPEN + 60e9, 'an event at or after the session end');
      consumer.apply(d[off + EV_KIND], d[off + EV_SIDE], d[off + EV_PRICE], d[off + EV_QTY]);
      ring.advance(1);
    }
    ring.release();
    if (calls++ % 97 === 0) assertSameBook(gen.book, consumer, `after call ${calls}`);
  }
  assert.ok(gen.done);
  assert.is(gen.generate(ring, 10), 0, 'nothing after the session end');
  assert.ok(gen.eventsGenerated > 1000, `events in one minute ${gen.eventsGenerated}`);
  assertSameBook(gen.book, consumer, 'at the end');
  assert.throws(() => gen.generate(RecordRing.allocate(4, 64, false), 1), /stride/);
  assert.throws(() => new MarketGenerator(ES, DATE, 1, { sessionStartNs: OPEN, sessionEndNs: OPEN }), /after its start/);
});

// ---- other roots ----

for (const root of ['NQ', 'CL']) {
  test(`${root}: a sane book on its own tick grid and queue scale`, () => {
    const spec = contractForRoot(root);
    const start = parseClock('11:00')!;
    const run = runSession(root, DATE, 11, start, start + 45 * 60e9, 200_000);
    const s = run.stats;
    assert.is(s.badFields + s.crossed + s.nonMonotonicTs, 0);
    assert.ok(s.minLevels >= 20, `${root} min levels ${s.minLevels}`);
    assert.ok(s.oneTickSpreadFraction >= 0.8, `${root} one-tick fraction ${s.oneTickSpreadFraction}`);
    assert.ok(s.meanBestQueue >= 4 && s.meanBestQueue <= 100, `${root} mean best queue ${s.meanBestQueue}`);
    assert.ok(s.trades > 1000, `${root} trades ${s.trades}`);
    assert.ok(s.eventsPerSecond > 20 && s.eventsPerSecond < 1000, `${root} events/s ${s.eventsPerSecond}`);
    const mid = run.gen.book.mid() * spec.tickSize;
    assert.ok(mid > spec.typicalLow * 0.9 && mid < spec.typicalHigh * 1.1, `${root} mid ${mid}`);
    assert.ok(s.rangeFraction > 0.0005 && s.rangeFraction < 0.05, `${root} 45-min range ${s.rangeFraction}`);
    assert.ok(s.markoutTicks[1] > 0, `${root} markout 1 s ${s.markoutTicks[1]}`);
    const trade = run.firstEvents.find((e) => e[1] === MD_TRADE);
    assert.ok(trade !== undefined || s.trades > 0);
  });
}

test.run();
