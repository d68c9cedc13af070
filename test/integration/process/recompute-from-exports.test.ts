// What an outside script does with the exports: recompute every headline figure of a run from
// `--json` (equity curve, session results) and `--fills` (every fill) alone, with its own code
// (nothing here imports the engine), to a relative 1e-9.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir, writeConfig } from '../../helpers/cli.ts';

const CONFIG = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "10:00"
`);
const POINT_VALUE = 50; // ES, $ per point

function close(actual: number, expected: number, what: string): void {
  const tol = 1e-9 * Math.max(1, Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: recomputed ${actual}, reported ${expected}`);
}

interface Fill {
  date: string;
  side: number;
  price: number;
  qty: number;
  fee: number;
}

test('total P&L, trades, win rate, profit factor, drawdown and Sharpe recompute from --json + --fills', () => {
  const dir = tempDir();
  const fillsPath = join(dir, 'fills.csv');
  const r = runCli([
    '--backtest',
    '--config',
    CONFIG,
    '--use-ml',
    '--json',
    '--fills',
    fillsPath,
    '--start',
    '2024-01-02',
    '--end',
    '2024-01-04',
    '--seed',
    '7',
  ]);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  const fills: Fill[] = readFileSync(fillsPath, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [, date, , side, price, qty, , fee] = line.split(',');
      return { date, side: side === 'BUY' ? 1 : -1, price: Number(price), qty: Number(qty), fee: Number(fee) };
    });
  assert.ok(fills.length > 100, `${fills.length} fills`);

  // Gross and net realized P&L: their own names in the result and in the fills file, and
  // gross - fees = net in both (the fills file's rows sum to the result's figures).
  const [header, ...rows] = readFileSync(fillsPath, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  const sumOf = (name: string) => rows.reduce((a, row) => a + Number(row[header.indexOf(name)]), 0);
  assert.not.ok(header.includes('realized_pnl'), 'no ambiguous realized_pnl column');
  assert.not.ok('realized_pnl' in res || 'fees_paid' in res, 'no ambiguous realized_pnl in the result');
  rows.forEach((row, i) =>
    close(
      Number(row[header.indexOf('realized_pnl_gross')]) - Number(row[header.indexOf('fee')]),
      Number(row[header.indexOf('realized_pnl_net')]),
      `fill ${i} net`,
    ),
  );
  close(sumOf('realized_pnl_gross'), res.realized_pnl_gross, 'sum of realized_pnl_gross');
  close(sumOf('fee'), res.fees, 'sum of fee');
  close(sumOf('realized_pnl_net'), res.realized_pnl_net, 'sum of realized_pnl_net');
  close(res.realized_pnl_gross - res.fees, res.realized_pnl_net, 'gross - fees = net');
  close(res.realized_pnl_net + res.unrealized_pnl, res.total_pnl, 'net + unrealized = total_pnl');

  // P&L per session: cash flows, the final position marked to the final mid, fees.
  let total = 0;
  for (const s of res.session_results) {
    const mine = fills.filter((f) => f.date === s.date);
    let cash = 0,
      pos = 0,
      fees = 0;
    for (const f of mine) {
      cash -= f.side * f.qty * f.price * POINT_VALUE;
      pos += f.side * f.qty;
      fees += f.fee;
    }
    assert.is(pos, s.final_position, s.date);
    const pnl = cash + (pos === 0 ? 0 : pos * s.final_mid * POINT_VALUE) - fees;
    close(pnl, s.pnl, `${s.date} P&L`);
    total += pnl;
  }
  close(total, res.total_pnl, 'total_pnl');

  // Closed trades: FIFO within each session (each starts flat), P&L net of the pro-rata fees of both fills.
  let count = 0,
    wins = 0,
    losses = 0,
    grossWin = 0,
    grossLoss = 0;
  for (const s of res.session_results) {
    const lots: { side: number; price: number; qty: number; feePer: number }[] = [];
    for (const f of fills.filter((x) => x.date === s.date)) {
      let left = f.qty;
      const feePer = f.fee / f.qty;
      while (left > 0 && lots.length && lots[0].side !== f.side) {
        const lot = lots[0];
        const q = Math.min(left, lot.qty);
        const pnl = (f.price - lot.price) * lot.side * q * POINT_VALUE - (lot.feePer + feePer) * q;
        count++;
        if (pnl > 0) {
          wins++;
          grossWin += pnl;
        } else if (pnl < 0) {
          losses++;
          grossLoss += pnl;
        }
        lot.qty -= q;
        left -= q;
        if (lot.qty === 0) lots.shift();
      }
      if (left > 0) lots.push({ side: f.side, price: f.price, qty: left, feePer });
    }
  }
  assert.is(count, res.total_trades);
  assert.is(wins, res.winning_trades);
  assert.is(losses, res.losing_trades);
  close(wins / count, res.win_rate, 'win_rate');
  if (grossLoss < 0) close(grossWin / -grossLoss, res.profit_factor, 'profit_factor');
  else assert.is(res.profit_factor, null);

  // Drawdown and Sharpe over the equity samples, as docs/metrics.md defines them. The per-minute
  // samples' drawdown is max_drawdown_pct_1min; max_drawdown_pct, taken at every equity change
  // the risk checks see, is never below it (every sample is such a value).
  const eq: number[] = res.equity_curve.map((p: { equity: number }) => p.equity);
  close(eq[eq.length - 1] - res.initial_capital, res.total_pnl, 'last equity sample');
  let peak = -Infinity,
    worst = 0;
  for (const e of eq) {
    peak = Math.max(peak, e);
    worst = Math.max(worst, (peak - e) / peak);
  }
  close(worst * 100, res.max_drawdown_pct_1min, 'max_drawdown_pct_1min');
  assert.ok(res.max_drawdown_pct >= res.max_drawdown_pct_1min, `max_drawdown_pct ${res.max_drawdown_pct} < per-minute ${res.max_drawdown_pct_1min}`);
  const rets = eq.slice(1).map((e, i) => e / eq[i] - 1);
  const mean = rets.reduce((a, b) => a + b, 0) / rets.length;
  const sd = Math.sqrt(rets.reduce((a, b) => a + (b - mean) ** 2, 0) / (rets.length - 1));
  close((mean / sd) * Math.sqrt(252 * 390), res.sharpe_intraday_1min, 'sharpe_intraday_1min');
  // Three sessions, fewer than the daily Sharpe needs: sharpe_ratio is the intraday one.
  assert.is(res.sharpe_basis, 'intraday_1min');
  assert.is(res.sharpe_ratio, res.sharpe_intraday_1min);
});

test.run();
