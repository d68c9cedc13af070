// Sweep plans: every point validated before anything runs, with the same bounds as one request;
// errors name the sweep key and the value; config-only keys change the point's config; holdout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FieldError } from '../../../src/wire/error.ts';
import { defaultConfig } from '../../../src/config/schema.ts';
import { parseGrid, type SweepAxis } from '../../../src/sweep/grid.ts';
import { type PlannedPoint, holdoutSplit, planSweep } from '../../../src/sweep/plan.ts';
import { prepareSweep } from '../../../src/sweep/sweep.ts';

const config = defaultConfig();
const BASE = { symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-05' };

function axes(...args: string[]): SweepAxis[] {
  const g = parseGrid(args);
  if (!g.ok) assert.unreachable(g.error);
  return (g as { ok: true; value: SweepAxis[] }).value;
}
function planned(...args: string[]): PlannedPoint[] {
  const p = planSweep(BASE, axes(...args), config, 'key');
  if (!p.ok) assert.unreachable(JSON.stringify(p.errors));
  return (p as { ok: true; points: PlannedPoint[] }).points;
}
function errors(naming: 'key' | 'name', ...args: string[]): FieldError[] {
  const p = planSweep(BASE, axes(...args), config, naming);
  if (p.ok) assert.unreachable(`${args.join(' ')} should fail`);
  return (p as { ok: false; errors: FieldError[] }).errors;
}

test("request keys set the request; config-only keys set the point's config", () => {
  const pts = planned('spread_multiplier=1.5,2', 'order_size=2', 'queue_model=risk_averse');
  assert.is(pts.length, 2);
  assert.equal(
    pts.map((p) => p.index),
    [0, 1],
  );
  assert.equal(pts[1].params, { spread_multiplier: 2, order_size: 2, queue_model: 'risk_averse' });
  assert.is(pts[0].request.spreadMultiplier, 1.5);
  assert.is(pts[1].request.spreadMultiplier, 2);
  assert.is(pts[0].config.strategy.order_size, 2);
  assert.is(pts[0].config.execution.queue_model, 'risk_averse');
  assert.is(config.strategy.order_size, 1, 'the base config is untouched');
  assert.is(pts[0].request.dates.length, 4);
});

test('a value out of bounds names the key and the value (config key on the CLI, camelCase over HTTP)', () => {
  const e = errors('key', 'spread_multiplier=1,0');
  assert.equal(
    e.map((x) => x.field),
    ['spread_multiplier'],
  );
  assert.match(e[0].message, /expected a number > 0, got 0/);
  const h = errors('name', 'spreadMultiplier=1,0');
  assert.is(h[0].field, 'spreadMultiplier');
  const c = errors('key', 'order_size=0');
  assert.is(c[0].field, 'order_size');
  assert.match(c[0].message, /^0: expected an integer >= 1/);
  const q = errors('key', 'queue_model=fifo-ish');
  assert.is(q[0].field, 'queue_model');
  assert.match(q[0].message, /"fifo-ish"/);
  const d = errors('key', 'max_drawdown_pct=0.05,2,3');
  assert.is(d.length, 2, 'one error per refused value');
  assert.match(d[1].message, /got 3/);
});

test('the holdout takes the last N trading days; the ranking the ones before', () => {
  const p = prepareSweep({ base: BASE, axes: axes('skew_factor=0,1'), naming: 'key', holdoutDays: 1 }, config);
  assert.ok(p.ok);
  const s = (p as Extract<typeof p, { ok: true }>).sweep;
  assert.equal(s.points[0].request.dates, ['2024-01-02', '2024-01-03', '2024-01-04']);
  assert.equal(s.holdout?.range, ['2024-01-05', '2024-01-05']);
  assert.equal(s.holdout?.points[1].request.dates, ['2024-01-05']);
  const whole = planned('skew_factor=0')[0].request;
  const bad = holdoutSplit(whole, 4);
  assert.ok(!bad.ok);
  assert.match((bad as { error: string }).error, /4 holdout days leave no session to rank on: 2024-01-02\.\.2024-01-05 has 4 trading days/);
});

test.run();
