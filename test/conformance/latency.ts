// The latency port's conformance suite (src/exchange/latency.ts, `LatencyModel`): what every latency
// model must hold. Each of the three legs gives a whole number of nanoseconds >= 0 for a message
// sent at at[i], within the base and jitter it was built with, reads its send time without
// writing it, and gives the same sequence for the same seed (a backtest replays bit for bit).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LatencyModel, LatencyParams } from '../../src/exchange/latency.ts';

/** Makes a model with these parameters whose random draws come from `seed`. */
export type LatencyFactory = (p: LatencyParams, seed: number) => LatencyModel;

const LEGS = ['orderEntry', 'marketData', 'response'] as const;
type Leg = (typeof LEGS)[number];
const BASE: Record<Leg, keyof LatencyParams> = { orderEntry: 'orderLatencyNs', marketData: 'marketDataLatencyNs', response: 'responseLatencyNs' };

const PARAMS: Record<string, LatencyParams> = {
  'no jitter': { orderLatencyNs: 100_000, marketDataLatencyNs: 50_000, responseLatencyNs: 80_000, jitterNs: 0 },
  'the shipped config': { orderLatencyNs: 100_000, marketDataLatencyNs: 50_000, responseLatencyNs: 100_000, jitterNs: 10_000 },
  'jitter above a base': { orderLatencyNs: 5_000, marketDataLatencyNs: 0, responseLatencyNs: 1, jitterNs: 20_000 },
  'all zero': { orderLatencyNs: 0, marketDataLatencyNs: 0, responseLatencyNs: 0, jitterNs: 0 },
};

/** `n` samples of each leg, interleaved as a session asks for them, at increasing send times. */
function samples(m: LatencyModel, n: number): Record<Leg, number[]> {
  const out: Record<Leg, number[]> = { orderEntry: [], marketData: [], response: [] };
  const at = new Float64Array(4);
  for (let k = 0; k < n; k++) {
    for (const leg of LEGS) {
      at[2] = 34_200e9 + k * 1e6;
      const before = at[2];
      out[leg].push(m[leg](at, 2));
      assert.is(at[2], before, `${leg}() wrote its send time`);
    }
  }
  return out;
}

/** Runs the port's contract against one latency model. */
export function describeLatency(name: string, make: LatencyFactory): void {
  for (const [label, p] of Object.entries(PARAMS)) {
    test(`latency ${name}, ${label}: every leg a whole number of ns >= 0 within base ± jitter`, () => {
      const s = samples(make(p, 7), 5000);
      for (const leg of LEGS) {
        const base = p[BASE[leg]];
        const lo = Math.max(0, base - p.jitterNs),
          hi = base + p.jitterNs;
        const bad = s[leg].filter((v) => !Number.isInteger(v) || v < lo || v > hi);
        assert.equal(bad.slice(0, 5), [], `${leg}: samples outside [${lo}, ${hi}]`);
        if (p.jitterNs === 0)
          assert.ok(
            s[leg].every((v) => v === base),
            `${leg}: no jitter gives the base every time`,
          );
        // Jitter spreads the samples over the band rather than sticking to one value.
        else assert.ok(new Set(s[leg]).size > 100, `${leg}: ${new Set(s[leg]).size} distinct samples of 5000 with jitter ${p.jitterNs}`);
      }
    });
  }

  test(`latency ${name}: the same seed gives the same samples, another seed others`, () => {
    const p = PARAMS['the shipped config'];
    assert.equal(samples(make(p, 11), 3000), samples(make(p, 11), 3000));
    assert.not.equal(samples(make(p, 11), 3000), samples(make(p, 12), 3000));
  });

  test(`latency ${name}: a negative or non-finite parameter is refused, naming it`, () => {
    for (const key of ['orderLatencyNs', 'marketDataLatencyNs', 'responseLatencyNs', 'jitterNs'] as const) {
      for (const v of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
        assert.throws(
          () => make({ ...PARAMS['no jitter'], [key]: v }, 1),
          (e: unknown) => e instanceof Error && e.message.includes(key),
          `${key} = ${v}`,
        );
      }
    }
  });
}
