// A session that ends with one side of the book empty (a clear, a cut file, a one-sided market)
// marks its open position at the last two-sided mid it saw, never at 0: the result's P&L is then
// what the fills and that mark give. Only a position with no two-sided book ever seen has no
// price, and fails naming why. Built from a synthetic session exported as MBO DBN, cut one
// second after a fill that left a position open, and ended with a clear (R) record.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { runCli, writeConfig } from '../../helpers/cli.ts';
import { sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { BID } from '../../../src/core/events.ts';
import { DbnReader, type DbnRecord } from '../../../src/data/dbn/index.ts';
import { sessionNsToUnixNs } from '../../../src/market/dbn-time.ts';
import { DbnWriter } from '../../../src/data/dbn/writer.ts';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { Trader } from '../../../src/trading/trader.ts';
import { Portfolio } from '../../../src/portfolio/portfolio.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { OM_STRIDE } from '../../../src/core/events.ts';
import { seededLatency } from '../../../src/exchange/venue.ts';
import { latencyParams } from '../../../src/config/derive.ts';
import { strategyByName } from '../../../src/strategy/registry.ts';

const dir = mkdtempSync(join(tmpdir(), 'mark-one-sided-'));
const DATE = '2024-03-05';
const TOML = '[simulation]\nsession_start = "09:30"\nsession_end = "09:40"\n';
const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n${TOML}`, 'mark.toml');
const ES = contractForRoot('ES');

function ok<T>(v: { ok: true; request: T } | { ok: false; errors: unknown }): T {
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.request;
}

let cut = '';
test.before(async () => {
  ensureBuilt();
  const req = ok(validateBacktestRequest({ symbol: 'ES', startDate: DATE }, config));
  const s = sessionSpecs(req, config, false)[0];
  const full = join(dir, 'es.mbo.dbn.zst');
  await exportSynthetic(
    full,
    [
      {
        date: s.date,
        rawSymbol: req.contracts[0],
        spec: ES,
        seed: s.seed,
        sessionStartNs: s.sessionStartNs,
        sessionEndNs: s.sessionEndNs,
        activity: s.activity,
      },
    ],
    {
      schema: 'mbo',
      marketDataLatencyNs: s.execution.latency.marketDataLatencyNs,
    },
  );
  // The fills of the whole file: cut one second after the first one that leaves a position
  // open with no other fill in that second.
  const run = await runBacktest(ok(validateBacktestRequest({}, config, full)), config, { collectFills: true });
  const f = run.sessions[0].result!.fillColumns!;
  let at = -1;
  for (let i = 0; i < f.exchTs.length && at < 0; i++)
    if (f.position[i] !== 0 && (i + 1 === f.exchTs.length || f.exchTs[i + 1] > f.exchTs[i] + 1e9)) at = f.exchTs[i] + 1e9;
  assert.ok(at > 0, 'a fill leaves a position open for a second');
  const end = sessionNsToUnixNs(DATE, at);
  cut = join(dir, 'es-cut.mbo.dbn.zst');
  const reader = DbnReader.open(full);
  const w = await DbnWriter.toFile(cut, reader.metadata);
  let last: DbnRecord | null = null;
  for (const r of reader.records()) {
    if (r.hd.ts_event > end) break;
    w.write(r);
    last = r;
  }
  reader.close();
  // The clear: every order gone, the book empty on both sides until the session ends.
  const clear = { ...(last as Extract<DbnRecord, { order_id: bigint }>), order_id: 0n, price: 0n, size: 0, action: 'R', side: 'N', flags: 0 };
  clear.hd = { ...clear.hd, ts_event: end + 1n };
  clear.ts_recv = end + 1n;
  w.write(clear);
  w.close();
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** The session's P&L from its fills and a mark (ticks): cash flows, fees, the position at the mark. */
function pnlFromFills(f: Record<string, Float64Array>, markTicks: number): number {
  let cash = 0;
  let fees = 0;
  let pos = 0;
  for (let i = 0; i < f.exchTs.length; i++) {
    const dir = f.side[i] === BID ? 1 : -1;
    cash -= dir * f.price[i] * f.qty[i] * ES.tickValue;
    fees += f.fee[i];
    pos += dir * f.qty[i];
  }
  return cash - fees + pos * markTicks * ES.tickValue;
}

test('a session ending on a clear marks its open position at the last two-sided mid, and says so', async () => {
  const run = await runBacktest(ok(validateBacktestRequest({}, config, cut)), config, { collectFills: true });
  const r = run.result;
  const s = run.sessions[0].result!;
  assert.ok(r.final_position !== 0, 'a position is open at the end');
  const mark = r.session_results[0].final_mid;
  assert.ok(mark !== null && mark > 4000, `mark ${mark}`);
  assert.is(s.finalMidTicks * ES.tickSize, mark);
  const want = pnlFromFills(s.fillColumns!, s.finalMidTicks);
  assert.ok(Math.abs(r.total_pnl - want) <= 1e-9 * Math.abs(want) + 1e-6, `total_pnl ${r.total_pnl}, from the fills at the mark ${want}`);
  // Marked at 0, one ES contract would have cost about 5000 x $50.
  assert.ok(Math.abs(r.total_pnl) < 10_000, `total_pnl ${r.total_pnl}`);
  assert.ok(r.max_drawdown_pct < 1, `max drawdown ${r.max_drawdown_pct} %`);
  assert.ok(
    r.alerts.some((a) => a.code === 'MARK_LAST_TWO_SIDED' && a.message.includes(String(mark))),
    'the mark is stated in an alert',
  );
});

test('the CLI on the cut file: exit 0, the P&L at the last two-sided mid', () => {
  const r = runCli(['--backtest', '--data', cut, '--config', writeConfig(TOML), '--json']);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout) as { total_pnl: number; final_position: number; max_drawdown_pct: number };
  assert.ok(res.final_position !== 0);
  assert.ok(Math.abs(res.total_pnl) < 10_000, `total_pnl ${res.total_pnl}`);
  assert.ok(res.max_drawdown_pct < 1, `max drawdown ${res.max_drawdown_pct} %`);
});

test('a position open with no two-sided book ever seen has no price: finish() fails naming why', () => {
  const def = strategyByName('market_maker')!.def;
  const portfolio = new Portfolio(0, ES.tickValue, 64);
  portfolio.onFill(BID, 20_000, 1, 1);
  const e = new Trader({
    spec: ES,
    initialCapital: 0,
    limits: { maxOrderSize: 5, positionLimit: 10, maxDrawdownFrac: 0.5, maxDailyLoss: 1e9, killSwitchEnabled: true },
    strategy: { def, params: {} },
    latency: seededLatency(latencyParams(config), 1),
    orders: RecordRing.allocate(OM_STRIDE, 64, false),
    sessionStartNs: 0,
    sessionEndNs: 1e9,
    flattenMinutes: 0,
    portfolio,
  });
  assert.throws(() => e.finish(1e9), /a position of 1 is open at the session end and no two-sided book was seen: no price to mark it at/);
});

test.run();
