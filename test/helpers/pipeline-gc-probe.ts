// The measurement of pipeline-allocation.test.ts, run in a process of its own: the JIT's type
// feedback there is that of a backtest worker, which runs only sessions, not that left by the
// other test files of the suite (which share one process and call the same classes with other
// shapes, so that their optimised code can differ). Prints one JSON line.
//   node --import tsx test/helpers/pipeline-gc-probe.ts plain|model|recording|allocating
import { measureAllocation } from './allocation.ts';
import { OL_STRIDE } from '../../src/backtest/order-log.ts';
import { EV_STRIDE } from '../../src/core/events.ts';
import { RecordRing } from '../../src/core/ring.ts';
import { loadConfig } from '../../src/config/load.ts';
import { requestModel, sessionSpecs, validateBacktestRequest } from '../../src/backtest/request.ts';
import { ReplaySource, recordMarket } from '../../src/market/replay-source.ts';
import { runSession } from '../../src/backtest/session.ts';
import type { SessionResult, SessionSpec } from '../../src/backtest/session-spec.ts';
import { MarketGenerator } from '../../src/market/generator.ts';
import { contractForRoot } from '../../src/market/instruments.ts';

const EVENTS = 1_000_000;

/** The shipped config's ES session of 2024-01-02 (seed 42), as a backtest request would run it. */
function spec(useML: boolean, collectFills: boolean): SessionSpec {
  const { config } = loadConfig({ path: undefined, env: {} });
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-02', useML, seed: 42 }, config);
  if (!v.ok) throw new Error(v.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  return sessionSpecs(v.request, config, collectFills, requestModel(v.request, config))[0];
}

const mode = process.argv[2];
// With the model, also with what a research run records (fill columns, quote samples);
// 'recording': without it, with everything --fills/--orders/--quotes record.
const s =
  mode === 'model' ? spec(true, true) : mode === 'recording' ? { ...spec(false, true), record: { orders: true, quotePositions: true } } : spec(false, false);
// The events from 10:30, past the opening spike, whose first million events span only minutes:
// from there they span enough of the market's moves for thousands of fills.
const gen = new MarketGenerator(contractForRoot(s.root), s.date, s.seed, {
  sessionStartNs: s.sessionStartNs + 3600e9,
  sessionEndNs: s.sessionEndNs,
  activity: s.activity,
});
const rec = recordMarket(gen, RecordRing.allocate(EV_STRIDE, 1 << 16, false), EVENTS);
const run = (): SessionResult => runSession(s, { source: new ReplaySource(rec.events, EVENTS) });

let result: SessionResult | null = null;
let gcs: number;
if (mode === 'allocating') {
  // The same session with an observer that keeps one small object per market event: what a
  // boxed double per event would be. It must show as GCs, or the measurement proves nothing.
  let sink: { ts: number } | null = null;
  const m = await measureAllocation(() => {
    result = runSession(s, { source: new ReplaySource(rec.events, EVENTS), taps: { marketData: (d, off) => (sink = { ts: d[off] }) } });
  });
  if (sink === null) throw new Error('the tap never ran');
  gcs = m.gcs;
} else {
  // Warm up on the same events (every path taken and optimised, as in a long backtest: a path
  // first taken late deoptimises the code, which then boxes doubles until it is optimised
  // again), then run a whole session and count the GCs that start while it runs. The session's
  // set-up and result are inside the measurement too: they are allocated once, and small.
  // The warm-up also runs the other kind of session (with the model if this one runs without,
  // and the reverse), as a backtest pool worker does that has served both kinds of request: the
  // shared classes' type feedback then covers both, and code optimised for both must not box
  // either. Run alone, each kind measured 0 GCs on a build whose engine boxed doubles with the
  // model after a session without it (the bench's order: 4 GCs, 81 B/event).
  const other = mode === 'model' ? spec(false, false) : spec(true, true);
  for (let i = 0; i < 2; i++) {
    runSession(other, { source: new ReplaySource(rec.events, EVENTS) });
    run();
  }
  await new Promise((r) => setTimeout(r, 100)); // let the concurrent compiler install its code
  gcs = (await measureAllocation(() => (result = run()), { scavengeFirst: true, attempts: 3 })).gcs;
}
const r = result as unknown as SessionResult;
console.log(
  JSON.stringify({
    gcs,
    eventsProcessed: r.eventsProcessed,
    fills: r.fills,
    ordersSent: r.ordersSent,
    markoutQty: r.markouts.qty[0],
    predictions: r.predictions,
    quoteSamples: r.quotes === null ? 0 : r.quotes.times.length,
    orderLogRows: r.orderLog === undefined ? 0 : r.orderLog.length / OL_STRIDE,
  }),
);
