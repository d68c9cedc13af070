// The dashboard's sweep views without a browser: the grid values typed in the form, sorting the
// table by any column, and the heatmap matrix (best value over the other parameters).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { colourScale, heatmap, parseValues, rankOrder, sortPoints, type SweepPoint, untradedNote } from '../../../src/dashboard/web/sweep-model.ts';

const mk = (a: number, b: number, c: number, pnl: number, dd: number, mk1s: number | null, fills = 10, tripped = false): SweepPoint => ({
  params: { spreadMultiplier: a, skewFactor: b, inventoryLimit: c },
  result: {
    sessions: 1,
    total_pnl: pnl,
    sharpe_ratio: pnl / 100,
    max_drawdown_pct: dd,
    total_fills: fills,
    fees: 1,
    markouts: { '1s': { fills_qty: 1, avg_ticks: mk1s, avg_usd_per_contract: null } },
    kill_switch_tripped: tripped,
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
  assert.equal(
    h.cells,
    [
      [-50, 30],
      [20, 45],
    ],
    '(2, 0.5): the better of 30 and 45',
  );
  assert.is(h.min, -50);
  assert.is(h.max, 45);
  const dd = heatmap(POINTS, 'spreadMultiplier', 'skewFactor', 'max_drawdown_pct');
  assert.equal(dd.cells[1][1], 0.5, 'drawdown: lower is better');
  const sparse = heatmap(POINTS.slice(0, 3), 'spreadMultiplier', 'skewFactor', 'total_pnl');
  assert.equal(
    sparse.cells,
    [
      [-50, 30],
      [20, null],
    ],
    'a pair with no point is empty',
  );
});

/** Hue of an hsl() colour. */
const hue = (c: string) => Number(/^hsl\((\d+) /.exec(c)![1]);
const light = (c: string) => Number(/ (\d+)%\)$/.exec(c)![1]);

test('colours are anchored at zero: every loss is red, every gain green, equal depth at equal distance', () => {
  // The grid: four losing points, $30.7k to $61.1k lost: none may look like a gain.
  const losses = [-30_700, -45_000, -52_000, -61_100];
  const sc = colourScale('total_pnl', losses);
  assert.is(sc.kind, 'diverging');
  assert.equal([sc.lo, sc.hi], [-61_100, 61_100]);
  for (const v of losses) assert.is(hue(sc.colour(v)), 0, `${v} is red`);
  assert.ok(light(sc.colour(-61_100)) > light(sc.colour(-30_700)), 'the larger loss is the deeper red');
  const both = colourScale('total_pnl', [-100, 50, 100]);
  assert.is(hue(both.colour(50)), 120);
  assert.is(light(both.colour(100)), light(both.colour(-100)));
  // Drawdown and fees: one hue from 0 (larger is worse); fills: another hue.
  const dd = colourScale('max_drawdown_pct', [1, 4]);
  assert.equal([dd.kind, dd.lo, dd.hi], ['sequential', 0, 4]);
  assert.is(hue(dd.colour(1)), hue(dd.colour(4)));
});

test('points that never traded rank apart; the heatmap prefers a traded point; "N of M points never traded"', () => {
  const pts = [mk(1, 0, 5, -50, 2, 0.1), mk(1.5, 0, 5, 0, 0, null, 0), mk(2, 0, 5, 0, 0, null, 0), mk(1, 0.5, 5, -10, 1, 0.2, 8, true)];
  assert.equal(rankOrder(pts.map((p) => p.result)), [3, 0, 1, 2], 'the losing points that traded first, then the two with no fill');
  assert.is(untradedNote(pts.map((p) => p.result)), '2 of 4 points never traded');
  assert.is(untradedNote(POINTS.map((p) => p.result)), '');
  // (x 1, y 0) has a loser that traded and (with another inventoryLimit) a point with no fill: the loser shows.
  const h = heatmap([mk(1, 0, 5, -50, 2, 0.1), mk(1, 0, 10, 0, 0, null, 0)], 'spreadMultiplier', 'skewFactor', 'total_pnl');
  assert.equal(h.cells, [[-50]]);
  assert.equal(h.points, [[0]]);
  const only = heatmap([mk(3, 0, 5, 0, 0, null, 0)], 'spreadMultiplier', 'skewFactor', 'total_pnl');
  assert.equal(only.points, [[0]], 'a pair where nothing traded shows its untraded point');
});

test.run();
