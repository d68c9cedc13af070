// The dashboard's reading of GET /api/strategies (src/dashboard/web/strategies.ts), on the
// engine's own descriptions of the built-in and of the shipped example (compiled from its file):
// the form fields a strategy's parameter schema makes, the request field each is sent as, and the
// sweep axes offered for it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { paramFields, paramHint, rangeText, sweepAxes, unitOf } from '../../../src/dashboard/web/strategies.ts';
import type { StrategyInfo } from '../../../src/wire/strategies.ts';
import { strategyInfo } from '../../../src/strategy/info.ts';
import { compileStrategyFile } from '../../../src/strategy/load.ts';
import { strategyByName } from '../../../src/strategy/registry.ts';

const builtin = strategyInfo(strategyByName('market_maker')!);
let example: StrategyInfo;

test.before(async () => {
  example = strategyInfo(await compileStrategyFile('examples/strategies/imbalance-quoter.ts'));
});

test("a file's parameters: one field each, as params.NAME, with the schema's type, bounds, default and description", () => {
  const f = paramFields(example);
  assert.equal(
    f.map((x) => [x.field, x.type, x.min, x.max, x.default]),
    [
      ['params.size', 'integer', 1, 100, 1],
      ['params.threshold', 'number', 0, 1, 0.6],
      ['params.max_position', 'integer', 1, 1000, 10],
      ['params.refresh_ms', 'integer', 10, 60000, 1000],
    ],
  );
  const threshold = f.find((x) => x.param === 'threshold')!;
  assert.is(threshold.description, 'imbalance beyond which the opposite quote steps back');
  assert.is(threshold.exclusiveMin, false);
  assert.is(paramHint(threshold), 'imbalance beyond which the opposite quote steps back · 0 … 1 · default 0.6');
  assert.is(f.find((x) => x.param === 'size')!.description, 'contracts per quote (contracts)');
  assert.equal(
    f.map((x) => x.unit),
    ['contracts', '', 'contracts', 'ms'],
  );
});

test('the built-in: its older request fields under their own names, use_ml left to useML, an exclusive bound kept', () => {
  const f = paramFields(builtin);
  const byParam = Object.fromEntries(f.map((x) => [x.param, x.field]));
  assert.equal(byParam, {
    order_size: 'params.order_size',
    spread_multiplier: 'spreadMultiplier',
    skew_factor: 'skewFactor',
    inventory_limit: 'inventoryLimit',
    vol_spread_factor: 'params.vol_spread_factor',
    ml_weight: 'params.ml_weight',
  });
  const spread = f.find((x) => x.param === 'spread_multiplier')!;
  assert.is(spread.exclusiveMin, true);
  assert.is(rangeText(spread), '> 0 … 100');
  // The same parameter never twice: no field is both an older name and params.NAME.
  assert.equal(new Set(f.map((x) => x.param)).size, f.length);
});

test('the unit: the last parenthesised group of the description, nested parentheses included', () => {
  assert.equal(
    paramFields(builtin).map((x) => [x.param, x.unit]),
    [
      ['order_size', 'contracts'],
      ['spread_multiplier', ''],
      ['skew_factor', ''],
      ['inventory_limit', 'contracts'],
      ['vol_spread_factor', 'ticks per tick/sqrt(s)'],
      ['ml_weight', 'ticks per predicted tick'],
    ],
  );
  assert.is(unitOf('a (b'), '');
  assert.is(unitOf('f(x)'), '');
  assert.is(unitOf('no unit'), '');
});

test('a boolean parameter is a boolean field with its default', () => {
  const s: StrategyInfo = {
    ...example,
    name: 'b',
    params: { type: 'object', properties: { hedge: { type: 'boolean', default: true, description: 'hedge' } } },
  };
  const [f] = paramFields(s);
  assert.equal([f.field, f.type, f.default, rangeText(f)], ['params.hedge', 'boolean', true, 'true or false']);
});

test("sweep axes: the strategy's parameters, then the keys any strategy may vary", () => {
  assert.equal(sweepAxes(example), [
    'params.size',
    'params.threshold',
    'params.max_position',
    'params.refresh_ms',
    'positionLimit',
    'maxDrawdown',
    'queueModel',
    'queuePower',
    'useML',
  ]);
  // The built-in keeps the keys the form offered before strategies were a port.
  assert.equal(sweepAxes(builtin), [
    'spreadMultiplier',
    'skewFactor',
    'inventoryLimit',
    'useML',
    'orderSize',
    'mlWeight',
    'volSpreadFactor',
    'positionLimit',
    'maxDrawdown',
    'queueModel',
    'queuePower',
  ]);
  assert.equal(sweepAxes(null), ['positionLimit', 'maxDrawdown', 'queueModel', 'queuePower', 'useML']);
});

test.run();
