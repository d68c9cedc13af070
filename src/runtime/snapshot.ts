// The engine thread's state snapshot: a fixed layout of float64 fields in a seqlock slot,
// written by workers/order-book about 20 times a second (writeSnapshot) and decoded by the main
// thread (readSnapshot): the layout is known to this file only.

import { NO_PRICE } from '../book/dense-book.ts';
import { sharpeRatio } from '../portfolio/metrics.ts';
import { KILL_REASONS } from '../risk/risk-manager.ts';
import type { Trader } from '../trading/trader.ts';
import type { ClosedTradeStats } from '../portfolio/portfolio.ts';
import { ORD_FREE, ORD_LIVE, ORD_PENDING_CANCEL, ORD_PENDING_NEW } from '../trading/order-table.ts';
import { BID } from '../core/events.ts';

export const BOOK_LEVELS = 15;
export const SNAPSHOT_ORDERS = 8;

let n = 0;
const f = () => n++;
export const S = {
  VALID: f(), // 1 once an engine has written
  NOW: f(), // engine ns (continuous clock)
  SESSION: f(), // session index
  BEST_BID: f(),
  BEST_ASK: f(),
  MICRO: f(),
  POSITION: f(),
  AVG_PRICE: f(),
  REALIZED: f(),
  UNREALIZED: f(),
  FEES: f(),
  EQUITY: f(),
  DRAWDOWN: f(), // fraction from the running peak
  DAILY_LOSS: f(),
  DAY_START: f(),
  FILLS: f(),
  VOLUME: f(),
  TRADES: f(),
  WINS: f(),
  LOSSES: f(),
  GROSS_WIN: f(),
  GROSS_LOSS: f(),
  SHARPE: f(), // over this session's minute samples
  MAX_DD_PCT: f(),
  EVENTS: f(),
  ORDERS: f(),
  CANCELS: f(),
  REJECTS: f(),
  RISK_REJECTS: f(),
  BLOCKED_REQUOTES: f(),
  SELF_MATCH: f(),
  KILLED: f(),
  KILL_REASON: f(),
  KILL_TS: f(),
  SIGNAL: f(),
  SIGNAL_TS: f(),
  PREDICTIONS: f(),
  FILLS_BUY_MAKER: f(),
  FILLS_BUY_TAKER: f(),
  FILLS_SELL_MAKER: f(),
  FILLS_SELL_TAKER: f(),
  BID_N: f(),
  ASK_N: f(),
  ORDER_N: f(),
  LEVELS: 0, // start of bid prices, bid sizes, ask prices, ask sizes (BOOK_LEVELS each)
  ORDER_FIELDS: 0, // start of our orders: id, side, price, qty, leaves, state (SNAPSHOT_ORDERS each)
  SIZE: 0,
};
S.LEVELS = n;
S.ORDER_FIELDS = S.LEVELS + 4 * BOOK_LEVELS;
S.SIZE = S.ORDER_FIELDS + 6 * SNAPSHOT_ORDERS;

/**
 * The engine thread's counters, summed over its engines (sessions) and over restarts: they live
 * in shared memory (SymbolMemory.counters) that outlives the thread. Fills by side and liquidity
 * are counted as each fill is booked (inside FillJournal's transaction); the rest are the engines'
 * own counts, stored at the end of each pass of the thread.
 */
export const CT = {
  EVENTS: 0,
  ORDERS: 1,
  CANCELS: 2,
  REJECTS: 3,
  RISK_REJECTS: 4,
  BLOCKED_REQUOTES: 5,
  SELF_MATCH: 6,
  BUY_MAKER: 7,
  BUY_TAKER: 8,
  SELL_MAKER: 9,
  SELL_TAKER: 10,
} as const;
export const CT_FIELDS = 11;

/** Fills by side and liquidity, as read back from a snapshot. */
export interface FillCounters {
  buyMaker: number;
  buyTaker: number;
  sellMaker: number;
  sellTaker: number;
}

/** The engine thread's counters (CT), as read back from a snapshot. */
export interface EngineTotals {
  events: number;
  orders: number;
  cancels: number;
  rejects: number;
  riskRejects: number;
  blockedRequotes: number;
  selfMatch: number;
}

