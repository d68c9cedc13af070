// Flatten on a kill-switch trip ([risk] flatten_on_kill, request field flattenOnKill): off by
// default, which keeps today's results (CME's kill switch cancels and blocks; it does not
// flatten); on, the position is closed by IOC orders through the simulated exchange, whose
// fills (taker, with their fees and the price they got) are in the results and the fills.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureBuilt } from '../../helpers/build.ts';
import { runCli, writeConfig } from '../../helpers/cli.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { BID, LIQ_TAKER } from '../../../src/core/events.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';

// A tight limit: the kill switch trips in the first minutes with a position open.
const TOML = '[simulation]\nsession_start = "09:30"\nsession_end = "10:30"\n[risk]\nmax_drawdown_pct = 0.0005\n';
const config = parseConfig(TOML, 'kill.toml');
const ES = contractForRoot('ES');

async function run(body: Record<string, unknown>) {
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', seed: 1, ...body }, config);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return runBacktest(v.request, config, { collectFills: true });
}

test.before(() => ensureBuilt());

test('off by default: the same result as flattenOnKill false, the position kept after the trip', async () => {
  const byDefault = await run({});
  const off = await run({ flattenOnKill: false });
  assert.is(JSON.stringify(byDefault.result), JSON.stringify(off.result));
  assert.ok(off.result.kill_switch.tripped);
  assert.ok(off.result.final_position !== 0, 'the position the kill switch left is still open');
  assert.not.ok(off.result.alerts.some((a) => a.code === 'KILL_FLATTEN'));
});

test('on: IOC orders through the exchange close the position; their fills and fees are in the results', async () => {
  const off = await run({ flattenOnKill: false });
  const on = await run({ flattenOnKill: true });
  const r = on.result;
  assert.ok(r.kill_switch.tripped);
  assert.is(r.final_position, 0);
  assert.ok(
    r.alerts.some((a) => a.code === 'KILL_FLATTEN'),
    'the flattening is stated in the alerts',
  );
  // Up to the trip both runs are the same; after it only the flattening fills are new.
  const f = on.sessions[0].result!.fillColumns!;
  const g = off.sessions[0].result!.fillColumns!;
  const killNs = on.sessions[0].result!.killSwitch.ts;
  const after = [...f.exchTs.keys()].filter((i) => f.recvTs[i] > killNs);
  assert.ok(after.length >= 1, 'fills after the trip');
  assert.is(f.exchTs.length, g.exchTs.length + after.length);
  let closed = 0;
  for (const i of after) {
    assert.is(f.liq[i], LIQ_TAKER, 'an IOC that crosses takes liquidity');
    assert.is(f.fee[i], f.qty[i] * (config.fees.taker_fee + config.fees.exchange_fee), 'taker fee');
    closed += (f.side[i] === BID ? 1 : -1) * f.qty[i];
  }
  assert.is(closed, -off.result.final_position, 'the flattening fills close what the kill switch left');
  // The P&L is the fills' own: cash flows and fees, nothing open.
  let cash = 0;
  for (let i = 0; i < f.exchTs.length; i++) cash -= (f.side[i] === BID ? 1 : -1) * f.price[i] * f.qty[i] * ES.tickValue + f.fee[i];
  assert.ok(Math.abs(cash - r.total_pnl) <= 1e-9 * Math.abs(r.total_pnl), `fills ${cash}, total_pnl ${r.total_pnl}`);
  assert.is(r.fees, off.result.fees + after.reduce((a, i) => a + f.fee[i], 0));
});

test('the config key through the CLI; a bad value names the key; a bad request field is refused', () => {
  const r = runCli(['--backtest', '--config', writeConfig(`${TOML}flatten_on_kill = true\n`), '--start', '2024-01-02', '--seed', '1', '--json']);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout) as { final_position: number; kill_switch: { tripped: boolean } };
  assert.ok(res.kill_switch.tripped);
  assert.is(res.final_position, 0);
  const bad = runCli(['--backtest', '--config', writeConfig('[risk]\nflatten_on_kill = "yes"\n')]);
  assert.ok(bad.code !== 0);
  assert.match(bad.stderr, /risk\.flatten_on_kill = "?yes"?: expected/);
  const v = validateBacktestRequest({ flattenOnKill: 'yes' }, config);
  assert.ok(!v.ok && v.errors.some((e) => e.field === 'flattenOnKill'));
});

test.run();
