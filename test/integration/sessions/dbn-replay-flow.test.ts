// The realistic order flow through the engine's recorded-data path: a synthetic session with
// REALISTIC_FLOW exported as MBO DBN (M records for its modifies) replays cleanly (every M of a
// known order, never crossed) with each queue model, and l3_fifo, which follows each order's
// priority through the modifies, places our orders differently from the level-based models.
// Needs the build (the pool's workers), as test/dbn-replay-roundtrip.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { createBacktestPool, runBacktest } from '../../../src/backtest/run.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { dbnFacts } from '../../../src/market/facts/facts.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { REALISTIC_FLOW } from '../../../src/market/profiles.ts';

const dir = mkdtempSync(join(tmpdir(), 'dbn-replay-flow-'));
const DATE = '2024-03-05';
const config = (queue: string) =>
  parseConfig(
    `data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:40"\n[execution]\nqueue_model = "${queue}"\n`,
    `${queue}.toml`,
  );

function ok<T>(v: { ok: true; request: T } | { ok: false; errors: unknown }): T {
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.request;
}

let pool: ReturnType<typeof createBacktestPool>;
let file = '';
test.before(async () => {
  ensureBuilt();
  pool = createBacktestPool(1);
  const cfg = config('power');
  const req = ok(validateBacktestRequest({ symbol: 'ES', startDate: DATE }, cfg));
  const s = sessionSpecs(req, cfg, false)[0];
  file = join(dir, `es-${DATE}.mbo.dbn.zst`);
  const session = {
    date: s.date,
    rawSymbol: req.contracts[0],
    spec: contractForRoot(s.root),
    seed: s.seed,
    sessionStartNs: s.sessionStartNs,
    sessionEndNs: s.sessionEndNs,
    activity: s.activity,
    profile: REALISTIC_FLOW,
  };
  await exportSynthetic(file, [session], { schema: 'mbo', marketDataLatencyNs: s.execution.latency.marketDataLatencyNs });
});
test.after(async () => {
  await pool.destroy();
  rmSync(dir, { recursive: true, force: true });
});

test('the realistic export replays cleanly with power, risk_averse and l3_fifo; l3_fifo places us differently', async () => {
  const [facts] = dbnFacts(file);
  assert.ok(facts.facts.modify_share >= 0.1, `modify share ${facts.facts.modify_share}`);
  const results: Record<string, Awaited<ReturnType<typeof runBacktest>>['result']> = {};
  for (const queue of ['power', 'risk_averse', 'l3_fifo']) {
    const cfg = config(queue);
    const { result } = await runBacktest(ok(validateBacktestRequest({}, cfg, file)), cfg, { pool });
    results[queue] = result;
    assert.ok(result.total_fills > 0, `${queue}: the session trades`);
    // Every M is of an order the file added, nothing is skipped, the book is never crossed.
    const q = result.data_quality!;
    assert.equal([q.records_warmup, q.unknown_cancels, q.unknown_modifies, q.unknown_fills, q.time_clamped, q.crossed_ns], [1, 0, 0, 0, 0, 0], queue);
  }
  // Per-order events: l3_fifo sees one per order touched (a price move is two, as for L2).
  assert.ok(results.l3_fifo.events_processed > results.power.events_processed);
  const fills = (r: (typeof results)[string]) => JSON.stringify([r.total_fills, r.total_pnl]);
  assert.is.not(fills(results.l3_fifo), fills(results.risk_averse));
  assert.is.not(fills(results.power), fills(results.risk_averse));
});

test.run();
