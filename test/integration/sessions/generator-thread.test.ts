// The synthetic generator in a thread of its own (src/market/source-thread.ts, run.ts): a
// session fed by it computes exactly what a session generating inline does, a session stopped
// early leaves the worker usable, and runBacktest gives the thread only to a run that leaves a
// core free for it (one session at a time, on this machine).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { availableParallelism } from 'node:os';
import { sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest, type SessionExecutor } from '../../../src/backtest/run.ts';
import { runSession } from '../../../src/backtest/session.ts';
import type { SessionSpec } from '../../../src/backtest/session-spec.ts';
import { ThreadedSource, SOURCE_RING_CAPACITY } from '../../../src/market/source-thread.ts';
import { EV_STRIDE } from '../../../src/core/events.ts';
import { MarketGenerator } from '../../../src/market/generator.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { ensureBuilt } from '../../helpers/build.ts';
import { drain } from '../../helpers/drain-source.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

ensureBuilt();

function request(endDate: string, minutes = 20) {
  const config = shippedConfigNoModel();
  config.simulation.session_start = '09:30';
  config.simulation.session_end = `09:${30 + minutes}`;
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', endDate, seed: 7 }, config);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return { config, request: v.request };
}

/** An executor that runs sessions inline and records each spec it was given. */
function recording(parallel: boolean, threads: number | undefined, seen: SessionSpec[]): SessionExecutor {
  return {
    parallel,
    threads,
    run: async (spec) => {
      seen.push(spec);
      return runSession(spec);
    },
  };
}

test('a session fed by the generator thread computes exactly what the inline generator gives', () => {
  const { config, request: req } = request('2024-01-02');
  const [spec] = sessionSpecs(req, config, false);
  const inline = runSession({ ...spec, generatorThread: false });
  const threaded = runSession({ ...spec, generatorThread: true });
  assert.ok(
    inline.eventsProcessed > 2 * SOURCE_RING_CAPACITY,
    `${inline.eventsProcessed} events: more than the shared ring holds, so the worker waits for room`,
  );
  assert.ok(inline.fills > 0, 'the session traded');
  assert.equal(threaded, inline);
});

test('a generator worker stopped early leaves the next session its whole stream', () => {
  const start = 9.5 * 3600e9;
  const end = start + 600e9;
  const synth = { kind: 'synthetic', root: 'ES', date: '2024-01-02', seed: 7, activity: 1 } as const;
  const stopped = new ThreadedSource(synth, start, end);
  assert.is(drain(stopped, 2).length, 2 * 1024 * EV_STRIDE);
  stopped.close(); // its worker is still ahead, waiting for room in its ring
  const whole = new ThreadedSource(synth, start, end);
  const events = drain(whole, Infinity);
  whole.close();
  const inline = drain(new MarketGenerator(contractForRoot('ES'), '2024-01-02', 7, { sessionStartNs: start, sessionEndNs: end, activity: 1 }), Infinity);
  assert.ok(inline.length / EV_STRIDE > SOURCE_RING_CAPACITY, `${inline.length / EV_STRIDE} events`);
  assert.ok(events.length === inline.length && events.every((x, i) => Object.is(x, inline[i])), 'the same events as the inline generator');
});

test('runBacktest: the generator thread only for one session at a time on this machine', async () => {
  const cores = availableParallelism();
  const one = request('2024-01-02', 5);
  const three = request('2024-01-04', 5);
  const seen: SessionSpec[] = [];
  await runBacktest(one.request, one.config, { executor: recording(false, 1, seen) });
  assert.is(seen[0].generatorThread === true, cores >= 2, 'one session, inline');
  seen.length = 0;
  await runBacktest(three.request, three.config, { executor: recording(false, 1, seen) });
  assert.is(seen.length, 3);
  for (const s of seen) assert.is(s.generatorThread === true, cores >= 2, 'three sessions one after another');
  seen.length = 0;
  await runBacktest(three.request, three.config, { executor: recording(true, 2, seen) });
  for (const s of seen) assert.is(s.generatorThread, undefined, 'two sessions at once: every core is busy');
  seen.length = 0;
  await runBacktest(one.request, one.config, { executor: recording(true, undefined, seen) });
  assert.is(seen[0].generatorThread, undefined, 'sessions that run elsewhere (a queue) are left as they are');
});

test.run();
