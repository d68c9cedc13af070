// FeatureExtractor's scope 'volatility' (what a backtest without the model computes): the same
// volatility and mid as scope 'all', to the bit, after every event of a recorded session; the
// features it does not compute refuse to be read instead of returning stale numbers; an engine
// with a model cannot be built with it.
import { marketMakerSetup, quoteParamsOf } from '../../../src/strategy/builtin/market-maker.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DenseBook } from '../../../src/book/dense-book.ts';
import { FeatureExtractor } from '../../../src/book/features.ts';
import { EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, OM_STRIDE } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { Rng } from '../../../src/core/rng.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { requestModel, sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { ReplaySource } from '../../../src/market/replay-source.ts';
import { predictorForSpec, runSession } from '../../../src/backtest/session.ts';
import type { SessionSpec } from '../../../src/backtest/session-spec.ts';
import { SeededLatency } from '../../../src/exchange/latency.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { Trader } from '../../../src/trading/trader.ts';
import { recordedStream } from '../../helpers/pipeline-digest.ts';

test("scope 'volatility' gives scope 'all''s volatility and mid after every event", () => {
  const rec = recordedStream();
  const bookAll = new DenseBook(4096),
    bookVol = new DenseBook(4096);
  const all = new FeatureExtractor(),
    vol = new FeatureExtractor({}, 'volatility');
  const e = rec.events;
  let differ = 0;
  for (let i = 0, o = 0; i < rec.count; i++, o += EV_STRIDE) {
    bookAll.apply(e[o + EV_KIND], e[o + EV_SIDE], e[o + EV_PRICE], e[o + EV_QTY]);
    bookVol.apply(e[o + EV_KIND], e[o + EV_SIDE], e[o + EV_PRICE], e[o + EV_QTY]);
    all.onEvent(bookAll.bestBid, bookAll.bestAsk, bookAll, e, o);
    vol.onEvent(bookVol.bestBid, bookVol.bestAsk, bookVol, e, o);
    if (!Object.is(all.volatility, vol.volatility) || !Object.is(all.mid, vol.mid) || all.ready !== vol.ready || all.twoSided !== vol.twoSided) differ++;
  }
  assert.is(rec.count, 300_000);
  assert.is(differ, 0, `${differ} events where the two scopes disagree`);
  assert.is(vol.events, all.events);
});

test("onQuietEvent, where it applies, leaves the state onEvent would; it never applies in scope 'all'", () => {
  const rec = recordedStream();
  const bookA = new DenseBook(4096),
    bookB = new DenseBook(4096);
  const full = new FeatureExtractor({}, 'volatility'),
    quick = new FeatureExtractor({}, 'volatility');
  const all = new FeatureExtractor();
  const state = (x: FeatureExtractor) => (x as unknown as { s: Float64Array }).s;
  const e = rec.events;
  let quiet = 0,
    differ = 0;
  for (let i = 0, o = 0; i < rec.count; i++, o += EV_STRIDE) {
    bookA.apply(e[o + EV_KIND], e[o + EV_SIDE], e[o + EV_PRICE], e[o + EV_QTY]);
    bookB.apply(e[o + EV_KIND], e[o + EV_SIDE], e[o + EV_PRICE], e[o + EV_QTY]);
    full.onEvent(bookA.bestBid, bookA.bestAsk, bookA, e, o);
    if (quick.onQuietEvent(bookB.bestBid, bookB.bestAsk, e, o)) quiet++;
    else quick.onEvent(bookB.bestBid, bookB.bestAsk, bookB, e, o);
    assert.is(all.onQuietEvent(bookA.bestBid, bookA.bestAsk, e, o), false);
    const a = state(full),
      b = state(quick);
    if (a.some((v, k) => !Object.is(v, b[k])) || full.ready !== quick.ready || full.twoSided !== quick.twoSided) differ++;
  }
  assert.is(differ, 0, `${differ} events where the state differs`);
  assert.ok(quiet > rec.count * 0.9, `most events leave the mid where it was: ${quiet} of ${rec.count}`);
});

test("scope 'volatility': every other output throws, naming it", () => {
  const fx = new FeatureExtractor({}, 'volatility');
  for (const name of [
    'microprice',
    'spread',
    'imbalanceL1',
    'imbalanceL5',
    'ofi',
    'ofiNorm',
    'tradeImbalance',
    'vpin',
    'momentum',
    'depthAvg',
    'buyVolume',
    'sellVolume',
    'values',
  ] as const) {
    assert.throws(() => fx[name], new RegExp(`feature ${name} is not computed`), name);
  }
  assert.is(fx.volatility, 1, 'volInit');
  assert.throws(() => new FeatureExtractor({}, 'some' as 'all'), /feature scope must be "all" or "volatility"/);
});

function sessionSpec(useML: boolean): SessionSpec {
  const { config } = loadConfig({ path: undefined, env: {} });
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-02', useML, seed: 42 }, config);
  if (!v.ok) throw new Error(v.errors.map((x) => `${x.field}: ${x.message}`).join('; '));
  return sessionSpecs(v.request, config, false, requestModel(v.request, config))[0];
}

test("an engine with a model refuses scope 'volatility'", () => {
  const spec = sessionSpec(true);
  const make = (featureScope: 'all' | 'volatility') =>
    new Trader({
      spec: contractForRoot('ES'),
      initialCapital: 0,
      limits: spec.limits,
      strategy: marketMakerSetup(quoteParamsOf(spec.strategy.params)),
      latency: new SeededLatency({ orderLatencyNs: 0, marketDataLatencyNs: 0, responseLatencyNs: 0, jitterNs: 0 }, new Rng(1)),
      orders: RecordRing.allocate(OM_STRIDE, 1 << 10, false),
      sessionStartNs: spec.sessionStartNs,
      sessionEndNs: spec.sessionEndNs,
      flattenMinutes: spec.flattenMinutes,
      predictor: predictorForSpec(spec),
      featureScope,
    });
  assert.throws(() => make('volatility'), /featureScope 'volatility' with a predictor/);
  assert.is(make('all').features.scope, 'all');
});

test('a backtest session computes every feature only with the model', () => {
  const rec = recordedStream();
  for (const useML of [false, true]) {
    let scope = '';
    runSession(sessionSpec(useML), {
      source: new ReplaySource(rec.events, 1000),
      taps: { marketDataDone: (_d, _o, engine) => (scope = engine.features.scope) },
    });
    assert.is(scope, useML ? 'all' : 'volatility');
  }
});

test.run();
