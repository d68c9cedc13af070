import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ASK, BID } from '../../../src/core/events.ts';
import { maxDrawdownPct, profitFactor, sharpeRatio, winRate } from '../../../src/portfolio/metrics.ts';
import { Portfolio } from '../../../src/portfolio/portfolio.ts';

// ES: tick 0.25, $50/point => $12.50 per tick. Prices below are in ticks (20000 = 5000.00).
const TICK_VALUE = 12.5;
const close = (a: number, b: number, eps = 1e-9) => Math.abs(a - b) <= eps;

test('FIFO round trip: realised P&L, fees, closed-trade P&L net of pro-rata fees', () => {
  const p = new Portfolio(100_000, TICK_VALUE);
  p.onFill(BID, 20000, 2, 2 * 1.43); // buy 2 @ 5000.00, maker fee 1.43/contract
  p.onFill(BID, 20004, 1, 1.43); // buy 1 @ 5001.00
  assert.is(p.position, 3);
  // Sell 2 @ 5002.00 closes the first lot (2 @ 20000): +8 ticks x 2 = $200 gross.
  p.onFill(ASK, 20008, 2, 2 * 2.03); // taker fee 2.03/contract
  assert.is(p.position, 1);
  assert.ok(close(p.realizedPnl, 200));
  assert.is(p.trades.count, 1);
  assert.ok(close(p.trades.grossWin, 200 - 2 * (1.43 + 2.03)));
  // Sell 2 @ 4999.00: closes 1 @ 20004 (-8 ticks) and opens a short 1 @ 19996.
  p.onFill(ASK, 19996, 2, 2 * 1.43);
  assert.is(p.position, -1);
  assert.ok(close(p.realizedPnl, 200 - 8 * TICK_VALUE));
  assert.is(p.trades.count, 2);
  assert.is(p.trades.losses, 1);
  assert.ok(close(p.trades.grossLoss, -8 * TICK_VALUE - (1.43 + 1.43)));
  // Unrealised: short 1 @ 19996 marked at 19990 => +6 ticks.
  assert.ok(close(p.unrealized(19990), 6 * TICK_VALUE));
  const fees = 2 * 1.43 + 1.43 + 2 * 2.03 + 2 * 1.43;
  assert.ok(close(p.feesPaid, fees));
  assert.ok(close(p.equity(19990), 100_000 + 200 - 100 + 75 - fees));
  assert.is(p.volume, 7);
  assert.is(p.fills, 4);
});

test('equity identity: cash flows + final mark equal realised + unrealised - fees', () => {
  const p = new Portfolio(0, TICK_VALUE);
  const fills: [number, number, number][] = [
    [BID, 100, 3],
    [ASK, 103, 1],
    [ASK, 101, 4],
    [BID, 99, 2],
    [BID, 104, 5],
    [ASK, 102, 1],
  ];
  let cash = 0;
  let fees = 0;
  for (const [side, price, qty] of fills) {
    const fee = qty * 1.43;
    p.onFill(side, price, qty, fee);
    cash += (side === BID ? -1 : 1) * price * qty * TICK_VALUE;
    fees += fee;
  }
  const mark = 101.5;
  const recomputed = cash + p.position * mark * TICK_VALUE - fees;
  assert.ok(close(p.equity(mark), recomputed, 1e-6));
});

test('win rate and profit factor definitions', () => {
  assert.is(winRate({ count: 0, wins: 0, losses: 0, grossWin: 0, grossLoss: 0 }), 0);
  assert.is(winRate({ count: 4, wins: 3, losses: 1, grossWin: 30, grossLoss: -10 }), 0.75);
  assert.is(profitFactor({ count: 4, wins: 3, losses: 1, grossWin: 30, grossLoss: -10 }), 3);
  assert.is(profitFactor({ count: 2, wins: 2, losses: 0, grossWin: 30, grossLoss: 0 }), null);
});

test('max drawdown in percent of the running peak', () => {
  assert.is(maxDrawdownPct([100, 110, 99, 105, 120, 108]), 10); // 110 -> 99 and 120 -> 108 are both 10 %
  assert.ok(close(maxDrawdownPct([100, 90, 95, 80]), 20));
  assert.is(maxDrawdownPct([100, 101, 102]), 0);
});

test('Sharpe: mean / sample std of per-minute returns x sqrt(252 x 390)', () => {
  const eq = [100, 101, 100.5, 102, 101.8];
  const r = eq.slice(1).map((e, i) => e / eq[i] - 1);
  const mean = r.reduce((a, b) => a + b, 0) / r.length;
  const sd = Math.sqrt(r.reduce((a, b) => a + (b - mean) ** 2, 0) / (r.length - 1));
  assert.ok(close(sharpeRatio(eq), (mean / sd) * Math.sqrt(252 * 390), 1e-9));
  assert.is(sharpeRatio([100, 101]), 0); // one return
  assert.is(sharpeRatio([100, 100, 100]), 0); // no variance
});

test.run();
