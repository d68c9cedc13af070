// `[simulation] engine_idle`: how the engine thread waits for its next input. busy_poll never
// sleeps (its thread is always running or runnable), block sleeps in Atomics.wait between inputs;
// both trade and report tick-to-trade samples, stay healthy and stop on request.
// Thread states come from /proc (Linux); elsewhere the state check is skipped and said so.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import pino from 'pino';
import type { EngineIdlePolicy } from '../../../src/runtime/idle-policy.ts';
import { SimulationRuntime } from '../../../src/runtime/simulation.ts';
import { sleep, until } from '../../helpers/wait.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const linux = existsSync('/proc/self/task');

const TICKS_PER_S = 100; // USER_HZ of /proc/<pid>/task/<tid>/stat on Linux

/** A thread's scheduler state (R running or runnable, S sleeping, ...) and CPU time in ticks, from /proc. */
function threadStat(tid: string): { state: string; cpuTicks: number } | null {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
    return { state: f[0], cpuTicks: Number(f[11]) + Number(f[12]) }; // utime + stime (fields 14, 15)
  } catch {
    return null; // the thread ended
  }
}

interface ThreadUse {
  /** Share of the samples in which the thread was running or runnable (waiting for a core counts). */
  runnable: number;
  /** CPU cores the thread used over the sampling (waiting for a core does not count). */
  cores: number;
}

/** How each thread created since `before` spent ~1 s of sampling. */
async function threadUse(before: Set<string>, samples: number): Promise<ThreadUse[]> {
  const tids = readdirSync('/proc/self/task').filter((t) => !before.has(t));
  const first = new Map(tids.map((t) => [t, threadStat(t)?.cpuTicks ?? 0]));
  const running = new Map(tids.map((t) => [t, 0]));
  const t0 = performance.now();
  for (let i = 0; i < samples; i++) {
    for (const t of tids) if (threadStat(t)?.state === 'R') running.set(t, running.get(t)! + 1);
    await sleep(10);
  }
  const seconds = (performance.now() - t0) / 1000;
  return tids.map((t) => ({
    runnable: running.get(t)! / samples,
    cores: ((threadStat(t)?.cpuTicks ?? first.get(t)!) - first.get(t)!) / TICKS_PER_S / seconds,
  }));
}

async function run(policy: EngineIdlePolicy, check: (threads: ThreadUse[]) => void): Promise<void> {
  const config = shippedConfigNoModel();
  config.simulation.speed = 4;
  config.simulation.engine_idle = policy;
  const before = new Set(linux ? readdirSync('/proc/self/task') : []);
  const rt = new SimulationRuntime({ config, logger: pino({ level: 'silent' }), models: () => ({ file: null, error: 'no model in this test' }) });
  let tickToTrade = 0;
  rt.start();
  try {
    await until(`${policy}: orders sent and tick-to-trade samples`, () => {
      rt.drainLatency((stage) => {
        if (stage === 'tick_to_trade') tickToTrade++;
      });
      return (rt.state('ESH24')?.counters.orders ?? 0) > 0 && tickToTrade > 0;
    });
    // Every worker counts as running once the supervisor has seen its first heartbeat.
    await until(`${policy}: healthy`, () => rt.health().healthy, { context: () => JSON.stringify(rt.health()) });
    if (linux) check(await threadUse(before, 100));
    else console.log('  (no /proc/self/task: not Linux, thread states not checked)');
    assert.ok(rt.health().healthy, JSON.stringify(rt.health()));
    assert.ok(
      rt.health().workers.every((w) => w.restarts === 0),
      JSON.stringify(rt.health().workers),
    );
  } finally {
    await rt.stop();
  }
}

test('busy_poll: the engine thread never sleeps, trades and stops', async () => {
  await run('busy_poll', (threads) => {
    // Running or waiting for a core, never asleep: true on a busy machine too.
    const top = Math.max(...threads.map((t) => t.runnable));
    assert.ok(top >= 0.9, `the busiest new thread was runnable in ${(top * 100).toFixed(0)} % of samples: ${JSON.stringify(threads)}`);
  });
});

test('block: no thread of the simulation spins, and it trades and stops', async () => {
  await run('block', (threads) => {
    // CPU time, not runnable samples: on a busy machine a thread that only works waits for a core.
    const top = Math.max(...threads.map((t) => t.cores));
    assert.ok(top < 0.5, `a new thread used ${top.toFixed(2)} cores: ${JSON.stringify(threads)}`);
  });
});

test.run();
