// A strategy from a file in the live simulation (the real engine process): it trades (orders,
// fills, P&L in /api/state, its name and hash in the state), and one that throws is stopped with
// a STRATEGY_ERROR alert while the engine and the API stay up.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { ROOT, writeConfig } from '../../helpers/cli.ts';
import { startEngine } from '../../helpers/engine-process.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { until } from '../../helpers/wait.ts';

beforeAll(test, () => ensureBuilt());

const QUOTER = join(ROOT, 'examples', 'strategies', 'imbalance-quoter.ts');
const THROWS = join(ROOT, 'test', 'fixtures', 'strategies', 'throws-in-quote.ts');

interface State {
  strategy: { name: string; version: string; hash: string } | null;
  states: Record<string, { stats: { fills: number }; counters: { orders: number; events: number }; risk: { alerts: { code: string; message: string }[] } }>;
}

async function state(url: string): Promise<State> {
  return (await (await fetch(`${url}/api/state`)).json()) as State;
}

test('the live simulation trades a strategy loaded from a file, and names it', async () => {
  const config = writeConfig(
    `[simulation]\nspeed = 20\n[strategy]\nname = "imbalance_quoter"\nfiles = [${JSON.stringify(QUOTER)}]\n[strategy.imbalance_quoter]\nthreshold = 0.7\n`,
  );
  const e = await startEngine(config);
  try {
    await e.waitHealthy();
    const s = await until(
      'the strategy fills',
      async () => {
        const st = await state(e.url);
        const sym = Object.values(st.states)[0];
        return sym && sym.stats.fills > 0 ? st : null;
      },
      { timeoutMs: 60_000, child: e.proc, context: () => e.logs.join('\n') },
    );
    assert.is(s.strategy?.name, 'imbalance_quoter');
    assert.match(s.strategy!.hash, /^[0-9a-f]{64}$/);
    const strategies = (await (await fetch(`${e.url}/api/strategies`)).json()) as { default: string; strategies: { name: string; hash: string }[] };
    assert.is(strategies.default, 'imbalance_quoter');
    assert.is(strategies.strategies.find((x) => x.name === 'imbalance_quoter')?.hash, s.strategy!.hash);
    assert.ok(Object.values(s.states)[0].counters.orders > 0);
  } finally {
    await e.stop();
  }
});

test('a live strategy that throws is stopped: STRATEGY_ERROR, its orders cancelled, the engine and the API up', async () => {
  const config = writeConfig(`[simulation]\nspeed = 20\n[strategy]\nname = "throws_in_quote"\nfiles = [${JSON.stringify(THROWS)}]\n`);
  const e = await startEngine(config);
  try {
    await e.waitHealthy();
    const alert = await until(
      'the STRATEGY_ERROR alert',
      async () => {
        const sym = Object.values((await state(e.url)).states)[0];
        return sym?.risk.alerts.find((a) => a.code === 'STRATEGY_ERROR') ?? null;
      },
      { timeoutMs: 60_000, child: e.proc, context: () => e.logs.join('\n') },
    );
    assert.match(alert.message, /strategy throws_in_quote threw in quote\(\).*deliberate failure/);
    const before = Object.values((await state(e.url)).states)[0].counters;
    await until('market data goes on', async () => Object.values((await state(e.url)).states)[0].counters.events > before.events + 100, {
      timeoutMs: 30_000,
      child: e.proc,
    });
    const after = Object.values((await state(e.url)).states)[0].counters;
    assert.is(after.orders, before.orders, 'no order after the failure');
    assert.is((await fetch(`${e.url}/health`)).status, 200);
  } finally {
    await e.stop();
  }
});

test.run();
