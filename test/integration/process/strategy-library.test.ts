// The strategy library's built-ins beside the market maker: the GLFT closed form and its online
// calibration against hand-computed values, and both new strategies trading on the shipped
// config's default session through the CLI, as a user would run them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fitIntensity, glftQuote, IntensityWindow, MAX_DEPTH } from '../../../src/strategy/builtin/glft-math.ts';
import { strategyByName } from '../../../src/strategy/registry.ts';
import { ensureBuilt } from '../../helpers/build.ts';
import { runCli } from '../../helpers/cli.ts';

const close = (a: number, b: number, tol = 1e-12) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} != ${b}`);

test('GLFT closed form: A = k = sigma = gamma = delta = 1 gives half-spread ln 2 + sqrt(2)/2 and skew sqrt(2)', () => {
  const out = new Float64Array(2);
  // c1 = ln(1 + 1) / 1; c2 = sqrt(1 / 2 * 2^(1 + 1)) = sqrt(2).
  glftQuote(1, 1, 1, 1, 1, out);
  close(out[0], Math.LN2 + Math.SQRT2 / 2);
  close(out[1], Math.SQRT2);
  // Twice the volatility: the same c1, twice the volatility terms.
  glftQuote(1, 1, 2, 1, 1, out);
  close(out[0], Math.LN2 + Math.SQRT2);
  close(out[1], 2 * Math.SQRT2);
});

test('the intensity fit recovers A and k from intervals whose reach halves with each tick of depth', () => {
  const w = new IntensityWindow(10_000);
  // 4096 intervals reach depth >= 1, 2048 depth >= 2, ... 1 depth >= 13: lambda(d) = 8.192 * 2^-d per s.
  for (let d = 1; d <= 12; d++) for (let i = 0; i < 4096 / 2 ** d; i++) w.push(d, 0);
  w.push(13, 0);
  while (w.count < 10_000) w.push(0, 0);
  assert.is(w.reached[1], 4096);
  assert.is(w.reached[13], 1);
  const fit = new Float64Array(2);
  assert.ok(fitIntensity(w, 0.1, 300, fit));
  close(fit[1], Math.LN2, 1e-9);
  close(fit[0], 8.192, 1e-9);
});

test('the fit refuses too few intervals or a single depth (keeping the last fit), and the window forgets its oldest', () => {
  const fit = new Float64Array([7, 0.5]);
  const few = new IntensityWindow(100);
  for (let i = 0; i < 10; i++) few.push(i % 3, 0);
  assert.not.ok(fitIntensity(few, 0.1, 50, fit), 'fewer intervals than min_intervals');
  const flat = new IntensityWindow(100);
  for (let i = 0; i < 100; i++) flat.push(1, 0);
  assert.not.ok(fitIntensity(flat, 0.1, 50, fit), 'one depth only: no slope');
  assert.equal([...fit], [7, 0.5], 'a refused fit leaves the last one');
  const w = new IntensityWindow(4);
  for (const d of [MAX_DEPTH + 5, 1, 1, 1]) w.push(d, 1);
  assert.is(w.reached[MAX_DEPTH], 1, 'depths beyond the deepest count at the deepest');
  w.push(0, 3);
  assert.is(w.reached[2], 0, 'the deep interval left the window');
  assert.is(w.reached[1], 3);
  close(w.moveStd(), Math.sqrt(((1 - 1.5) ** 2 * 3 + (3 - 1.5) ** 2) / 3));
});

test('glft and grid are registered built-ins with bounded parameters', () => {
  for (const name of ['glft', 'grid']) {
    const r = strategyByName(name);
    assert.ok(r, name);
    assert.is(r!.file, null);
    for (const [k, p] of Object.entries(r!.def.params))
      if (p.type !== 'boolean') assert.ok(Number.isFinite(p.min) && Number.isFinite(p.max), `${name}.${k} bounded`);
  }
});

for (const name of ['glft', 'grid']) {
  test(`--strategy ${name} trades on the shipped config's default session; the result names it`, () => {
    ensureBuilt();
    const r = runCli(['--backtest', '--config', 'config/config.toml', '--strategy', name, '--json']);
    assert.is(r.code, 0, r.stderr);
    const res = JSON.parse(r.stdout);
    assert.ok(res.total_fills > 0, `${name} made fills`);
    assert.is(res.total_fills, res.volume, 'one-contract orders');
    assert.is(res.strategy.name, name);
  });
}

test.run();
