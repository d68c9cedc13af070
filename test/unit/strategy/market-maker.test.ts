import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_PRICE } from '../../../src/book/dense-book.ts';
import { IN_SIGMA, IN_SIGMA_LO, IN_SIGNAL, MarketMaker } from '../../../src/strategy/market-maker.ts';
import { Rng } from '../../../src/core/rng.ts';

/** decide() with its float inputs set the way the engine sets them. */
function quote(mm: MarketMaker, bb: number, ba: number, sigma: number, pos: number, signal: number, reduceOnly: boolean): void {
  mm.inputs[IN_SIGMA] = sigma;
  mm.inputs[IN_SIGNAL] = signal;
  mm.decide(bb, ba, pos, reduceOnly);
}

const params = { orderSize: 2, spreadMultiplier: 1, skewFactor: 0.5, inventoryLimit: 5, volSpreadFactor: 0.5, useML: false, mlWeight: 1 };

/** A random market maker and decision inputs (the brute-force tests' cases). */
function randomCase(rng: Rng) {
  const p = {
    ...params,
    skewFactor: [0, 0.1, 0.5, 2][rng.int(4)],
    volSpreadFactor: [0, 0.5, 1.3][rng.int(3)],
    spreadMultiplier: [0.5, 1, 2][rng.int(3)],
    useML: rng.int(2) === 1,
  };
  const mm = new MarketMaker(p);
  const bb = 1000 + rng.int(5);
  const ba = bb + 1 + rng.int(3);
  const pos = rng.int(11) - 5;
  const sigma = 0.01 + 3 * rng.next();
  const signal = rng.int(3) === 0 ? NaN : (rng.next() - 0.5) * 4;
  const reduceOnly = rng.int(5) === 0;
  return { p, mm, bb, ba, pos, sigma, signal, reduceOnly };
}

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

test('sameQuotesAt: when a lower volatility gives the same quotes, every volatility between does (brute force)', () => {
  const rng = new Rng(11);
  let tried = 0;
  let same = 0;
  for (let n = 0; n < 3000; n++) {
    const { p, mm, bb, ba, pos, sigma, signal, reduceOnly } = randomCase(rng);
    const lo = sigma * [0, 0.5, 0.9, 0.97, 0.995][rng.int(5)];
    quote(mm, bb, ba, sigma, pos, signal, reduceOnly);
    const want = [mm.bidPrice, mm.askPrice, mm.bidSize, mm.askSize];
    mm.inputs[IN_SIGMA_LO] = lo;
    tried++;
    if (!mm.sameQuotesAt(bb, ba, pos, reduceOnly)) continue;
    same++;
    // The band's ends, a dense grid inside it and the doubles next to each end.
    const probes = [lo, sigma, Math.max(lo, sigma * (1 - 1e-15)), lo + (sigma - lo) * 1e-12];
    for (let k = 1; k < 200; k++) probes.push(lo + ((sigma - lo) * k) / 200);
    for (const s of probes) {
      quote(mm, bb, ba, s, pos, signal, reduceOnly);
      assert.equal([mm.bidPrice, mm.askPrice, mm.bidSize, mm.askSize], want, `sigma ${s} in [${lo}, ${sigma}] (pos ${pos}, params ${JSON.stringify(p)})`);
    }
  }
  // Both answers occur: the check is not vacuous.
  assert.ok(same > tried * 0.3 && same < tried * 0.95, `${same} of ${tried} trial volatilities give the same quotes`);
});

