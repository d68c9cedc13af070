// The fixed inputs of the suite, recorded once per run from the synthetic market (seeded, so
// every run and every implementation sees exactly the same events):
// - an ES session's market events (EV_STRIDE records) for the pipeline benchmarks, replayed
//   through runSession's hooks.source so that generation is not part of the measured time;
// - for the order-book comparison, the same kind of stream plus, per event, the absolute size of
//   the level after it (what ccxt's and tardis-dev's books take; DenseBook takes the change).

import type { EngineConfig } from '../src/config/schema.ts';
import { loadConfig } from '../src/config/load.ts';
import { EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, MD_ADD } from '../src/core/events.ts';
import { RecordRing } from '../src/core/ring.ts';
import { DenseBook } from '../src/book/dense-book.ts';
import { MarketGenerator } from '../src/market/generator.ts';
import type { MarketProfile } from '../src/market/market-profile.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { recordMarket } from '../src/market/replay-source.ts';
import { requestModel, sessionSpecs, validateBacktestRequest, type ResolvedRequest } from '../src/backtest/request.ts';
import type { SessionSpec } from '../src/backtest/session-spec.ts';
import type { ModelFile } from '../src/ml/inference/model.ts';

export const BENCH_ROOT = 'ES';
export const BENCH_DATE = '2024-01-02';
export const BENCH_SEED = 42;

export interface Recording {
  events: Float64Array;
  count: number;
}

/** The shipped config (a deep copy, so a benchmark may change it). */
export function shippedConfig(): EngineConfig {
  return structuredClone(loadConfig({ path: undefined, env: {} }).config);
}

/**
 * The config of every pipeline measurement: the shipped one with the kill switch off and the
 * drawdown limit at 100 %, so the strategy trades from the first event to the last. With the
 * shipped limits, the bench's session (ES 2024-01-02, seed 42) trips the account's 6 % drawdown
 * kill switch after 73 % of its events, and the events after it cost less (no orders to keep,
 * none at the exchange; docs/performance-archive.md, round five, has the figures). A pipeline figure
 * should not owe part of its speed to the strategy having stopped.
 */
export function benchConfig(): EngineConfig {
  const c = shippedConfig();
  c.risk.enable_kill_switch = false;
  c.risk.max_drawdown_pct = 1;
  return c;
}

/** A validated backtest request for `days` business days from BENCH_DATE (the config's strategy unless one is named), with its session specs. */
export function benchRequest(
  config: EngineConfig,
  o: { useML: boolean; endDate?: string; strategy?: string },
): { req: ResolvedRequest; specs: SessionSpec[]; model: ModelFile | null } {
  const v = validateBacktestRequest(
    {
      symbol: BENCH_ROOT,
      startDate: BENCH_DATE,
      endDate: o.endDate ?? BENCH_DATE,
      useML: o.useML,
      seed: BENCH_SEED,
      ...(o.strategy ? { strategy: o.strategy } : {}),
    },
    config,
  );
  if (!v.ok) throw new Error(`bench request: ${v.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  const model = requestModel(v.request, config);
  return { req: v.request, specs: sessionSpecs(v.request, config, false, model), model };
}

/** Records up to maxEvents market events of one session (from its spec) with MarketGenerator (profile: overrides, e.g. NEUTRAL_MARKET). */
export function recordSession(spec: SessionSpec, maxEvents: number, profile?: Partial<MarketProfile>): Recording {
  const gen = new MarketGenerator(contractForRoot(spec.root), spec.date, spec.seed, {
    sessionStartNs: spec.sessionStartNs,
    sessionEndNs: spec.sessionEndNs,
    activity: spec.activity,
    profile,
  });
  return recordMarket(gen, RecordRing.allocate(EV_STRIDE, 1 << 16, false), maxEvents);
}

export interface BookStream extends Recording {
  /** Absolute size of the changed level after each event (0 = level removed). */
  sizes: Float64Array;
}

/** `count` events of an ES session, with the absolute level size after each one. */
export function recordBookStream(spec: SessionSpec, count: number): BookStream {
  const rec = recordSession(spec, count);
  const sizes = new Float64Array(rec.count);
  const book = new DenseBook(4096);
  const e = rec.events;
  for (let i = 0, o = 0; i < rec.count; i++, o += EV_STRIDE) {
    const side = e[o + EV_SIDE];
    const price = e[o + EV_PRICE];
    book.update(side, price, e[o + EV_KIND] === MD_ADD ? e[o + EV_QTY] : -e[o + EV_QTY]);
    sizes[i] = book.size(side, price);
  }
  if (book.outOfRange !== 0) throw new Error(`book stream: ${book.outOfRange} updates fell outside the reference book`);
  return { ...rec, sizes };
}
