// A session's market without the engine: what a session the kill switch kept from trading
// (account.ts) still reports, its open and close mids. The market's events go through the
// session's exchange as in a traded session (its book is the one the traded session's mids come
// from: the same first and last two-sided touch), with no order ever sent to it.

import { touchMid } from '../book/dense-book.ts';
import { ER_STRIDE } from '../core/events.ts';
import { RecordRing } from '../core/ring.ts';
import { hashSeed } from '../core/rng.ts';
import { buildExchange } from '../exchange/venue.ts';
import { emptyTradeStats } from '../portfolio/portfolio.ts';
import type { SessionResult, SessionSpec } from './session-spec.ts';
import type { MarketSource } from '../market/source.ts';

const BATCH = 4096;

/** Runs the market of `spec` through an exchange alone; a result with no trading and the session's open and close mids. */
export function runMarketOnly(spec: SessionSpec, gen: MarketSource, ring: RecordRing): SessionResult {
  const tape = gen.tape ?? null;
  const exchange = buildExchange(
    spec.execution,
    RecordRing.allocate(ER_STRIDE, 1 << 4, false),
    hashSeed(`exchange|${spec.root}|${spec.date}`, spec.seed),
    tape,
  );
  const book = exchange.book;
  const D = ring.data;
  let open = Number.NaN;
  let close = Number.NaN;
  for (;;) {
    if (ring.availableSameThread() === 0) {
      if (gen.done) break;
      ring.release();
      const room = ring.free();
      gen.generate(ring, room < BATCH ? room : BATCH);
      continue;
    }
    if (tape !== null) tape.cur = ring.readSeq;
    exchange.onMarketEvent(D, ring.peek());
    ring.advance();
    const mid = touchMid(book.bestBid, book.bestAsk);
    if (mid === mid) {
      if (open !== open) open = mid;
      close = mid;
    }
  }
  return {
    date: spec.date,
    carryIn: { ...spec.carry },
    eventsProcessed: 0,
    ordersSent: 0,
    cancelsSent: 0,
    rejects: 0,
    cancelRejects: 0,
    riskRejects: 0,
    blockedRequotes: 0,
    selfMatchPrevented: 0,
    fills: 0,
    zeroAheadFills: 0,
    volume: 0,
    feesPaid: 0,
    realizedPnl: 0,
    unrealizedPnl: 0,
    finalPosition: 0,
    maxAbsPosition: 0,
    finalMidTicks: close,
    openMidTicks: open,
    trades: emptyTradeStats(),
    markouts: { sumTicks: [], qty: [] },
    pnlTimes: [],
    pnlValues: [],
    maxDrawdownFrac: 0,
    drawdownPath: { highs: [], lows: [], overflowed: false },
    killSwitch: { tripped: false, reason: '', ts: 0, pnl: 0 },
    alerts: [],
    predictions: 0,
    fillColumns: null,
    quotes: null,
  };
}
