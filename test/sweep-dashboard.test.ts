// The dashboard's sweep views without a browser: the grid values typed in the form, sorting the
// table by any column, and the heatmap matrix (best value over the other parameters).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { heatmap, parseValues, scale, sortPoints, type SweepPoint } from '../src/dashboard/web/sweep-model.ts';

const mk = (a: number, b: number, c: number, pnl: number, dd: number, mk1s: number | null): SweepPoint => ({
  params: { spreadMultiplier: a, skewFactor: b, inventoryLimit: c },
  result: {
    sessions: 1,
    total_pnl: pnl,
    sharpe_ratio: pnl / 100,
    max_drawdown_pct: dd,
    total_fills: 10,
    fees: 1,
    markouts: { '1s': { fills_qty: 1, avg_ticks: mk1s, avg_usd_per_contract: null } },
    kill_switch_tripped: false,
  },
});
const POINTS = [mk(1, 0, 5, -50, 2, 0.1), mk(1, 0.5, 5, 20, 1, null), mk(2, 0, 5, 30, 3, -0.2), mk(2, 0.5, 5, 30, 0.5, 0.3), mk(2, 0.5, 10, 45, 4, 0.0)];

test('form values: numbers, booleans and names, blanks dropped', () => {
  assert.equal(parseValues(' 1, 1.5 ,2,, '), [1, 1.5, 2]);
  assert.equal(parseValues('true,false'), [true, false]);
  assert.equal(parseValues('power, risk_averse'), ['power', 'risk_averse']);
});

test('sorting by a metric or a parameter, either way; ties keep grid order; missing markouts last', () => {
  assert.equal(sortPoints(POINTS, 'total_pnl', true), [4, 2, 3, 1, 0]);
  assert.equal(sortPoints(POINTS, 'total_pnl', false), [0, 1, 2, 3, 4]);
  assert.equal(sortPoints(POINTS, 'max_drawdown_pct', false), [3, 1, 0, 2, 4]);
  assert.equal(sortPoints(POINTS, 'param:skewFactor', true), [1, 3, 4, 0, 2]);
  assert.equal(sortPoints(POINTS, 'markout_1s', true), [3, 0, 4, 2, 1]);
  assert.equal(sortPoints(POINTS, 'markout_1s', false), [2, 4, 0, 3, 1]);
});

test('heatmap: one cell per pair of values, the best over the other parameters', () => {
  const h = heatmap(POINTS, 'spreadMultiplier', 'skewFactor', 'total_pnl');
  assert.equal(h.xs, [1, 2]);
  assert.equal(h.ys, [0, 0.5]);
  assert.equal(h.cells, [[-50, 30], [20, 45]], '(2, 0.5): the better of 30 and 45');
  assert.is(h.min, -50);
  assert.is(h.max, 45);
  const dd = heatmap(POINTS, 'spreadMultiplier', 'skewFactor', 'max_drawdown_pct');
  assert.equal(dd.cells[1][1], 0.5, 'drawdown: lower is better');
  const sparse = heatmap(POINTS.slice(0, 3), 'spreadMultiplier', 'skewFactor', 'total_pnl');
  assert.equal(sparse.cells, [[-50, 30], [20, null]], 'a pair with no point is empty');
  assert.is(scale(45, -50, 45), 1);
  assert.is(scale(3, 3, 3), 0.5);
});

test.run();
