// Sweep grids: `key=v1,v2` and `key=start:stop:step` axes, the one key table, grid order.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gridPoints, parseAxis, parseGrid, pointCount, type SweepAxis } from '../../../src/sweep/grid.ts';
import { SWEEP_KEYS, sweepKey } from '../../../src/wire/sweep-keys.ts';

function axis(arg: string): SweepAxis {
  const r = parseAxis(arg);
  if (!r.ok) assert.unreachable(`${arg}: ${r.error}`);
  return (r as { ok: true; value: SweepAxis }).value;
}
function error(args: string[]): string {
  const r = parseGrid(args);
  if (r.ok) assert.unreachable(`${args.join(' ')} should fail`);
  return (r as { ok: false; error: string }).error;
}

test('a list keeps its order; a range expands with the decimals it was written with', () => {
  assert.equal(axis('spread_multiplier=2,1,1.5').values, [2, 1, 1.5]);
  assert.equal(axis('skew_factor=0.1:0.3:0.1').values, [0.1, 0.2, 0.3]);
  assert.equal(axis('inventory_limit=5:20:5').values, [5, 10, 15, 20]);
  assert.equal(axis('inventory_limit=5:19:5').values, [5, 10, 15], 'stop is included only when on the step');
  assert.equal(axis('use_ml=false,true').values, [false, true]);
  assert.equal(axis('queue_model=power,risk_averse').values, ['power', 'risk_averse']);
});

test("config keys and the request's camelCase names name the same row", () => {
  assert.is(sweepKey('spreadMultiplier'), sweepKey('spread_multiplier'));
  assert.is(axis('maxDrawdown=0.05').key.key, 'max_drawdown_pct');
  assert.is(new Set(SWEEP_KEYS.map((k) => k.key)).size, SWEEP_KEYS.length);
  assert.is(new Set(SWEEP_KEYS.map((k) => k.name)).size, SWEEP_KEYS.length);
});

test('errors name the key and what was wrong', () => {
  assert.match(error(['spread=1,2']), /unknown sweep key "spread" \(known: spread_multiplier, .*queue_model/);
  assert.match(error(['spread_multiplier=1,x']), /spread_multiplier: "x" is not a number/);
  assert.match(error(['skew_factor=1:0:0.5']), /skew_factor=1:0:0.5: stop must be >= start/);
  assert.match(error(['skew_factor=0:1:0']), /step must be > 0/);
  assert.match(error(['skew_factor=0:1']), /expected start:stop:step/);
  assert.match(error(['skew_factor=0:1:0.00001']), /100001 values, at most 1000/);
  assert.match(error(['use_ml=yes']), /use_ml: "yes" is not true or false/);
  assert.match(error(['queue_model=a:b:c']), /a range needs a numeric key/);
  assert.match(error(['skew_factor=1,1']), /value 1 listed twice/);
  assert.match(error(['skew_factor']), /expected KEY=v1,v2/);
  assert.match(error(['skew_factor=1', 'skewFactor=2']), /sweep key skew_factor given more than once/);
});

test('the grid is the cartesian product, last axis fastest', () => {
  const g = parseGrid(['spread_multiplier=1,2', 'skew_factor=0,0.5,1']);
  assert.ok(g.ok);
  const axes = (g as { ok: true; value: SweepAxis[] }).value;
  assert.is(pointCount(axes), 6);
  assert.equal(gridPoints(axes), [
    [1, 0],
    [1, 0.5],
    [1, 1],
    [2, 0],
    [2, 0.5],
    [2, 1],
  ]);
  assert.equal(gridPoints([]), [[]], 'no axis: one point, the base request');
});

test.run();
