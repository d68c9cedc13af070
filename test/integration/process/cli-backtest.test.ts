// The backtest CLI as users run it: node dist/engine.js --backtest --config FILE.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACTS } from '../../../src/market/instruments.ts';
import { profileFileJson } from '../../../src/market/profile-file.ts';
import { profileFor } from '../../../src/market/profiles.ts';
import { ROOT, runCli, tempDir, writeConfig } from '../../helpers/cli.ts';

const SHORT = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "10:15"
`);

test('prints the six figures (and more) and exits 0', () => {
  const r = runCli(['--backtest', '--config', SHORT]);
  assert.is(r.code, 0, r.stderr);
  for (const label of ['events processed', 'total P&L', 'max drawdown', 'Sharpe ratio', 'win rate', 'profit factor', 'closed trades', 'fills']) {
    assert.match(r.stdout, new RegExp(`^\\s+${label}\\s+\\S`, 'm'), `missing ${label}`);
  }
  assert.match(r.stderr, /v0\.1\.0/, 'the start log line carries the version');
  assert.match(r.stderr, /events\/s/, 'speed goes to stderr');
});

test('the same seed gives identical output; another seed does not', () => {
  const a = runCli(['--backtest', '--config', SHORT, '--seed', '7']);
  const b = runCli(['--backtest', '--config', SHORT, '--seed', '7']);
  const c = runCli(['--backtest', '--config', SHORT, '--seed', '8']);
  assert.is(a.code, 0);
  assert.is(a.stdout, b.stdout);
  assert.is.not(a.stdout, c.stdout);
});

test('--json result and the --fills CSV recompute to the reported total_pnl', () => {
  const dir = tempDir();
  const fills = join(dir, 'fills.csv');
  const r = runCli(['--backtest', '--config', SHORT, '--json', '--fills', fills, '--start', '2024-01-02', '--end', '2024-01-03']);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.is(res.sessions, 2);
  for (const k of ['events_processed', 'total_pnl', 'sharpe_ratio', 'max_drawdown_pct', 'win_rate', 'profit_factor', 'total_trades', 'total_fills'])
    assert.ok(k in res, k);
  const lines = readFileSync(fills, 'utf8').trim().split('\n');
  // Today's nine columns keep their names and order; new columns follow them (docs/backtests.md, "Research outputs").
  assert.is(lines[0].split(',').slice(0, 9).join(','), 'time,session_date,symbol,side,price,quantity,liquidity,fee,order_id');
  assert.is(lines.length - 1, res.total_fills);
  // Per session: cash flow of every fill + final position marked to the final mid - fees.
  const POINT_VALUE = 50; // ES
  const bySession = new Map<string, { cash: number; pos: number; fees: number }>();
  for (const line of lines.slice(1)) {
    const [, date, , side, price, qty, , fee] = line.split(',');
    const s = bySession.get(date) ?? { cash: 0, pos: 0, fees: 0 };
    const q = Number(qty) * (side === 'BUY' ? 1 : -1);
    s.cash -= q * Number(price) * POINT_VALUE;
    s.pos += q;
    s.fees += Number(fee);
    bySession.set(date, s);
  }
  let pnl = 0;
  for (const sr of res.session_results) {
    const s = bySession.get(sr.date) ?? { cash: 0, pos: 0, fees: 0 };
    assert.is(s.pos, sr.final_position, `final position of ${sr.date}`);
    const sessionPnl = s.cash + s.pos * sr.final_mid * POINT_VALUE - s.fees;
    assert.ok(Math.abs(sessionPnl - sr.pnl) < 0.02, `${sr.date}: ${sessionPnl} vs ${sr.pnl}`);
    pnl += sessionPnl;
  }
  assert.ok(Math.abs(pnl - res.total_pnl) < 0.05, `${pnl} vs ${res.total_pnl}`);
  const t = res.total_trades;
  assert.ok(res.win_rate >= 0 && res.win_rate <= 1);
  assert.is(res.winning_trades + res.losing_trades <= t, true);
});

test('usage errors exit 2 with the one useful line and a pointer to --help, not the whole usage', () => {
  const r = runCli(['--backtest', '--bogus']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--bogus/);
  assert.match(r.stderr, /see --help/);
  assert.not.match(r.stderr, /Usage:/);
  const d = runCli(['--backtest', '--start', '2024-02-30']);
  assert.is(d.code, 2);
  assert.match(d.stderr, /2024-02-30/);
});

test('a bad config names key, value and expectation and exits 1; a missing explicit file too', () => {
  const bad = writeConfig(`[risk]\nmax_drawdown_pct = 6\n`);
  const r = runCli(['--backtest', '--config', bad]);
  assert.is(r.code, 1);
  assert.match(r.stderr, /risk\.max_drawdown_pct = 6: expected a fraction/);
  const m = runCli(['--backtest', '--config', join(tempDir(), 'nope.toml')]);
  assert.is(m.code, 1);
  assert.match(m.stderr, /nope\.toml/);
  const env = runCli(['--backtest'], { ENGINE_CONFIG: join(tempDir(), 'missing.toml') });
  assert.is(env.code, 1);
  assert.match(env.stderr, /ENGINE_CONFIG/);
});

test('live_enabled = true is refused at start with a clear message', () => {
  const live = writeConfig(`[trading]\nlive_enabled = true\n`);
  const r = runCli(['--config', live]);
  assert.is(r.code, 1);
  assert.match(r.stdout + r.stderr, /live_enabled/);
});

test('the shipped config quotes on the ES model: a full session with hundreds of fills, none of them adversely selected on average', () => {
  const r = runCli(['--backtest', '--config', join(ROOT, 'config', 'config.toml'), '--json']);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.is(res.use_ml, true);
  assert.match(res.model_version, /^es-mlp-/);
  assert.ok(res.total_fills >= 200, `fills: ${res.total_fills}`);
  assert.ok(res.events_processed > 1_000_000, `events: ${res.events_processed}`);
  for (const h of ['100ms', '1s', '10s']) assert.ok(res.markouts[h].avg_ticks > 0, JSON.stringify(res.markouts));
});

test('--no-ml: the shipped config without the model, where informed flow takes the passive edge away', () => {
  const r = runCli(['--backtest', '--config', join(ROOT, 'config', 'config.toml'), '--json', '--no-ml']);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.is(res.use_ml, false);
  assert.is(res.model_version, null);
  assert.ok(res.total_fills >= 200, `fills: ${res.total_fills}`);
  const m = res.markouts;
  // Passive fills start about half a tick in our favour; informed flow takes that away.
  assert.ok(m['10s'].avg_ticks < m['100ms'].avg_ticks, JSON.stringify(m));
  assert.ok(m['10s'].avg_ticks < 0.5, JSON.stringify(m));
});

test('a run its kill switch stopped says so first: when, in which session, by which rule', () => {
  const tiny = writeConfig(`[simulation]\nsession_start = "09:30"\nsession_end = "09:50"\n[risk]\nmax_daily_loss = 100\n`);
  const r = runCli(['--backtest', '--config', tiny, '--start', '2024-01-02', '--end', '2024-01-03']);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.match(
    lines[1],
    /^STOPPED by the kill switch: tripped at 2024-01-02 \d\d:\d\d:\d\d\.\d{3} ET \(session 2024-01-02, MAX_DAILY_LOSS, equity \$[\d,.]+\); 1 later session not traded$/,
  );
});

test('[market] profile: a backtest and a DBN export run the selected profile; a bad file exits 1 naming market.profile', () => {
  const dir = tempDir();
  const file = join(dir, 'es-busy.json');
  // Twice the market orders and smaller adds than ES's own profile: a different market.
  const es = profileFor(CONTRACTS.ES);
  writeFileSync(file, profileFileJson('ES', { ...es, marketRate: es.marketRate * 2, addSize: 4 }, {}, {}));
  const window = `[simulation]\nsession_start = "09:30"\nsession_end = "09:40"\n`;
  const own = runCli(['--backtest', '--config', writeConfig(window), '--json']);
  const cfg = writeConfig(`[market]\nprofile = ${JSON.stringify(file)}\n${window}`);
  const busy = runCli(['--backtest', '--config', cfg, '--json']);
  assert.is(own.code, 0, own.stderr);
  assert.is(busy.code, 0, busy.stderr);
  const a = JSON.parse(own.stdout);
  const b = JSON.parse(busy.stdout);
  assert.ok(b.events_processed > a.events_processed * 1.2, `events ${b.events_processed} vs ${a.events_processed}`);
  // The export writes the same market the backtest ran (its events are the backtest's).
  const out = join(dir, 'busy.mbo.dbn.zst');
  const x = runCli(['--export-dbn', out, '--config', cfg]);
  assert.is(x.code, 0, x.stderr);
  assert.match(x.stdout + x.stderr, new RegExp(`${b.events_processed}|${b.events_processed.toLocaleString('en-US')}`));
  const bad = writeConfig(`[market]\nprofile = ${JSON.stringify(join(dir, 'missing.json'))}\n`);
  const r = runCli(['--backtest', '--config', bad]);
  assert.is(r.code, 1);
  assert.match(r.stderr, /market\.profile = ".*missing\.json": expected a market profile file .*no such file/);
});

test.run();