/** Writes the engine's state into `out` (the seqlock payload, between beginWrite/endWrite). */
export function writeSnapshot(
  out: Float64Array,
  e: Trader,
  session: number,
  counters: Float64Array,
  scratch: { prices: Float64Array; sizes: Float64Array },
): void {
  const p = e.portfolio;
  const b = e.book;
  // The last two-sided mid (a side empty now does not value the position at 0); 0 only when
  // this engine has seen none, which leaves a flat position's equity exact.
  const m = e.markTicks;
  const mark = m === m ? m : 0;
  const eq = p.equity(mark);
  const r = e.risk;
  const t = p.trades;
  out[S.VALID] = 1;
  out[S.NOW] = e.now;
  out[S.SESSION] = session;
  out[S.BEST_BID] = b.bestBid === NO_PRICE ? NaN : b.bestBid;
  out[S.BEST_ASK] = b.bestAsk === NO_PRICE ? NaN : b.bestAsk;
  out[S.MICRO] = e.features.microprice;
  out[S.POSITION] = p.position;
  out[S.AVG_PRICE] = p.averagePrice();
  out[S.REALIZED] = p.realizedPnl;
  out[S.UNREALIZED] = p.unrealized(mark);
  out[S.FEES] = p.feesPaid;
  out[S.EQUITY] = eq;
  out[S.DRAWDOWN] = r.peakEquity > 0 ? Math.max(0, (r.peakEquity - eq) / r.peakEquity) : 0;
  out[S.DAILY_LOSS] = r.dayStartEquity - eq;
  out[S.DAY_START] = r.dayStartEquity;
  out[S.FILLS] = p.fills;
  out[S.VOLUME] = p.volume;
  out[S.TRADES] = t.count;
  out[S.WINS] = t.wins;
  out[S.LOSSES] = t.losses;
  out[S.GROSS_WIN] = t.grossWin;
  out[S.GROSS_LOSS] = t.grossLoss;
  const curve = e.equity.valuesView();
  // NaN (null in /api/state) until two per-minute returns exist: a 0 there would read as a figure.
  out[S.SHARPE] = curve.length >= 3 ? sharpeRatio(curve) : NaN;
  out[S.MAX_DD_PCT] = r.maxDrawdownFrac * 100; // at every equity check, as the kill switch sees it
  out[S.EVENTS] = counters[CT.EVENTS];
  out[S.ORDERS] = counters[CT.ORDERS];
  out[S.CANCELS] = counters[CT.CANCELS];
  out[S.REJECTS] = counters[CT.REJECTS];
  out[S.RISK_REJECTS] = counters[CT.RISK_REJECTS];
  out[S.BLOCKED_REQUOTES] = counters[CT.BLOCKED_REQUOTES];
  out[S.SELF_MATCH] = counters[CT.SELF_MATCH];
  out[S.KILLED] = r.killed ? 1 : 0;
  out[S.KILL_REASON] = r.killed ? KILL_REASONS.indexOf(r.killReason as (typeof KILL_REASONS)[number]) : 0;
  out[S.KILL_TS] = r.killTs;
  out[S.SIGNAL] = e.signal;
  out[S.SIGNAL_TS] = e.signalTs;
  out[S.PREDICTIONS] = e.predictions;
  out[S.FILLS_BUY_MAKER] = counters[CT.BUY_MAKER];
  out[S.FILLS_BUY_TAKER] = counters[CT.BUY_TAKER];
  out[S.FILLS_SELL_MAKER] = counters[CT.SELL_MAKER];
  out[S.FILLS_SELL_TAKER] = counters[CT.SELL_TAKER];
  const L = BOOK_LEVELS;
  for (let side = 0; side < 2; side++) {
    const n = b.levels(side, L, scratch.prices, scratch.sizes);
    const base = S.LEVELS + 2 * L * side; // bid prices, bid sizes, ask prices, ask sizes
    for (let i = 0; i < n; i++) {
      out[base + i] = scratch.prices[i];
      out[base + L + i] = scratch.sizes[i];
    }
    out[side === 0 ? S.BID_N : S.ASK_N] = n;
  }
  const o = e.orders;
  let k = 0;
  for (let s = 0; s < o.capacity && k < SNAPSHOT_ORDERS; s++) {
    if (o.state[s] === ORD_FREE) continue;
    const base = S.ORDER_FIELDS + 6 * k++;
    out[base] = o.id[s];
    out[base + 1] = o.side[s];
    out[base + 2] = o.price[s];
    out[base + 3] = o.qty[s];
    out[base + 4] = o.leaves[s];
    out[base + 5] = o.state[s];
  }
  out[S.ORDER_N] = k;
}

