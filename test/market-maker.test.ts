import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_PRICE } from '../src/book/dense-book.ts';
import { IN_SIGMA, IN_SIGNAL, MarketMaker } from '../src/strategy/market-maker.ts';

/** decide() with its float inputs set the way the engine sets them. */
function quote(mm: MarketMaker, bb: number, ba: number, sigma: number, pos: number, signal: number, reduceOnly: boolean): void {
  mm.inputs[IN_SIGMA] = sigma;
  mm.inputs[IN_SIGNAL] = signal;
  mm.decide(bb, ba, pos, reduceOnly);
}

const params = { orderSize: 2, spreadMultiplier: 1, skewFactor: 0.5, inventoryLimit: 5, volSpreadFactor: 0.5, useML: false, mlWeight: 1 };

test('flat and calm: quotes at the touch', () => {
  const mm = new MarketMaker(params);
  quote(mm, 100, 101, 0.5, 0, NaN, false);
  assert.is(mm.bidPrice, 100);
  assert.is(mm.askPrice, 101);
  assert.is(mm.bidSize, 2);
});

test('long inventory shifts both quotes down (skew), never crossing', () => {
  const mm = new MarketMaker(params);
  quote(mm, 100, 101, 1, 3, NaN, false); // r = 100.5 - 0.5*3*1 = 99
  assert.is(mm.bidPrice, 98);
  assert.is(mm.askPrice, 101); // ceil(99.5) = 100 would cross the bid; clamped to bestBid + 1
  quote(mm, 100, 101, 1, -3, NaN, false);
  assert.is(mm.bidPrice, 100);
  assert.is(mm.askPrice, 103);
});

test('inventory limit stops the side that grows the position; reduce-only near the close', () => {
  const mm = new MarketMaker(params);
  quote(mm, 100, 101, 0.1, 5, NaN, false);
  assert.is(mm.bidPrice, NO_PRICE);
  assert.ok(mm.askPrice !== NO_PRICE);
  quote(mm, 100, 101, 0.1, -1, NaN, true);
  assert.is(mm.askPrice, NO_PRICE);
  assert.is(mm.bidSize, 1);
  quote(mm, 100, 101, 0.1, 0, NaN, true);
  assert.is(mm.bidPrice, NO_PRICE);
  assert.is(mm.askPrice, NO_PRICE);
});

test('volatility widens the spread; the ML signal shifts the reservation only with useML', () => {
  const mm = new MarketMaker(params);
  quote(mm, 100, 101, 4, 0, NaN, false); // half spread 0.5*4 = 2
  assert.is(mm.bidPrice, 98);
  assert.is(mm.askPrice, 103);
  quote(mm, 100, 101, 0.1, 0, 2, false);
  assert.is(mm.bidPrice, 100);
  const ml = new MarketMaker({ ...params, useML: true });
  quote(ml, 100, 101, 0.1, 0, -2, false); // r = 98.5
  assert.is(ml.bidPrice, 98);
  assert.is(ml.askPrice, 101);
});

test('an order never takes the position past inventory_limit: the size is what is left of it', () => {
  const mm = new MarketMaker({ ...params, orderSize: 3, inventoryLimit: 20 });
  quote(mm, 100, 101, 0.1, 18, NaN, false);
  assert.is(mm.bidSize, 2); // 18 + 2 = 20, not 18 + 3 = 21
  assert.is(mm.askSize, 3);
  quote(mm, 100, 101, 0.1, 20, NaN, false);
  assert.is(mm.bidPrice, NO_PRICE);
  quote(mm, 100, 101, 0.1, -19, NaN, false);
  assert.is(mm.askSize, 1);
  assert.is(mm.bidSize, 3);
});

test('skew acts gradually: a quote leaves the touch once the inventory shift is worth a quarter tick', () => {
  // sigma = 1 tick/sqrt(s): shift = skew x position ticks; the touch is 100 / 101 (mid 100.5).
  const firstPositionOffTouch = (skewFactor: number): number => {
    const mm = new MarketMaker({ ...params, skewFactor, inventoryLimit: 1000 });
    for (let pos = 1; pos < 1000; pos++) {
      quote(mm, 100, 101, 1, pos, NaN, false);
      if (mm.bidPrice !== 100) return pos;
    }
    return Infinity;
  };
  assert.is(firstPositionOffTouch(0.0011), 228); // 0.25 / 0.0011 = 227.3
  assert.is(firstPositionOffTouch(0.011), 23);
  assert.is(firstPositionOffTouch(0.1), 3);
  assert.is(firstPositionOffTouch(0.5), 1);
  assert.is(firstPositionOffTouch(0), Infinity);
  // symmetric for a short position
  const mm = new MarketMaker({ ...params, skewFactor: 0.1, inventoryLimit: 1000 });
  quote(mm, 100, 101, 1, -2, NaN, false);
  assert.is(mm.askPrice, 101);
  quote(mm, 100, 101, 1, -3, NaN, false);
  assert.is(mm.askPrice, 102);
  assert.is(mm.bidPrice, 100);
});

test.run();
