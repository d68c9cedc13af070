// Without the model the engine keeps no book of its own: the driver hands it the touch the
// exchange's book had after each event (Trader's feed 'top'), and takes the common event in its
// loop, a run at a time (Trader.quietBounds, takeQuiet), moving only the clocks and the counts.
// Both must change nothing: a session must give, to the last bit, the result of the engine
// applying every event to its own book and running all of onMarketTop on it (feed 'events', as
// with the model), and the same with taps watching each event (then each quiet event is handed
// over on its own, so that a tap sees the engine as it is after that event).
import { marketMakerSetup } from '../../../src/strategy/builtin/market-maker.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EngineConfig } from '../../../src/config/schema.ts';
import { sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runSession } from '../../../src/backtest/session.ts';
import type { SessionSpec } from '../../../src/backtest/session-spec.ts';
import { Trader } from '../../../src/trading/trader.ts';
import { latencyParams, riskLimits } from '../../../src/config/derive.ts';
import { quoteParams } from '../../../src/strategy/setup.ts';
import { OM_STRIDE } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { seededLatency } from '../../../src/exchange/venue.ts';
import { parseClock } from '../../../src/market/calendar.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

function spec(mut: (c: EngineConfig) => void, body: Record<string, unknown> = {}): SessionSpec {
  const c = shippedConfigNoModel();
  c.simulation.session_start = '09:30';
  c.simulation.session_end = '10:30';
  mut(c);
  const v = validateBacktestRequest({ symbol: 'ES', ...body }, c);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return { ...sessionSpecs(v.request, c, false)[0], collectFills: true };
}

/** A result as text, every double exact (typed arrays as arrays, NaN kept). */
const exact = (r: object) => JSON.stringify(r, (_k, v) => (v instanceof Float64Array ? Array.from(v, (x) => (x === x ? x : 'NaN')) : v));

/** Equal results, or a failure that shows where they part (the texts run to megabytes: no full diff). */
function assertSameResult(actual: object, expected: object): void {
  const a = exact(actual);
  const b = exact(expected);
  if (a === b) return;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  assert.unreachable(`results differ at character ${i}: ...${a.slice(Math.max(0, i - 120), i + 80)} against ...${b.slice(Math.max(0, i - 120), i + 80)}`);
}

/** Runs `f`, counting the events the engine took through all of onMarketTop. */
function countingFullEvents<T>(f: () => T): { result: T; full: number } {
  const proto = Trader.prototype as unknown as { onMarketTop: (...a: unknown[]) => void };
  const orig = proto.onMarketTop;
  let full = 0;
  proto.onMarketTop = function (this: Trader, ...a: unknown[]) {
    full++;
    return orig.apply(this, a);
  };
  try {
    return { result: f(), full };
  } finally {
    proto.onMarketTop = orig;
  }
}

const cases: [string, SessionSpec][] = [
  ['the shipped settings', spec(() => {})],
  ['another seed and NQ', spec(() => {}, { symbol: 'NQ', seed: 7 })],
  ['no jitter', spec((c) => (c.latency.jitter_ns = 0), { seed: 3 })],
  // A trip cancels everything and stops quoting: no event may stay quiet past it.
  ['the kill switch tripping early', spec((c) => (c.risk.max_daily_loss = 50), { seed: 5 })],
  // Markout and equity samples fall due between quiet events: each must still run at its event.
  ['a long session, the reduce-only window at its end', spec((c) => (c.simulation.session_end = '16:00'), { seed: 11 })],
];

for (const [name, s] of cases) {
  test(`feed 'top' gives the result of the engine's own book: ${name}`, () => {
    const own = runSession(s, { engineFeed: 'events' });
    const { result: fed, full } = countingFullEvents(() => runSession(s));
    assertSameResult(fed, own);
    let calls = 0;
    let stale = 0;
    const marketDataDone = (_d: Float64Array, _o: number, e: Trader) => {
      calls++;
      if (e.eventsProcessed !== calls) stale++;
    };
    const watched = runSession(s, { taps: { marketDataDone } });
    assert.is(calls, fed.eventsProcessed, 'the tap saw every event');
    assert.is(stale, 0, 'the tap saw each event counted by the engine');
    assertSameResult(watched, own);
    assert.ok(fed.eventsProcessed > 50_000, `a busy session (${fed.eventsProcessed} events)`);
    if (!fed.killSwitch.tripped) {
      assert.ok(fed.fills > 50, `the session trades (${fed.fills} fills)`);
      // Most events must take the quiet path, or this test compares the full path with itself.
      assert.ok(full < fed.eventsProcessed / 2, `${fed.eventsProcessed - full} of ${fed.eventsProcessed} events quiet`);
    }
  });
}

test("feed 'top' needs the volatility scope: the other features read the levels below the touch", () => {
  const config = shippedConfigNoModel();
  const options = {
    spec: contractForRoot('ES'),
    initialCapital: config.trading.initial_capital,
    limits: riskLimits(config),
    strategy: marketMakerSetup(quoteParams(config)),
    latency: seededLatency(latencyParams(config), 7),
    orders: RecordRing.allocate(OM_STRIDE, 64, false),
    sessionStartNs: parseClock('09:30')!,
    sessionEndNs: parseClock('16:00')!,
    flattenMinutes: config.strategy.flatten_minutes,
    predictor: null,
    feed: 'top' as const,
  };
  assert.throws(() => new Trader({ ...options, featureScope: 'all' }), /feed 'top' needs featureScope 'volatility'/);
  assert.is(new Trader({ ...options, featureScope: 'volatility' }).feed, 'top');
});

test.run();