/** A snapshot decoded: prices in ticks (NaN when absent), money in USD, times in engine ns. */
export interface EngineSnapshot extends EngineTotals {
  valid: boolean; // false until an engine has written
  now: number;
  session: number;
  bestBid: number;
  bestAsk: number;
  micro: number;
  position: number;
  avgPrice: number;
  realized: number;
  unrealized: number;
  fees: number;
  equity: number;
  drawdown: number; // fraction from the running peak
  dailyLoss: number;
  fills: number;
  volume: number;
  trades: ClosedTradeStats;
  sharpe: number; // NaN until two per-minute returns
  maxDrawdownPct: number;
  killed: boolean;
  killReason: string | null;
  killTs: number;
  signal: number;
  signalTs: number;
  predictions: number;
  fillCounts: FillCounters;
  bids: { ticks: number; size: number }[]; // best first
  asks: { ticks: number; size: number }[];
  ourOrders: { id: number; side: 'buy' | 'sell'; ticks: number; qty: number; leaves: number; state: 'pending_new' | 'live' | 'pending_cancel' }[];
}

const ORDER_STATES = new Map([
  [ORD_PENDING_NEW, 'pending_new' as const],
  [ORD_LIVE, 'live' as const],
  [ORD_PENDING_CANCEL, 'pending_cancel' as const],
]);

/** Decodes a snapshot written by writeSnapshot (a consistent copy read from the seqlock). */
export function readSnapshot(s: Float64Array): EngineSnapshot {
  const L = BOOK_LEVELS;
  const levels = (base: number, n: number) => Array.from({ length: n }, (_, i) => ({ ticks: s[base + i], size: s[base + L + i] }));
  const ourOrders: EngineSnapshot['ourOrders'] = [];
  for (let k = 0; k < s[S.ORDER_N] && k < SNAPSHOT_ORDERS; k++) {
    const b = S.ORDER_FIELDS + 6 * k;
    ourOrders.push({
      id: s[b],
      side: s[b + 1] === BID ? 'buy' : 'sell',
      ticks: s[b + 2],
      qty: s[b + 3],
      leaves: s[b + 4],
      state: ORDER_STATES.get(s[b + 5]) ?? 'live',
    });
  }
  const killed = s[S.KILLED] === 1;
  return {
    valid: s[S.VALID] === 1,
    now: s[S.NOW],
    session: s[S.SESSION],
    bestBid: s[S.BEST_BID],
    bestAsk: s[S.BEST_ASK],
    micro: s[S.MICRO],
    position: s[S.POSITION],
    avgPrice: s[S.AVG_PRICE],
    realized: s[S.REALIZED],
    unrealized: s[S.UNREALIZED],
    fees: s[S.FEES],
    equity: s[S.EQUITY],
    drawdown: s[S.DRAWDOWN],
    dailyLoss: s[S.DAILY_LOSS],
    fills: s[S.FILLS],
    volume: s[S.VOLUME],
    trades: { count: s[S.TRADES], wins: s[S.WINS], losses: s[S.LOSSES], grossWin: s[S.GROSS_WIN], grossLoss: s[S.GROSS_LOSS] },
    sharpe: s[S.SHARPE],
    maxDrawdownPct: s[S.MAX_DD_PCT],
    events: s[S.EVENTS],
    orders: s[S.ORDERS],
    cancels: s[S.CANCELS],
    rejects: s[S.REJECTS],
    riskRejects: s[S.RISK_REJECTS],
    blockedRequotes: s[S.BLOCKED_REQUOTES],
    selfMatch: s[S.SELF_MATCH],
    killed,
    killReason: killed ? (KILL_REASONS[s[S.KILL_REASON]] ?? 'OTHER') : null,
    killTs: s[S.KILL_TS],
    signal: s[S.SIGNAL],
    signalTs: s[S.SIGNAL_TS],
    predictions: s[S.PREDICTIONS],
    fillCounts: { buyMaker: s[S.FILLS_BUY_MAKER], buyTaker: s[S.FILLS_BUY_TAKER], sellMaker: s[S.FILLS_SELL_MAKER], sellTaker: s[S.FILLS_SELL_TAKER] },
    bids: levels(S.LEVELS, s[S.BID_N]),
    asks: levels(S.LEVELS + 2 * L, s[S.ASK_N]),
    ourOrders,
  };
}
