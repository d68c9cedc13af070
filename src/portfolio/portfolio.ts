// Position, FIFO lots and P&L, exactly as REFERENCE.md defines them:
// - realised P&L: price difference x quantity x $/point of every FIFO-matched quantity (gross of fees);
// - unrealised P&L: the open lots marked to a price (the mid);
// - equity = initial capital + realised + unrealised - fees paid;
// - a closed trade per matched quantity, with P&L net of the pro-rata fees of both fills.
// Prices are integer ticks; USD = ticks x tickValue.

import { BID } from '../core/events.ts';

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

export class Portfolio {
  readonly initialCapital: number;
  readonly tickValue: number;
  /** Signed contracts: > 0 long. */
  position = 0;
  realizedPnl = 0;
  feesPaid = 0;
  volume = 0;
  fills = 0;
  maxAbsPosition = 0;
  readonly trades: ClosedTradeStats = emptyTradeStats();
  /** P&L of the closed trades the last onFill produced (USD, net of their fees). */
  lastFillTradePnl = 0;

  // FIFO lots in a ring: price (ticks), remaining contracts, fee per contract paid on entry.
  private readonly lotPrice: Float64Array;
  private readonly lotQty: Float64Array;
  private readonly lotFee: Float64Array;
  private readonly lotMask: number;
  private lotHead = 0; // oldest
  private lotCount = 0;
  /** Sum over open lots of price x signed qty (ticks x contracts), for the mark. */
  private openCost = 0;

  constructor(initialCapital: number, tickValue: number, maxLots = 4096) {
    let cap = 64;
    while (cap < maxLots) cap <<= 1;
    this.initialCapital = initialCapital;
    this.tickValue = tickValue;
    this.lotPrice = new Float64Array(cap);
    this.lotQty = new Float64Array(cap);
    this.lotFee = new Float64Array(cap);
    this.lotMask = cap - 1;
  }

  /**
   * Books a fill: side BID = bought, ASK = sold; price in ticks; fee in USD for the whole fill.
   * Returns the realised P&L (USD, gross of fees) the fill produced.
   */
  onFill(side: number, price: number, qty: number, fee: number): number {
    const dir = side === BID ? 1 : -1;
    const feePer = fee / qty;
    let left = qty;
    let realized = 0;
    let tradePnl = 0;
    // Close opposite lots first-in-first-out.
    while (left > 0 && this.lotCount > 0 && this.position * dir < 0) {
      const i = this.lotHead & this.lotMask;
      const m = this.lotQty[i] < left ? this.lotQty[i] : left;
      // A long lot (position > 0) is closed by a sale: (sell - buy); a short lot by a purchase.
      const ticks = (price - this.lotPrice[i]) * m * -dir;
      const gross = ticks * this.tickValue;
      const net = gross - (this.lotFee[i] + feePer) * m;
      realized += gross;
      tradePnl += net;
      this.recordTrade(net);
      this.openCost -= this.lotPrice[i] * m * -dir;
      this.position += dir * m;
      this.lotQty[i] -= m;
      left -= m;
      if (this.lotQty[i] === 0) {
        this.lotHead++;
        this.lotCount--;
      }
    }
    if (left > 0) {
      if (this.lotCount > this.lotMask) throw new Error('portfolio: too many open lots');
      const j = (this.lotHead + this.lotCount) & this.lotMask;
      this.lotPrice[j] = price;
      this.lotQty[j] = left;
      this.lotFee[j] = feePer;
      this.lotCount++;
      this.openCost += price * left * dir;
      this.position += dir * left;
    }
    this.realizedPnl += realized;
    this.feesPaid += fee;
    this.volume += qty;
    this.fills++;
    const abs = this.position < 0 ? -this.position : this.position;
    if (abs > this.maxAbsPosition) this.maxAbsPosition = abs;
    this.lastFillTradePnl = tradePnl;
    return realized;
  }

  private recordTrade(net: number): void {
    const t = this.trades;
    t.count++;
    if (net > 0) {
      t.wins++;
      t.grossWin += net;
    } else if (net < 0) {
      t.losses++;
      t.grossLoss += net;
    }
  }

  /** Unrealised P&L in USD of the open position marked at `markTicks` (the mid). */
  unrealized(markTicks: number): number {
    if (this.position === 0) return 0;
    return (this.position * markTicks - this.openCost) * this.tickValue;
  }

  equity(markTicks: number): number {
    return this.initialCapital + this.realizedPnl + this.unrealized(markTicks) - this.feesPaid;
  }

  /** Average entry price of the open position in ticks (NaN when flat). */
  averagePrice(): number {
    return this.position === 0 ? NaN : this.openCost / this.position;
  }
}
