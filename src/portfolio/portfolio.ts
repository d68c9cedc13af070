// Position, FIFO lots and P&L, exactly as docs/metrics.md defines them:
// - realised P&L: price difference x quantity x $/point of every FIFO-matched quantity (gross of fees);
// - unrealised P&L: the open lots marked to a price (the mid);
// - equity = initial capital + realised + unrealised - fees paid;
// - a closed trade per matched quantity, with P&L net of the pro-rata fees of both fills.
// Prices are integer ticks; USD = ticks x tickValue.

import { BID } from '../core/events.ts';
import {
  FEES,
  FILLS,
  LAST_REALIZED,
  LAST_TRADE_PNL,
  LOT_COUNT,
  LOT_HEAD,
  MAX_ABS,
  OPEN_COST,
  POS,
  REALIZED,
  SCALARS,
  T_COUNT,
  T_GROSS_LOSS,
  T_GROSS_WIN,
  T_LOSSES,
  T_WINS,
  VOLUME,
} from './portfolio-slots.ts';

export interface ClosedTradeStats {
  count: number;
  wins: number;
  losses: number;
  grossWin: number; // USD, sum of positive closed-trade P&L
  grossLoss: number; // USD, sum of negative closed-trade P&L (<= 0)
}

export function emptyTradeStats(): ClosedTradeStats {
  return { count: 0, wins: 0, losses: 0, grossWin: 0, grossLoss: 0 };
}

// Scalar state lives in one Float64Array so the whole portfolio can sit in a SharedArrayBuffer
// and survive a restart of the thread that owns it (see src/runtime).

export class Portfolio {
  readonly initialCapital: number;
  readonly tickValue: number;
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  private readonly s: Float64Array;
  // FIFO lots in a ring: price (ticks), remaining contracts, fee per contract paid on entry.
  private readonly lotPrice: Float64Array;
  private readonly lotQty: Float64Array;
  private readonly lotFee: Float64Array;
  private readonly lotMask: number;
  /** onFill's fee, passed on to onFillAt. */
  private readonly scratch = new Float64Array(1);

  /** Bytes a portfolio with room for `maxLots` open lots needs (see `buffer`). */
  static bytes(maxLots: number): number {
    return (SCALARS + 3 * Portfolio.lotCapacity(maxLots)) * 8;
  }

  private static lotCapacity(maxLots: number): number {
    let cap = 64;
    while (cap < maxLots) cap <<= 1;
    return cap;
  }

  /**
   * `memory`: an existing portfolio's buffer to continue from (e.g. after a restart), or a
   * fresh zeroed SharedArrayBuffer of Portfolio.bytes(maxLots) to share.
   */
  constructor(initialCapital: number, tickValue: number, maxLots = 4096, memory?: ArrayBuffer | SharedArrayBuffer) {
    const cap = Portfolio.lotCapacity(maxLots);
    this.initialCapital = initialCapital;
    this.tickValue = tickValue;
    this.buffer = memory ?? new ArrayBuffer(Portfolio.bytes(maxLots));
    if (this.buffer.byteLength < Portfolio.bytes(maxLots)) throw new Error('portfolio: memory too small');
    this.s = new Float64Array(this.buffer, 0, SCALARS);
    this.lotPrice = new Float64Array(this.buffer, SCALARS * 8, cap);
    this.lotQty = new Float64Array(this.buffer, (SCALARS + cap) * 8, cap);
    this.lotFee = new Float64Array(this.buffer, (SCALARS + 2 * cap) * 8, cap);
    this.lotMask = cap - 1;
  }

  /** Signed contracts: > 0 long. */
  get position(): number {
    return this.s[POS];
  }
  /** Realised P&L, USD, gross of fees. */
  get realizedPnl(): number {
    return this.s[REALIZED];
  }
  get feesPaid(): number {
    return this.s[FEES];
  }
  get volume(): number {
    return this.s[VOLUME];
  }
  get fills(): number {
    return this.s[FILLS];
  }
  get maxAbsPosition(): number {
    return this.s[MAX_ABS];
  }
  /** Realised P&L of the last onFill (USD, gross of fees): what its closed quantity made on price. */
  get lastFillRealized(): number {
    return this.s[LAST_REALIZED];
  }
  /** P&L of the closed trades the last onFill produced (USD, net of their fees). */
  get lastFillTradePnl(): number {
    return this.s[LAST_TRADE_PNL];
  }
  get trades(): ClosedTradeStats {
    const s = this.s;
    return { count: s[T_COUNT], wins: s[T_WINS], losses: s[T_LOSSES], grossWin: s[T_GROSS_WIN], grossLoss: s[T_GROSS_LOSS] };
  }

