// Digests of what the backtest pipeline computes, for test/unit/backtest/pipeline-exact.test.ts: the results of
// a session over the first events of the shipped config's ES session of 2024-01-02 (seed 42),
// with and without the model, and the feature vector at checkpoints of the same stream. SHA-256
// over JSON (which prints every double exactly); Float64Arrays as plain arrays.
import { createHash } from 'node:crypto';
import { DenseBook } from '../../src/book/dense-book.ts';
import { FeatureExtractor } from '../../src/book/features.ts';
import { loadConfig } from '../../src/config/load.ts';
import { EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE } from '../../src/core/events.ts';
import { RecordRing } from '../../src/core/ring.ts';
import { requestModel, sessionSpecs, validateBacktestRequest } from '../../src/backtest/request.ts';
import { ReplaySource, recordMarket } from '../../src/market/replay-source.ts';
import { runSession } from '../../src/backtest/session.ts';
import type { SessionSpec } from '../../src/backtest/session-spec.ts';
import { MarketGenerator } from '../../src/market/generator.ts';
import { contractForRoot } from '../../src/market/instruments.ts';
import type { MarketProfile } from '../../src/market/market-profile.ts';

export const DIGEST_EVENTS = 300_000;

function spec(useML: boolean): SessionSpec {
  const { config } = loadConfig({ path: undefined, env: {} });
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-02', useML, seed: 42 }, config);
  if (!v.ok) throw new Error(v.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  return sessionSpecs(v.request, config, true, requestModel(v.request, config))[0];
}

function sha(value: unknown): string {
  const json = JSON.stringify(value, (_k, v) => (v instanceof Float64Array ? Array.from(v) : v));
  return createHash('sha256').update(json).digest('hex');
}

/**
 * The first DIGEST_EVENTS events of the session from `afterOpenNs` after its open, on the default
 * market or with `profile`'s overrides (e.g. NEUTRAL_MARKET, the market before issue 49).
 */
export function recordedStream(afterOpenNs = 0, profile?: Partial<MarketProfile>): { events: Float64Array; count: number } {
  const s = spec(false);
  const gen = new MarketGenerator(contractForRoot(s.root), s.date, s.seed, {
    sessionStartNs: s.sessionStartNs + afterOpenNs,
    sessionEndNs: s.sessionEndNs,
    activity: s.activity,
    profile,
  });
  return recordMarket(gen, RecordRing.allocate(EV_STRIDE, 1 << 16, false), DIGEST_EVENTS);
}

/** SHA-256 of the session result (fills and quotes recorded) over the recorded stream. */
export function sessionDigest(useML: boolean, rec = recordedStream()): string {
  return sha(runSession(spec(useML), { source: new ReplaySource(rec.events, rec.count) }));
}

/** The feature vector every `every` events of the stream, each read once (optionally: every scalar output after every event too). */
export function featureVectors(every: number, readAlways: boolean, rec = recordedStream()): number[][] {
  const book = new DenseBook(4096);
  const fx = new FeatureExtractor();
  const e = rec.events;
  const out: number[][] = [];
  let sink = 0;
  for (let i = 0, o = 0; i < rec.count; i++, o += EV_STRIDE) {
    book.apply(e[o + EV_KIND], e[o + EV_SIDE], e[o + EV_PRICE], e[o + EV_QTY]);
    fx.onEvent(book.bestBid, book.bestAsk, book, e, o);
    if (readAlways) sink += fx.microprice + fx.imbalanceL1 + fx.imbalanceL5 + fx.ofiNorm + fx.tradeImbalance + fx.momentum + fx.values[0];
    if (i % every === every - 1) out.push(Array.from(fx.values));
  }
  if (!(sink === sink)) throw new Error('a feature output was NaN');
  return out;
}

if (process.argv[2] === 'print') {
  const rec = recordedStream();
  console.log(JSON.stringify({ plain: sessionDigest(false, rec), model: sessionDigest(true, rec), features: sha(featureVectors(50_000, false, rec)) }));
}
