// The live engine thread dies in the middle of booking a fill, at each step of FillJournal.book
// (fill-journal.test.ts tests the journal alone, a fill booked twice included): the restarted thread finishes or undoes the
// booking, so the position stays the sum of the fills the stream delivered, each once.
// Real worker threads over shared memory (built workers in dist/: `npm test` builds first).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pino from 'pino';
import { SimulationRuntime } from '../../../src/runtime/simulation.ts';
import type { FillView } from '../../../src/runtime/view.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { until, WAIT_MS } from '../../helpers/wait.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const config = shippedConfigNoModel();
config.simulation.speed = 4; // more fills per second of test
// An hour after the open, where our quotes fill often (the opening burst fills them rarely), and
// each step's crash waits for a fill to be booked.
config.simulation.session_start = '10:30';
// Three restarts trip the kill switch, which stops quoting (and so fills): disabled here, the
// engine keeps trading after every crash.
config.risk.enable_kill_switch = false;
const rt = new SimulationRuntime({ config, logger: pino({ level: 'silent' }), models: () => ({ file: null, error: 'no model in this test' }) });
const fills: FillView[] = [];
const restartAlerts: string[] = [];
rt.subscribe((ev) => {
  if (ev.type === 'fill') fills.push(ev.fill);
  else if (ev.symbol === 'ESH24' && ev.alert.code === 'ENGINE_RESTART') restartAlerts.push(ev.alert.message);
});
const signedFills = () => fills.reduce((a, f) => a + (f.side === 'buy' ? f.qty : -f.qty), 0);
const restarts = () => rt.health().workers.find((w) => w.name === 'order-book')!.restarts;

beforeAll(test, () => rt.start());
test.after(() => rt.stop());

const EXPECTED: Record<number, RegExp> = {
  1: /a fill being booked when an engine thread died was rolled back and is booked again/, // booked, not committed
  2: /a fill booked when an engine thread died was published/, // committed, not published
  3: /a fill booked when an engine thread died was published/, // published, report not released
};

for (const step of [1, 2, 3]) {
  test(`an engine thread that dies at step ${step} of booking a fill: position = sum of the fills streamed, each once`, async () => {
    await until('a fill', () => fills.length > 0);
    const n = restarts();
    const seen = restartAlerts.length;
    const before = rt.state('ESH24')!.counters;
    const count0 = fills.length;
    rt.injectFault('order-book', 'crash-mid-fill', step);
    // A restart after the crash says what was found of the booking. A loaded machine may add
    // restarts of its own (a thread that misses its heartbeat), before the crash or between it and
    // the thread that reports it.
    const message = await until(
      'the ENGINE_RESTART alert of the crash mid-fill',
      () => restartAlerts.slice(seen).find((m) => m.includes('when an engine thread died')),
      {
        context: () =>
          `restart alerts since the fault: ${JSON.stringify(restartAlerts.slice(seen))}; fills ${count0} -> ${fills.length}; workers ${JSON.stringify(rt.health().workers)}`,
      },
    );
    assert.match(message, EXPECTED[step], `restart alerts since the fault: ${JSON.stringify(restartAlerts.slice(seen))}`);
    await until('the restarted engine thread to be healthy', () => restarts() > n && rt.health().healthy);
    // Trading goes on after the restart, and the snapshot catches up with the fill stream.
    // When the next fill comes is the market's doing (the restarted thread may sit at its inventory
    // limit, quoting one side, until the mid comes back): a deadline of minutes, with the state.
    const count = fills.length;
    await until('a fill after the restart', () => fills.length > count, {
      timeoutMs: 3 * WAIT_MS,
      context: () =>
        `position ${rt.state('ESH24')!.position.contracts}; counters ${JSON.stringify(rt.state('ESH24')!.counters)}; workers ${JSON.stringify(rt.health().workers)}`,
    });
    const s = await until('snapshot and fill stream to agree', () => {
      const st = rt.state('ESH24')!;
      return st.stats.fills === fills.length && st;
    });
    assert.is(s.position.contracts, signedFills(), 'position = sum of every fill streamed');
    // The counters carry over the restart: they never go back, and the fills by side and
    // liquidity (Prometheus's engine_fills_total) still add up to every fill.
    assert.ok(s.counters.events >= before.events && s.counters.orders >= before.orders, `events ${before.events} -> ${s.counters.events}`);
    await until('fills by side and liquidity to add up to the fills streamed', () => {
      const m = rt.metrics().find((x) => x.symbol === 'ESH24')!;
      const sum = m.fillsBuyMaker + m.fillsBuyTaker + m.fillsSellMaker + m.fillsSellTaker;
      return sum === fills.length && rt.state('ESH24')!.stats.fills === fills.length;
    });
    // Each fill carries the position after it: none is missing from the stream or streamed twice.
    let position = 0;
    for (const f of fills) {
      position += f.side === 'buy' ? f.qty : -f.qty;
      assert.is(f.position, position, `fill of order ${f.order_id} at ${f.time}`);
    }
  });
}

test.run();
