// The round trip: a synthetic session exported as MBO DBN (the --export-dbn writer) and replayed
// through the engine with the same queue model gives the same backtest result, byte for byte, as
// the direct run (the result's data_source aside, which says where the market came from). The
// MBO book must rebuild every L2 event exactly: adds, LIFO cancels, FIFO fills (T/F/C) merged
// back into one level change per event, same timestamps, same order.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { createBacktestPool, runBacktest } from '../../../src/backtest/run.ts';
import { parseConfig } from '../../../src/config/load.ts';
import type { EngineConfig } from '../../../src/config/schema.ts';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';

const dir = mkdtempSync(join(tmpdir(), 'dbn-replay-roundtrip-'));
const DATE = '2024-03-05';
// 10 simulated minutes: enough fills and cancels at our levels to tell queue models apart.
const config = (queue: string) =>
  parseConfig(
    `data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:40"\n[execution]\nqueue_model = "${queue}"\n`,
    `${queue}.toml`,
  );

function ok<T>(v: { ok: true; request: T } | { ok: false; errors: unknown }): T {
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.request;
}

async function exportSession(cfg: EngineConfig, schema: 'mbo' | 'mbp-10'): Promise<string> {
  const req = ok(validateBacktestRequest({ symbol: 'ES', startDate: DATE }, cfg));
  const s = sessionSpecs(req, cfg, false)[0];
  const file = join(dir, `es-${DATE}.${schema}.dbn.zst`);
  await exportSynthetic(
    file,
    [
      {
        date: s.date,
        rawSymbol: req.contracts[0],
        spec: contractForRoot(s.root),
        seed: s.seed,
        sessionStartNs: s.sessionStartNs,
        sessionEndNs: s.sessionEndNs,
        activity: s.activity,
      },
    ],
    {
      schema,
      marketDataLatencyNs: s.execution.latency.marketDataLatencyNs,
    },
  );
  return file;
}

// Where the market came from, and how the recorded data met the engine (the direct run has none).
const withoutSource = (r: { session_results: object[] }) =>
  JSON.stringify({ ...r, data_source: null, data_quality: null, session_results: r.session_results.map((s) => ({ ...s, data_quality: null })) });

// Sessions run on the pool, as backtests do, and not on this thread: a long run of other queue
// models through SimExchange here would make its queue call sites polymorphic for the tests that
// follow in this process (sim-exchange's no-allocation test measures that code).
let pool: ReturnType<typeof createBacktestPool>;
const run = (req: Parameters<typeof runBacktest>[0], cfg: EngineConfig) => runBacktest(req, cfg, { pool });

test.before(() => {
  ensureBuilt();
  pool = createBacktestPool(1);
});
test.after(async () => {
  await pool.destroy();
  rmSync(dir, { recursive: true, force: true });
});

for (const queue of ['power', 'risk_averse']) {
  test(`MBO export -> replay with ${queue} is byte-identical to the direct run`, async () => {
    const cfg = config(queue);
    const direct = await run(ok(validateBacktestRequest({ symbol: 'ES', startDate: DATE }, cfg)), cfg);
    const file = await exportSession(cfg, 'mbo');
    const replay = await run(ok(validateBacktestRequest({}, cfg, file)), cfg);
    assert.is(direct.result.data_source, 'synthetic');
    assert.is(replay.result.data_source, `dbn es-${DATE}.mbo.dbn.zst (mbo, ${direct.result.contracts[0]})`);
    assert.ok(direct.result.total_fills > 0, 'the session trades');
    assert.is(withoutSource(replay.result), withoutSource(direct.result));
    // The export is clean: its opening clear is the only warm-up, nothing unknown, never crossed.
    const q = replay.result.data_quality!;
    assert.equal(
      [q.records_warmup, q.unknown_cancels, q.unknown_modifies, q.unknown_fills, q.time_clamped, q.crossed_ns, q.phase_changes],
      [1, 0, 0, 0, 0, 0, 0],
    );
  });
}

test('l3_fifo over the same MBO export runs and differs from the L2 models only in queue position', async () => {
  const file = join(dir, `es-${DATE}.mbo.dbn.zst`);
  const cfg = config('l3_fifo');
  const r = await run(ok(validateBacktestRequest({}, cfg, file)), cfg);
  const ra = config('risk_averse');
  const base = await run(ok(validateBacktestRequest({}, ra, file)), ra);
  // Per-order events: one per order touched, more than the per-level replay's; it trades.
  assert.ok(r.result.events_processed > base.result.events_processed);
  assert.ok(r.result.total_fills > 0);
  assert.is.not(withoutSource(r.result), withoutSource(base.result));
});

test.run();
