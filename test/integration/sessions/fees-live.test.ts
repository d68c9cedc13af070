// Fees per product in the live simulation: the market-data worker's exchange charges each symbol
// its root's schedule, and /api/state shows that schedule per symbol (built workers in dist/:
// `npm test` builds first).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pino from 'pino';
import type { FillView } from '../../../src/wire/live-state.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { SimulationRuntime } from '../../../src/runtime/simulation.ts';
import { until, WAIT_MS } from '../../helpers/wait.ts';
import { MES_SCHEDULE, MES_SECTION } from '../../helpers/mes-fees.ts';

const config = parseConfig(
  [
    '[trading]',
    'symbols = ["MESH24", "ESH24"]',
    '[simulation]',
    'speed = 4', // four simulated seconds per second: fills sooner, same behaviour
    // An hour after the open, where our quotes fill often (the opening burst fills them rarely).
    'session_start = "10:30"',
  ].join('\n') + `\n${MES_SECTION}`,
  'fees-live.toml',
);
const rt = new SimulationRuntime({ config, logger: pino({ level: 'silent' }), models: () => ({ file: null, error: 'no model in this test' }) });
const fills: FillView[] = [];
rt.subscribe((ev) => {
  if (ev.type === 'fill') fills.push(ev.fill);
});

test.before(() => rt.start());
test.after(() => rt.stop());

test('/api/state shows each symbol its schedule: MES its own section, ES the flat table', () => {
  assert.equal(rt.state('MESH24')!.fee_schedule, MES_SCHEDULE);
  const es = rt.state('ESH24')!.fee_schedule;
  assert.is(es.source, 'fees');
  assert.is(es.maker_per_contract, 0.25 + 1.18);
});

test('live fills pay the schedule of their symbol', async () => {
  await until('fills in both symbols', () => ['MESH24', 'ESH24'].every((s) => fills.some((f) => f.symbol === s)), { timeoutMs: 2 * WAIT_MS });
  for (const f of fills) {
    const s = rt.state(f.symbol)!.fee_schedule;
    const perContract = f.liquidity === 'maker' ? s.maker_per_contract : s.taker_per_contract;
    // Full precision: the fee is quantity x the schedule's per-contract cost, as the exchange computed it.
    assert.is(f.fee, f.qty * perContract, `${f.symbol} ${f.liquidity} x${f.qty}: ${f.fee}`);
  }
});

test.run();
