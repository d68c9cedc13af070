// The dashboard's price format follows the contract the engine's state names: a root configured
// with [contracts.<ROOT>] (or known from definition records) shows prices on its own tick grid,
// not the 2-decimal fallback of a root the built-in table lacks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { priceFormat } from '../../../src/dashboard/web/format.ts';

test('a configured root: ZN at 1/64 shows 110.03125 exactly; 6E at 0.00005 keeps five decimals', () => {
  const zn = priceFormat('ZN', 0.015625, 1000);
  assert.is(zn.price(110.03125), '110.031250');
  assert.is(zn.pointValue, 1000);
  assert.is(priceFormat('6E', 0.00005, 125000).price(1.08765), '1.08765');
});

test('built-in roots as before; the state tick wins over a cached format', () => {
  assert.is(priceFormat('ES').price(5012.25), '5012.25');
  assert.is(priceFormat('ES', 0.25, 50).price(5012.25), '5012.25');
  assert.is(priceFormat('CL').price(72.13), '72.13');
  assert.is(priceFormat('XX').price(1.234), '1.23', 'unknown to both: 2 decimals');
  assert.is(priceFormat('XX', 0.5, 10).price(1.25), '1.5', 'the state names its tick');
});

test.run();