test('signalBand: every signal and volatility in the box gives the decided quotes (brute force)', () => {
  const rng = new Rng(23);
  const band = new Float64Array(2);
  let tried = 0;
  let wide = 0;
  for (let n = 0; n < 3000; n++) {
    const p = {
      ...params,
      skewFactor: [0, 0.1, 0.5, 2][rng.int(4)],
      volSpreadFactor: [0, 0.5, 1.3][rng.int(3)],
      spreadMultiplier: [0.5, 1, 2][rng.int(3)],
      useML: true,
      mlWeight: [0.3, 1, 4][rng.int(3)],
    };
    const mm = new MarketMaker(p);
    const bb = 1000 + rng.int(5);
    const ba = bb + 1 + rng.int(3);
    const pos = rng.int(11) - 5;
    const sigma = 0.01 + 3 * rng.next();
    const signal = (rng.next() - 0.5) * 4;
    const reduceOnly = rng.int(5) === 0;
    quote(mm, bb, ba, sigma, pos, signal, reduceOnly);
    const want = [mm.bidPrice, mm.askPrice, mm.bidSize, mm.askSize];
    // The volatility's band as the engine finds it: a lower trial that gives the same quotes, else none.
    let lo = sigma * [0, 0.5, 0.9, 0.97, 0.995][rng.int(5)];
    mm.inputs[IN_SIGMA_LO] = lo;
    if (!mm.sameQuotesAt(bb, ba, pos, reduceOnly)) lo = mm.inputs[IN_SIGMA_LO] = sigma;
    mm.signalBand(bb, ba, pos, reduceOnly, band, 0);
    tried++;
    const [sLo, sHi] = [band[0], band[1]];
    assert.ok(sLo <= signal && signal <= sHi, `band [${sLo}, ${sHi}] holds the signal ${signal}`);
    if (sHi - sLo > 0) wide++;
    const signals = [sLo, sHi, signal, Math.min(sHi, signal + (sHi - signal) * (1 - 1e-15))];
    for (let k = 1; k < 40; k++) signals.push(sLo + ((sHi - sLo) * k) / 40);
    const sigmas = [lo, sigma, lo + (sigma - lo) / 3, lo + ((sigma - lo) * 2) / 3];
    for (const s of signals) {
      for (const v of sigmas) {
        quote(mm, bb, ba, v, pos, s, reduceOnly);
        assert.equal(
          [mm.bidPrice, mm.askPrice, mm.bidSize, mm.askSize],
          want,
          `signal ${s} in [${sLo}, ${sHi}], sigma ${v} in [${lo}, ${sigma}] (pos ${pos}, params ${JSON.stringify(p)})`,
        );
      }
    }
  }
  // Most bands are wider than the signal alone: the check is not vacuous.
  assert.ok(wide > tried * 0.8, `${wide} of ${tried} bands wider than the signal`);
});

test('signalBand: the signal alone without the model, without a signal, or with mlWeight 0', () => {
  const band = new Float64Array(2);
  for (const [useML, mlWeight, signal] of [
    [false, 1, 0.3],
    [true, 1, NaN],
    [true, 0, 0.3],
  ] as const) {
    const mm = new MarketMaker({ ...params, useML, mlWeight });
    quote(mm, 100, 102, 0.5, 0, signal, false);
    mm.inputs[IN_SIGMA_LO] = 0.5;
    mm.signalBand(100, 102, 0, false, band, 0);
    assert.equal([band[0], band[1]], [signal, signal], `useML ${useML}, mlWeight ${mlWeight}, signal ${signal}`);
  }
});

test('lowestSigmaEstimate: the quotes stand down to it and change just below its threshold (brute force)', () => {
  const rng = new Rng(31);
  let estimated = 0;
  let held = 0;
  let tight = 0;
  for (let n = 0; n < 3000; n++) {
    const { p, mm, bb, ba, pos, sigma, signal, reduceOnly } = randomCase(rng);
    quote(mm, bb, ba, sigma, pos, signal, reduceOnly);
    const want = [mm.bidPrice, mm.askPrice, mm.bidSize, mm.askSize];
    const at = new Float64Array(1);
    mm.lowestSigmaEstimate(bb, ba, pos, at, 0);
    const est = at[0];
    if (est !== est) continue;
    estimated++;
    assert.ok(est < sigma, `the estimate ${est} is below the volatility ${sigma}`);
    mm.inputs[IN_SIGMA_LO] = est;
    if (mm.sameQuotesAt(bb, ba, pos, reduceOnly)) held++;
    // Just below the threshold the estimate sits a hair above, something the quote is made of
    // changes, unless the threshold is the volatility's floor (MIN_SIGMA), below which none does.
    const below = (est / (1 + 1e-9)) * (1 - 1e-7);
    if (below <= 0.05) continue;
    quote(mm, bb, ba, sigma, pos, signal, reduceOnly);
    mm.inputs[IN_SIGMA_LO] = below;
    if (!mm.sameQuotesAt(bb, ba, pos, reduceOnly)) tight++;
    else assert.unreachable(`quotes ${want} still stand at ${below}, below the estimate ${est} (pos ${pos}, sigma ${sigma}, params ${JSON.stringify(p)})`);
  }
  assert.ok(estimated > 1000, `${estimated} estimates`);
  assert.ok(held > estimated * 0.99, `${held} of ${estimated} estimates give the decided quotes`);
  assert.ok(tight > 300, `${tight} estimates checked from below`);
});

test('sameQuotesAt: a NaN volatility never gives the same quotes', () => {
  const mm = new MarketMaker(params);
  quote(mm, 100, 101, NaN, 2, NaN, false);
  mm.inputs[IN_SIGMA_LO] = NaN;
  assert.not.ok(mm.sameQuotesAt(100, 101, 2, false));
  mm.inputs[IN_SIGMA_LO] = 0.5;
  assert.not.ok(mm.sameQuotesAt(100, 101, 2, false));
});

test.run();