  /**
   * Books a fill: side BID = bought, ASK = sold; price in ticks; fee in USD for the whole fill.
   * Returns the realised P&L (USD, gross of fees) the fill produced.
   */
  onFill(side: number, price: number, qty: number, fee: number): number {
    const at = this.scratch;
    at[0] = fee;
    this.onFillAt(side, price, qty, at, 0);
    return this.s[LAST_REALIZED];
  }

  /**
   * onFill with the fee (USD, whole fill) read from at[i], and the realised P&L left in the
   * portfolio's state, not returned (hot-path rule 3; the engine books every fill through this).
   */
  onFillAt(side: number, price: number, qty: number, at: Float64Array, i: number): void {
    const s = this.s;
    const fee = at[i];
    const dir = side === BID ? 1 : -1;
    const feePer = fee / qty;
    let left = qty;
    let realized = 0;
    let tradePnl = 0;
    // Close opposite lots first-in-first-out.
    while (left > 0 && s[LOT_COUNT] > 0 && s[POS] * dir < 0) {
      const i = s[LOT_HEAD] & this.lotMask;
      const m = this.lotQty[i] < left ? this.lotQty[i] : left;
      // A long lot (position > 0) is closed by a sale: (sell - buy); a short lot by a purchase.
      const gross = (price - this.lotPrice[i]) * m * -dir * this.tickValue;
      const net = gross - (this.lotFee[i] + feePer) * m;
      realized += gross;
      tradePnl += net;
      s[T_COUNT]++;
      if (net > 0) {
        s[T_WINS]++;
        s[T_GROSS_WIN] += net;
      } else if (net < 0) {
        s[T_LOSSES]++;
        s[T_GROSS_LOSS] += net;
      }
      s[OPEN_COST] -= this.lotPrice[i] * m * -dir;
      s[POS] += dir * m;
      this.lotQty[i] -= m;
      left -= m;
      if (this.lotQty[i] === 0) {
        s[LOT_HEAD] = (s[LOT_HEAD] + 1) & this.lotMask;
        s[LOT_COUNT]--;
      }
    }
    if (left > 0) {
      if (s[LOT_COUNT] > this.lotMask) throw new Error('portfolio: too many open lots');
      const j = (s[LOT_HEAD] + s[LOT_COUNT]) & this.lotMask;
      this.lotPrice[j] = price;
      this.lotQty[j] = left;
      this.lotFee[j] = feePer;
      s[LOT_COUNT]++;
      s[OPEN_COST] += price * left * dir;
      s[POS] += dir * left;
    }
    s[REALIZED] += realized;
    s[FEES] += fee;
    s[VOLUME] += qty;
    s[FILLS]++;
    const abs = s[POS] < 0 ? -s[POS] : s[POS];
    if (abs > s[MAX_ABS]) s[MAX_ABS] = abs;
    s[LAST_TRADE_PNL] = tradePnl;
    s[LAST_REALIZED] = realized;
  }

  /** Doubles saveState writes for a portfolio of `maxLots`. */
  static stateDoubles(maxLots: number): number {
    return SCALARS + Portfolio.lotCapacity(maxLots);
  }

  get stateSize(): number {
    return SCALARS + this.lotMask + 1;
  }

  /**
   * Copies into `out` all a fill can change: the scalars and the open lots' quantities (a fill
   * closes lots from the head and writes a new one in free space). restoreState undoes a fill
   * booked since (see src/runtime/fill-journal.ts).
   */
  saveState(out: Float64Array): void {
    const s = this.s;
    for (let k = 0; k < SCALARS; k++) out[k] = s[k];
    const head = s[LOT_HEAD];
    for (let k = 0; k < s[LOT_COUNT]; k++) out[SCALARS + k] = this.lotQty[(head + k) & this.lotMask];
  }

  restoreState(from: Float64Array): void {
    const s = this.s;
    s.set(from.subarray(0, SCALARS));
    const head = s[LOT_HEAD];
    for (let k = 0; k < s[LOT_COUNT]; k++) this.lotQty[(head + k) & this.lotMask] = from[SCALARS + k];
  }

  /** Unrealised P&L in USD of the open position marked at `markTicks` (the mid). */
  unrealized(markTicks: number): number {
    const pos = this.s[POS];
    if (pos === 0) return 0;
    return (pos * markTicks - this.s[OPEN_COST]) * this.tickValue;
  }

  equity(markTicks: number): number {
    return this.initialCapital + this.s[REALIZED] + this.unrealized(markTicks) - this.s[FEES];
  }

  /**
   * at[out] = equity(at[mark]): for hot callers; only indices cross the call (hot-path rule 3).
   */
  writeEquity(at: Float64Array, mark: number, out: number): void {
    at[out] = this.equity(at[mark]);
  }

  /** Average entry price of the open position in ticks (NaN when flat). */
  averagePrice(): number {
    return this.s[POS] === 0 ? NaN : this.s[OPEN_COST] / this.s[POS];
  }
}
