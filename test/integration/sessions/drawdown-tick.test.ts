// Max drawdown is measured at every equity change the risk checks see (each fill, each new
// two-sided mid), not once a minute: recomputed here from the engine's own state after every
// input of the session, it equals the reported figure, is never below the per-minute samples'
// (max_drawdown_pct_1min), and never below the drawdown at which the kill switch tripped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { runSession } from '../../../src/backtest/session.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { RISK_STATE_FIELDS, RiskManager } from '../../../src/risk/risk-manager.ts';
import type { Trader } from '../../../src/trading/trader.ts';

// A tight limit: the kill switch trips within the hour, and the position it leaves moves on.
const config = parseConfig('[simulation]\nsession_start = "09:30"\nsession_end = "10:30"\n[risk]\nmax_drawdown_pct = 0.0005\n', 'dd.toml');
const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', seed: 1 }, config);
if (!v.ok) throw new Error(JSON.stringify(v.errors));
const req = v.request;

test('max_drawdown_pct is the drawdown at every equity change, the kill switch figure included', async () => {
  const spec = sessionSpecs(req, config, false)[0];
  const base = spec.carry.capital;
  let peak = -Infinity;
  let worst = 0;
  let checks = 0;
  // The account's equity after each input of the engine (before the next one is delivered).
  const look = (e: Trader) => {
    const mark = e.markTicks;
    if (mark !== mark) return;
    const eq = base + e.portfolio.equity(mark);
    if (eq > peak) peak = eq;
    const dd = (peak - eq) / peak;
    if (dd > worst) worst = dd;
    checks++;
  };
  let engine: Trader | null = null;
  runSession(spec, {
    taps: {
      marketData: (_d, _o, e) => {
        engine = e;
        look(e);
      },
      report: () => engine !== null && look(engine),
    },
  });
  look(engine!);
  assert.ok(checks > 10_000, `${checks} equity states`);
  const r = (await runBacktest(req, config)).result;
  assert.is(r.kill_switch.rule, 'MAX_DRAWDOWN');
  const trip = r.alerts.find((a) => a.code === 'KILL_SWITCH')!;
  assert.ok(trip.value >= 0.0005, `tripped at ${trip.value}`);
  assert.ok(r.max_drawdown_pct / 100 >= trip.value, `reported ${r.max_drawdown_pct} %, the kill switch acted at ${trip.value * 100} %`);
  assert.is(r.max_drawdown_pct, worst * 100, 'the reported figure is the tick-level one');
  assert.ok(r.max_drawdown_pct_1min <= r.max_drawdown_pct);
  assert.ok(r.max_drawdown_pct_1min < worst * 100, `per-minute ${r.max_drawdown_pct_1min} % understates the tick-level ${worst * 100} % here`);
});

test('RiskManager keeps the largest drawdown of its checks, across a restart of the engine (shared state)', () => {
  const limits = { maxOrderSize: 1, positionLimit: 1, maxDrawdownFrac: 0.5, maxDailyLoss: 1e9, killSwitchEnabled: true };
  const state = RiskManager.initState(new Float64Array(new SharedArrayBuffer(RISK_STATE_FIELDS * 8)), 1000);
  const a = new RiskManager(limits, state);
  for (const v of [0, 100, 40, 120, 90]) a.onEquity(0, v); // peak 1120, low after it 1090; 1100 -> 1040 is the worst
  assert.is(a.maxDrawdownFrac, (1100 - 1040) / 1100);
  const b = new RiskManager(limits, state);
  b.onEquity(0, 110);
  assert.is(b.maxDrawdownFrac, (1100 - 1040) / 1100, 'carried in the shared state');
  b.onEquity(0, -20);
  assert.is(b.maxDrawdownFrac, (1120 - 980) / 1120);
});

test.run();
