// The run's Sharpe ratio is the daily one (daily returns x sqrt(252)) from DAILY_SHARPE_MIN_DAYS
// sessions on, else the intraday one (per-minute returns x sqrt(252 x 390)); sharpe_basis and
// the CLI's label say which, and both figures stay in the result under their own names. Days
// not traded after a kill-switch stop are zero-return days of the run. Recomputed here from the
// exported result with this file's own code.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureBuilt } from '../../helpers/build.ts';
import { runCli, writeConfig } from '../../helpers/cli.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { parseConfig } from '../../../src/config/load.ts';

const TOML = '[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n';
const DAYS = { startDate: '2024-01-02', endDate: '2024-01-08' }; // five sessions

function sharpe(values: number[], periodsPerYear: number): number {
  const rets = values.slice(1).map((v, i) => v / values[i] - 1);
  const mean = rets.reduce((a, b) => a + b, 0) / rets.length;
  const sd = Math.sqrt(rets.reduce((a, b) => a + (b - mean) ** 2, 0) / (rets.length - 1));
  return (mean / sd) * Math.sqrt(periodsPerYear);
}

function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: recomputed ${expected}, reported ${actual}`);
}

interface Res {
  initial_capital: number;
  sharpe_ratio: number;
  sharpe_basis: string;
  sharpe_daily: number | null;
  sharpe_intraday_1min: number;
  equity_curve: { equity: number }[];
  session_results: { pnl: number; traded: boolean }[];
  kill_switch: { tripped: boolean; sessions_not_traded: string[] };
}

/** The account's equity at the start and at each session's close. */
function closesOf(r: Res): number[] {
  const c = [r.initial_capital];
  for (const s of r.session_results) c.push(c[c.length - 1] + s.pnl);
  return c;
}

test.before(() => ensureBuilt());

test('five sessions: sharpe_ratio is the daily Sharpe, labelled so; the intraday one is kept by name', () => {
  const config = writeConfig(TOML);
  const json = runCli(['--backtest', '--config', config, '--start', DAYS.startDate, '--end', DAYS.endDate, '--seed', '7', '--json']);
  assert.is(json.code, 0, json.stderr);
  const r = JSON.parse(json.stdout) as Res;
  assert.is(r.session_results.length, 5);
  assert.is(r.sharpe_basis, 'daily');
  const daily = sharpe(closesOf(r), 252);
  close(r.sharpe_daily!, daily, 'sharpe_daily');
  assert.is(r.sharpe_ratio, r.sharpe_daily);
  close(
    r.sharpe_intraday_1min,
    sharpe(
      r.equity_curve.map((p) => p.equity),
      252 * 390,
    ),
    'sharpe_intraday_1min',
  );
  const text = runCli(['--backtest', '--config', config, '--start', DAYS.startDate, '--end', DAYS.endDate, '--seed', '7']);
  assert.match(text.stdout, new RegExp(`^\\s+Sharpe ratio \\(daily\\)\\s+${r.sharpe_ratio.toFixed(4)}$`, 'm'));
});

test('fewer sessions: the intraday Sharpe, labelled 1-min; sharpe_daily is null', () => {
  const r = runCli(['--backtest', '--config', writeConfig(TOML), '--start', '2024-01-02', '--end', '2024-01-03', '--seed', '7', '--json']);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout) as Res;
  assert.is(res.sharpe_basis, 'intraday_1min');
  assert.is(res.sharpe_daily, null);
  assert.is(res.sharpe_ratio, res.sharpe_intraday_1min);
  const text = runCli(['--backtest', '--config', writeConfig(TOML), '--start', '2024-01-02', '--end', '2024-01-03', '--seed', '7']);
  assert.match(text.stdout, /^\s+Sharpe ratio \(1-min\)\s+-?\d/m);
});

test('days not traded after a kill-switch stop are zero-return days', async () => {
  const config = parseConfig(`${TOML}[risk]\nmax_drawdown_pct = 0.0005\n`, 'kill.toml');
  const v = validateBacktestRequest({ symbol: 'ES', ...DAYS, seed: 1 }, config);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const r = (await runBacktest(v.request, config)).result as unknown as Res;
  assert.ok(r.kill_switch.tripped && r.kill_switch.sessions_not_traded.length > 0, 'the kill switch stops the run early');
  const closes = closesOf(r);
  assert.is(closes.length, 6);
  close(r.sharpe_daily!, sharpe(closes, 252), 'sharpe_daily with zero-return days');
  assert.is(r.sharpe_basis, 'daily');
});

test.run();
