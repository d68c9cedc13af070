// Before/after of the race for new price levels (docs/execution.md): one ES session of the
// shipped config (2024-01-02, seed 42), with and without the model, on the market without the race
// (raceProb 0: a level that opens waits for the ordinary inside-the-spread flow) and with it.
//   node --import tsx scripts/race-figures.ts
import { loadConfig } from '../src/config/load.ts';
import { requestModel, sessionSpecs, validateBacktestRequest } from '../src/backtest/request.ts';
import { runSession } from '../src/backtest/session.ts';
import type { SessionSpec } from '../src/backtest/session-spec.ts';
import { MarketGenerator } from '../src/market/generator.ts';
import { contractForRoot } from '../src/market/instruments.ts';

const { config } = loadConfig({});
console.log('| market | useML | fills | orders sent | fills per 100 orders | zero-ahead fills | markouts 100 ms / 1 s / 10 s / 60 s (ticks) | P&L |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|');
for (const raceProb of [0, undefined]) {
  for (const useML of [false, true]) {
    const v = validateBacktestRequest({ symbol: 'ES', useML }, config);
    if (!v.ok) throw new Error(JSON.stringify(v.errors));
    const spec: SessionSpec = sessionSpecs(v.request, config, false, requestModel(v.request, config))[0];
    const profile = raceProb === undefined ? {} : { raceProb };
    const source = new MarketGenerator(contractForRoot(spec.root), spec.date, spec.seed, {
      sessionStartNs: spec.sessionStartNs,
      sessionEndNs: spec.sessionEndNs,
      activity: spec.activity,
      profile,
    });
    const r = runSession(spec, { source });
    const m = r.markouts;
    const mk = m.qty.map((q, h) => (q > 0 ? (m.sumTicks[h] / q).toFixed(2) : 'n/a')).join(' / ');
    const pnl = r.pnlValues[r.pnlValues.length - 1];
    const share = r.fills ? ` (${((100 * r.zeroAheadFills) / r.fills).toFixed(1)} %)` : '';
    console.log(
      `| ${raceProb === 0 ? 'no race' : 'raced'} | ${useML} | ${r.fills.toLocaleString('en-US')} | ${r.ordersSent.toLocaleString('en-US')} | ${((100 * r.fills) / r.ordersSent).toFixed(2)} | ${r.zeroAheadFills.toLocaleString('en-US')}${share} | ${mk} | ${pnl < 0 ? '−' : '+'}$${Math.abs(pnl).toLocaleString('en-US', { maximumFractionDigits: 0 })}${r.killSwitch.tripped ? ' (kill switch)' : ''} |`,
    );
  }
}
