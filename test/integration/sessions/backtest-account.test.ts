// A multi-day run is one account: equity, its peak and the kill switch carry across sessions,
// and the parallel run on the pool gives the bytes of a strictly sequential one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Piscina } from 'piscina';
import type { EngineConfig } from '../../../src/config/schema.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { createBacktestPool, runBacktest, type BacktestRun } from '../../../src/backtest/run.ts';
import { DrawdownPath } from '../../../src/risk/risk-manager.ts';
import { Rng } from '../../../src/core/rng.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

let pool: Piscina;
test.before(() => {
  pool = createBacktestPool(2);
});
test.after(async () => {
  await pool.destroy();
});

function config(minutes = 15): EngineConfig {
  const c = shippedConfigNoModel();
  c.simulation.session_start = '09:30';
  c.simulation.session_end = `09:${30 + minutes}`;
  return c;
}

async function run(c: EngineConfig, body: Record<string, unknown>, opts: { sequential?: boolean; pool?: boolean } = {}): Promise<BacktestRun> {
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', endDate: '2024-01-04', ...body }, c);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return runBacktest(v.request, c, { pool: opts.pool === false ? null : pool, sequential: opts.sequential });
}

test('DrawdownPath replays the check exactly: its worst drawdown for any base and peak equals a brute-force pass', () => {
  const rng = new Rng(11);
  for (let trial = 0; trial < 200; trial++) {
    const values: number[] = [0];
    let v = 0;
    for (let i = 0; i < 300; i++) values.push((v += (rng.next() - 0.5) * 400));
    const path = new DrawdownPath();
    for (const x of values) path.add(x);
    const base = 1_000 + rng.next() * 100_000;
    const peakIn = rng.next() < 0.5 ? -Infinity : base + (rng.next() - 0.3) * 5_000;
    let peak = peakIn,
      worst = 0;
    for (const x of values) {
      const eq = base + x;
      if (eq > peak) peak = eq;
      const dd = peak > 0 ? (peak - eq) / peak : 0;
      if (dd > worst) worst = dd;
    }
    assert.is(path.maxDrawdown(base, peakIn), worst, `trial ${trial}`);
    assert.is(DrawdownPath.from(path.toJSON()).maxDrawdown(base, peakIn), worst);
  }
});

test('a tripped kill switch stops the account: later sessions do not trade, and the result says when, where and why', async () => {
  const c = config();
  c.risk.max_daily_loss = 150;
  const r = (await run(c, { seed: 42 })).result;
  const k = r.kill_switch;
  assert.ok(k.tripped, 'the tiny daily loss limit trips');
  assert.is(k.rule, 'MAX_DAILY_LOSS');
  assert.is(k.session_date, '2024-01-02');
  assert.match(k.at!, /^2024-01-02T14:[34]\d:\d\d\.\d{3}Z$/);
  assert.equal(k.tripped_sessions, ['2024-01-02']);
  assert.equal(k.sessions_not_traded, ['2024-01-03', '2024-01-04']);
  assert.ok(k.equity! <= c.trading.initial_capital - 150, `equity at the trip ${k.equity}`);
  const later = r.session_results.filter((s) => s.date > '2024-01-02');
  assert.equal(
    later.map((s) => [s.traded, s.fills, s.events, s.pnl]),
    [
      [false, 0, 0, 0],
      [false, 0, 0, 0],
    ],
  );
  assert.is(r.total_fills, r.session_results[0].fills);
});

test('drawdown is measured from the account peak across sessions: a limit no single fresh day reaches trips the account', async () => {
  const c = config();
  c.risk.max_daily_loss = 1e9;
  const capital = 20_000;
  const free = await run(c, { seed: 42, initialCapital: capital, maxDrawdown: 1 });
  assert.is(free.result.kill_switch.tripped, false);
  // worst drawdown each day would see on its own (fresh account: what per-day runs checked) and on the account
  let fresh = 0,
    account = 0;
  for (const s of free.sessions) {
    const path = DrawdownPath.from(s.result!.drawdownPath);
    fresh = Math.max(fresh, path.maxDrawdown(capital, -Infinity));
    account = Math.max(account, path.maxDrawdown(s.carry.capital, s.carry.peak ?? -Infinity));
  }
  assert.ok(account > fresh * 1.05, `seed 42 must lose across days (account ${account}, fresh ${fresh})`);
  const limit = (account + fresh) / 2;
  const r = (await run(c, { seed: 42, initialCapital: capital, maxDrawdown: limit })).result;
  assert.ok(r.kill_switch.tripped, `limit ${limit} is reached from the multi-day peak`);
  assert.is(r.kill_switch.rule, 'MAX_DRAWDOWN');
  assert.ok(r.kill_switch.session_date! > '2024-01-02', 'no single day reaches it alone, so not the first');
});

test('the parallel run equals a strictly sequential run byte for byte, over seeds, limits and ranges', async () => {
  const cases: { body: Record<string, unknown>; loss: number }[] = [];
  for (const seed of [1, 7, 42]) {
    cases.push({ body: { seed }, loss: 1e9 });
    cases.push({ body: { seed, initialCapital: 20_000, maxDrawdown: 0.02 }, loss: 1e9 });
    cases.push({ body: { seed, initialCapital: 20_000, maxDrawdown: 0.005, endDate: '2024-01-05' }, loss: 1e9 });
    cases.push({ body: { seed, endDate: '2024-01-03' }, loss: 400 });
    cases.push({ body: { seed, initialCapital: 50_000, maxDrawdown: 0.01, useML: true }, loss: 2_000 });
  }
  let reruns = 0,
    trips = 0,
    notTraded = 0;
  for (const { body, loss } of cases) {
    const c = config(8);
    c.risk.max_daily_loss = loss;
    const par = await run(c, body);
    const seq = await run(c, body, { sequential: true });
    const a = JSON.stringify(par.result);
    assert.is(a, JSON.stringify(seq.result), JSON.stringify(body));
    // without a pool, sessions run inline, one after another: the same bytes again
    if (body.endDate === '2024-01-03') assert.is(a, JSON.stringify((await run(c, body, { pool: false })).result), JSON.stringify(body));
    reruns += par.sessions.filter((s) => s.rerun).length;
    if (par.result.kill_switch.tripped) trips++;
    notTraded += par.result.kill_switch.sessions_not_traded.length;
  }
  // the cases must exercise what can go wrong: speculative results re-run, trips, skipped sessions
  assert.ok(reruns > 0, 'some speculative session results had to be re-run');
  assert.ok(trips > 0 && notTraded > 0, `${trips} trips, ${notTraded} sessions not traded`);
});

test.run();
