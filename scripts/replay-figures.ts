// docs/recorded-data.md, replay part: one synthetic ES session of the shipped config
// (2024-03-05, seed 42, 09:30-10:30 New York) exported as MBO and as MBP-10 DBN (zstd), then
//   - the direct run and the MBO replay with power, risk_averse and l3_fifo;
//   - power and risk_averse on the per-order events l3_fifo runs on;
//   - the MBP-10 replay (top 10 levels only) with power, next to the direct run.
//   node --import tsx scripts/replay-figures.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load.ts';
import { sessionSpecs, validateBacktestRequest } from '../src/backtest/request.ts';
import { runSession } from '../src/backtest/session.ts';
import type { SessionResult } from '../src/backtest/session-spec.ts';
import { exportSynthetic } from '../src/market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { planReplay } from '../src/market/replay/dataset.ts';

const DATE = '2024-03-05';
const { config } = loadConfig({});
config.simulation.session_end = '10:30';
const v = validateBacktestRequest({ symbol: 'ES', startDate: DATE, useML: false }, config);
if (!v.ok) throw new Error(JSON.stringify(v.errors));
const spec = sessionSpecs(v.request, config, false)[0];
const dir = mkdtempSync(join(tmpdir(), 'replay-figures-'));
const file = (schema: string) => join(dir, `es-${DATE}.${schema}.dbn.zst`);
for (const schema of ['mbo', 'mbp-10'] as const) {
  await exportSynthetic(
    file(schema),
    [
      {
        date: spec.date,
        rawSymbol: v.request.contracts[0],
        spec: contractForRoot(spec.root),
        seed: spec.seed,
        sessionStartNs: spec.sessionStartNs,
        sessionEndNs: spec.sessionEndNs,
        activity: spec.activity,
      },
    ],
    {
      schema,
      marketDataLatencyNs: spec.execution.latency.marketDataLatencyNs,
    },
  );
}

/** perOrder: one event per order change (what l3_fifo needs; the L2 models can run on it too). */
function replay(schema: 'mbo' | 'mbp-10', queue: string, perOrder = queue === 'l3_fifo'): SessionResult {
  const s = planReplay(file(schema), { perOrder }).sessions[0];
  return runSession({
    ...spec,
    execution: { ...spec.execution, queueModel: queue },
    sessionStartNs: s.sessionStartNs,
    sessionEndNs: s.sessionEndNs,
    replay: s.replay,
  });
}

function row(market: string, queue: string, r: SessionResult): string {
  const m = r.markouts;
  const mk = m.qty.map((q, h) => (q > 0 ? (m.sumTicks[h] / q).toFixed(3) : 'n/a')).join(' / ');
  const pnl = r.pnlValues[r.pnlValues.length - 1];
  const usd = `${pnl < 0 ? '−' : '+'}$${Math.abs(pnl).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  return `| ${market} | ${queue} | ${r.eventsProcessed.toLocaleString('en-US')} | ${r.fills.toLocaleString('en-US')} | ${r.ordersSent.toLocaleString('en-US')} | ${((100 * r.fills) / r.ordersSent).toFixed(2)} % | ${mk} | ${usd} |`;
}

try {
  console.log('| market | queue model | events | fills | orders sent | fill rate (fills / orders) | markouts 100 ms / 1 s / 10 s / 60 s (ticks) | P&L |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const queue of ['power', 'risk_averse']) {
    console.log(row('synthetic (direct)', queue, runSession({ ...spec, execution: { ...spec.execution, queueModel: queue } })));
  }
  for (const queue of ['power', 'risk_averse', 'l3_fifo']) console.log(row('MBO replay', queue, replay('mbo', queue)));
  // The L2 models on l3_fifo's per-order events: the same input, so only the queue model differs.
  for (const queue of ['power', 'risk_averse']) console.log(row('MBO replay, per-order events', queue, replay('mbo', queue, true)));
  console.log(row('MBP-10 replay', 'power', replay('mbp-10', 'power')));
  console.log(row('MBP-10 replay', 'risk_averse', replay('mbp-10', 'risk_averse')));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
