// The synthetic market's daily price path (src/market/daily-path.ts), from the path alone (no
// intraday events): over a year of sessions the overnight gaps follow the distribution the
// profile states (docs/synthetic-market.md), none of ES's is above 3 %, closes stay in the
// contract's range, and the path depends only on (root, seed).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dailyPath } from '../../../src/market/daily-path.ts';
import { CONTRACTS, contractForRoot } from '../../../src/market/instruments.ts';
import { ES_PROFILE, profileFor } from '../../../src/market/profiles.ts';

const ES = contractForRoot('ES');

/** Standard normal CDF (Abramowitz & Stegun 7.1.26 for erf, |error| < 1.5e-7). */
function phi(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** The stated gap distribution's CDF: N(0, gapSd^2) with 1 - gapJumpProb, N(0, gapJumpSd^2) with gapJumpProb. */
function gapCdf(x: number, p: { gapSd: number; gapJumpProb: number; gapJumpSd: number }): number {
  return (1 - p.gapJumpProb) * phi(x / p.gapSd) + p.gapJumpProb * phi(x / p.gapJumpSd);
}

/** Kolmogorov-Smirnov distance between the sample and a CDF. */
function ksDistance(sample: number[], cdf: (x: number) => number): number {
  const xs = [...sample].sort((a, b) => a - b);
  let d = 0;
  xs.forEach((x, i) => {
    const f = cdf(x);
    d = Math.max(d, Math.abs(f - i / xs.length), Math.abs((i + 1) / xs.length - f));
  });
  return d;
}

/** The overnight gaps (log open / previous close) of the trading days of `year`, from the path's prices. */
function yearGaps(path: ReturnType<typeof dailyPath>, year: string): number[] {
  const out: number[] = [];
  path.dates.forEach((d, i) => {
    if (i > 0 && d.startsWith(year)) out.push(Math.log(path.openTicks[i] / path.closeTicks[i - 1]));
  });
  return out;
}

test('ES: a year of overnight gaps follows the stated mixture (KS at the 0.1 % level), none above 3 %', () => {
  const p = profileFor(ES);
  const statedSd = Math.sqrt((1 - p.gapJumpProb) * p.gapSd ** 2 + p.gapJumpProb * p.gapJumpSd ** 2);
  for (const seed of [1, 7, 42, 1234, 99_999]) {
    const gaps = yearGaps(dailyPath(ES, p, seed), '2024');
    assert.is(gaps.length, 252, 'the 2024 CME calendar has 252 sessions');
    // Critical value of the one-sample KS test at alpha = 0.001: 1.95 / sqrt(n).
    const d = ksDistance(gaps, (x) => gapCdf(x, p));
    assert.ok(d < 1.95 / Math.sqrt(gaps.length), `seed ${seed}: KS distance ${d}`);
    const sd = Math.sqrt(gaps.reduce((a, g) => a + g * g, 0) / gaps.length);
    assert.ok(Math.abs(sd / statedSd - 1) < 0.3, `seed ${seed}: gap sd ${sd} vs stated ${statedSd}`);
    const worst = Math.max(...gaps.map(Math.abs));
    assert.ok(worst < 0.03, `seed ${seed}: an overnight gap of ${(worst * 100).toFixed(2)} %`);
  }
});

test('the KS check can fail: gaps twice the stated size are rejected', () => {
  const p = profileFor(ES);
  const wide = dailyPath(ES, { ...p, gapSd: 2 * p.gapSd, gapJumpSd: 2 * p.gapJumpSd }, 42);
  const gaps = yearGaps(wide, '2024');
  assert.ok(ksDistance(gaps, (x) => gapCdf(x, p)) > 1.95 / Math.sqrt(gaps.length));
});

test('gaps are the only jumps: each open is the previous close times exp(gap), closes stay in the price range', () => {
  for (const root of Object.keys(CONTRACTS)) {
    const spec = contractForRoot(root);
    const path = dailyPath(spec, profileFor(spec), 3);
    for (let i = 1; i < path.dates.length; i++) {
      const want = path.closeTicks[i - 1] * Math.exp(path.gap[i]);
      assert.ok(Math.abs(path.openTicks[i] / want - 1) < 1e-12, `${root} ${path.dates[i]}`);
      const close = path.closeTicks[i] * spec.tickSize;
      assert.ok(close >= spec.typicalLow * (1 - 1e-12) && close <= spec.typicalHigh * (1 + 1e-12), `${root} ${path.dates[i]} closes at ${close}`);
    }
  }
});

test('the gap scale follows the root: NQ (18 % a year) gaps wider than ES (14.5 %) by that ratio', () => {
  const nq = profileFor(contractForRoot('NQ'));
  const es = profileFor(ES);
  assert.ok(Math.abs(nq.gapSd / es.gapSd - 0.18 / 0.145) < 1e-12);
  assert.ok(Math.abs(nq.gapJumpSd / es.gapJumpSd - 0.18 / 0.145) < 1e-12);
});

test('the path depends only on (root, seed): the same object for the same inputs, other values for another seed', () => {
  const p = profileFor(ES);
  const a = dailyPath(ES, p, 42);
  assert.is(dailyPath(ES, { ...p }, 42), a);
  const i = a.dayIndex('2024-03-15');
  const fresh = dailyPath(ES, { ...p, pathReversionDays: p.pathReversionDays * (1 + 1e-15) }, 42);
  assert.is.not(fresh, a);
  assert.is(fresh.gap[i], a.gap[i], 'the gaps do not depend on the reversion');
  assert.is.not(dailyPath(ES, p, 43).openTicks[i], a.openTicks[i]);
  assert.is(ES_PROFILE.continuousPath, true, 'the default market is one path across days');
});

test('a date without a session is refused with the date in the message', () => {
  const path = dailyPath(ES, profileFor(ES), 42);
  assert.throws(() => path.dayIndex('2024-01-06'), /2024-01-06: no trading day/);
  assert.throws(() => path.dayIndex('2040-01-03'), /2040-01-03/);
});

test.run();
