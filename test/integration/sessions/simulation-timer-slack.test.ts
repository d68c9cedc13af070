// Timer slack of the simulation's worker threads (src/runtime/timer-slack.ts): each worker sets
// its own to 1 ns so that its timed waits fire when due, and the main thread keeps the default.
// Linux only (/proc/TID/timerslack_ns); elsewhere the tests say so and pass.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import pino from 'pino';
import { SimulationRuntime } from '../../../src/runtime/simulation.ts';
import { setThreadTimerSlack, threadTimerSlackNs, WORKER_TIMER_SLACK_NS } from '../../../src/runtime/timer-slack.ts';
import { until } from '../../helpers/wait.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const linux = existsSync('/proc/thread-self');

/** Timer slack of every thread of this process, by thread id. */
function slacks(): Map<string, number | null> {
  return new Map(readdirSync('/proc/self/task').map((tid) => [tid, threadTimerSlackNs(tid)]));
}

test("setThreadTimerSlack() sets the calling thread's slack", () => {
  if (!linux) return console.log('  (no /proc/thread-self: not Linux, nothing to check)');
  const mine = threadTimerSlackNs()!;
  try {
    assert.ok(setThreadTimerSlack(mine + 1));
    assert.is(threadTimerSlackNs(), mine + 1);
  } finally {
    setThreadTimerSlack(mine);
  }
  assert.is(threadTimerSlackNs(), mine);
});

test('the simulation runs its three workers with 1 ns timer slack', async () => {
  if (!linux) return console.log('  (no /proc/thread-self: not Linux, nothing to check)');
  const config = shippedConfigNoModel();
  const before = new Set(slacks().keys());
  const rt = new SimulationRuntime({ config, logger: pino({ level: 'silent' }), models: () => ({ file: null, error: 'no model in this test' }) });
  rt.start();
  try {
    // Each worker sets its slack as its first statement; every thread it creates inherits it.
    const fresh = () => [...slacks()].filter(([tid]) => !before.has(tid));
    await until('the three worker threads at 1 ns', () => fresh().filter(([, ns]) => ns === WORKER_TIMER_SLACK_NS).length >= 3, {
      context: () => `new threads and their slack: ${JSON.stringify(fresh())}`,
    });
    assert.ok(threadTimerSlackNs() !== WORKER_TIMER_SLACK_NS, 'the main thread keeps the default');
  } finally {
    await rt.stop();
  }
});

test.run();
