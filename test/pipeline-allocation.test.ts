// The whole backtest pipeline allocates nothing per event: runSession over a million recorded
// market events (book, features, markouts, equity and risk checks, strategy, orders, the
// simulated exchange with its latency and queue models, and the driver's four-stream merge),
// with and without the model, runs without a single garbage collection once warmed up.
// Allocation is behaviour here (a GC pause is a latency spike in the live engine); time is not
// measured. Each component has its own allocation-free test; this one catches what only their
// composition allocates, e.g. doubles boxed at the calls between them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { measureAllocation } from './helpers/allocation.ts';
import { beforeAll } from './helpers/hooks.ts';
import { EV_STRIDE } from '../src/core/events.ts';
import { RecordRing } from '../src/core/ring.ts';
import { loadConfig } from '../src/config/load.ts';
import { requestModel, sessionSpecs, validateBacktestRequest } from '../src/backtest/request.ts';
import { ReplaySource, recordMarket } from '../src/backtest/replay-source.ts';
import { runSession, type SessionResult, type SessionSpec } from '../src/backtest/session.ts';
import { MarketGenerator } from '../src/market/generator.ts';
import { contractForRoot } from '../src/market/instruments.ts';

const EVENTS = 1_000_000;

let plain: SessionSpec;
let withModel: SessionSpec;
let rec: { events: Float64Array; count: number };

/** The shipped config's ES session of 2024-01-02 (seed 42), as a backtest request would run it. */
function spec(useML: boolean, collectFills: boolean): SessionSpec {
  const { config } = loadConfig({ path: undefined, env: {} });
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-02', useML, seed: 42 }, config);
  if (!v.ok) throw new Error(v.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  return sessionSpecs(v.request, config, collectFills, requestModel(v.request, config))[0];
}

beforeAll(test, () => {
  plain = spec(false, false);
  // With the model, also with what a research run records (fill columns, quote samples).
  withModel = spec(true, true);
  const gen = new MarketGenerator(contractForRoot(plain.root), plain.date, plain.seed, {
    sessionStartNs: plain.sessionStartNs,
    sessionEndNs: plain.sessionEndNs,
    activity: plain.activity,
  });
  rec = recordMarket(gen, RecordRing.allocate(EV_STRIDE, 1 << 16, false), EVENTS);
});

const run = (s: SessionSpec, events: number): SessionResult => runSession(s, { source: new ReplaySource(rec.events, events) });

/**
 * Warms the pipeline up on the same events (every path taken and optimised, as in a long
 * backtest: a path first taken late deoptimises the code, which then boxes doubles until it is
 * optimised again), then runs a whole session over them and counts the GCs that start while it
 * runs. The session's set-up and result are inside the measurement too: they are allocated
 * once, and small.
 */
async function gcsOfSession(s: SessionSpec): Promise<{ gcs: number; result: SessionResult }> {
  for (let i = 0; i < 2; i++) run(s, EVENTS);
  await new Promise((r) => setTimeout(r, 100)); // let the concurrent compiler install its code
  let result: SessionResult | null = null;
  const m = await measureAllocation(() => (result = run(s, EVENTS)), { scavengeFirst: true, attempts: 3 });
  return { gcs: m.gcs, result: result! };
}

test('a 1M-event backtest session without the model runs with no GC', async () => {
  const { gcs, result } = await gcsOfSession(plain);
  assert.is(result.eventsProcessed, EVENTS);
  assert.ok(result.fills > 1000 && result.ordersSent > 10_000, `the session traded: ${result.fills} fills, ${result.ordersSent} orders`);
  assert.ok(result.markouts.qty[0] > 0, 'markouts resolved');
  assert.is(gcs, 0, `${gcs} garbage collections during the session`);
});

test('a 1M-event backtest session with the model (and fills and quotes recorded) runs with no GC', async () => {
  const { gcs, result } = await gcsOfSession(withModel);
  assert.is(result.eventsProcessed, EVENTS);
  assert.ok(result.predictions > 10_000, `the model ran: ${result.predictions} predictions`);
  assert.ok(result.fills > 0 && result.quotes !== null && result.quotes.times.length > 100, 'fills and quotes recorded');
  assert.is(gcs, 0, `${gcs} garbage collections during the session`);
});

test('the measurement sees a pipeline that allocates per event', async () => {
  // The same session with an observer that keeps one small object per market event: what a
  // boxed double per event would be. It must show as GCs, or the tests above prove nothing.
  let sink: { ts: number } | null = null;
  const m = await measureAllocation(() => {
    runSession(plain, { source: new ReplaySource(rec.events, EVENTS), taps: { marketData: (d, off) => (sink = { ts: d[off] }) } });
  });
  assert.ok(sink !== null);
  assert.ok(m.gcs > 0, `allocating pipeline: ${JSON.stringify(m)}`);
});

test.run();
