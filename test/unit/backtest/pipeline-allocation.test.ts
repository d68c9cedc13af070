// The whole backtest pipeline allocates nothing per event: runSession over a million recorded
// market events (book, features, markouts, equity and risk checks, strategy, orders, the
// simulated exchange with its latency and queue models, and the driver's four-stream merge),
// with and without the model, runs without a single garbage collection once warmed up.
// Allocation is behaviour here (a GC pause is a latency spike in the live engine); time is not
// measured. Each component has its own allocation-free test; this one catches what only their
// composition allocates, e.g. doubles boxed at the calls between them. Measured in a process of
// its own (test/helpers/pipeline-gc-probe.ts): in the suite's shared process, other files' calls
// leave type feedback that a backtest worker never has, and the loop then measured 1-2 GCs. That
// process warms up on both kinds of session, as a pool worker that has served requests with and
// without the model (each kind alone missed doubles boxed only in code optimised for both).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runProbe } from '../../helpers/allocation.ts';

interface Probe {
  gcs: number;
  eventsProcessed: number;
  fills: number;
  ordersSent: number;
  markoutQty: number;
  predictions: number;
  quoteSamples: number;
  orderLogRows: number;
}

/** Runs test/helpers/pipeline-gc-probe.ts in a process of its own (see there why). */
const probe = (mode: 'plain' | 'model' | 'recording' | 'allocating') => runProbe<Probe>('test/helpers/pipeline-gc-probe.ts', [mode]);

test('a 1M-event backtest session without the model runs with no GC', async () => {
  const p = await probe('plain');
  assert.is(p.eventsProcessed, 1_000_000);
  assert.ok(p.fills > 1000 && p.ordersSent > 10_000, `the session traded: ${p.fills} fills, ${p.ordersSent} orders`);
  assert.ok(p.markoutQty > 0, 'markouts resolved');
  assert.is(p.gcs, 0, `${p.gcs} garbage collections during the session`);
});

test('a 1M-event backtest session with the model (and fills and quotes recorded) runs with no GC', async () => {
  const p = await probe('model');
  assert.is(p.eventsProcessed, 1_000_000);
  assert.ok(p.predictions > 10_000, `the model ran: ${p.predictions} predictions`);
  assert.ok(p.fills > 0 && p.quoteSamples > 100, 'fills and quotes recorded');
  assert.is(p.gcs, 0, `${p.gcs} garbage collections during the session`);
});

test('a 1M-event session recording the order log and the quote series (--orders, --quotes) runs with no GC', async () => {
  const p = await probe('recording');
  assert.is(p.eventsProcessed, 1_000_000);
  // A row per order sent and cancel, and per report: more rows than orders sent.
  assert.ok(p.orderLogRows > 2 * p.ordersSent, `order log rows ${p.orderLogRows} for ${p.ordersSent} orders sent`);
  assert.ok(p.quoteSamples > 100, 'quotes recorded');
  assert.is(p.gcs, 0, `${p.gcs} garbage collections during the session`);
});

test('the measurement sees a pipeline that allocates per event', async () => {
  const p = await probe('allocating');
  assert.ok(p.gcs > 0, `allocating pipeline: ${JSON.stringify(p)}`);
});

test.run();
