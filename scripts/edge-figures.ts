// Figures of the execution edge cases (docs/strategy-market-maker.md), from whole backtest sessions
// with the config's defaults and without the model (config/config.toml: one ES session, 2024-01-02, seed 42):
//   skew sweep: max |position|, P&L, fills, the kill switch and the final position per skew_factor;
//   inventory_limit 20 with order_size 3: max |position|;
//   position_limit 2: distinct risk rejects and blocked requotes;
//   one NQ session: self-match prevention events (0: the engine cancels before it sends new quotes).
// Run: node --import tsx scripts/edge-figures.ts [skew|inventory|rejects|smp]...
import { loadConfig } from '../src/config/load.ts';
import type { EngineConfig } from '../src/config/schema.ts';
import { sessionSpecs, validateBacktestRequest } from '../src/backtest/request.ts';
import { runSession } from '../src/backtest/session.ts';
import type { SessionResult } from '../src/backtest/session-spec.ts';

function session(body: Record<string, unknown>, mut: (c: EngineConfig) => void = () => {}): SessionResult {
  const { config } = loadConfig({ path: 'config/config.toml' });
  mut(config);
  const v = validateBacktestRequest({ symbol: 'ES', useML: false, ...body }, config);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return runSession(sessionSpecs(v.request, config, false)[0]);
}

const pnl = (r: SessionResult) => r.pnlValues[r.pnlValues.length - 1];
const counts = (r: SessionResult) => `risk_rejects ${r.riskRejects}, blocked_requotes ${r.blockedRequotes}, self_match_prevented ${r.selfMatchPrevented}`;
const which = process.argv.slice(2);
const want = (w: string) => which.length === 0 || which.includes(w);

if (want('skew')) {
  console.log('| skew_factor | max \\|position\\| | P&L (USD) | fills | kill switch: P&L when tripped | final position |');
  console.log('|---:|---:|---:|---:|---:|---:|');
  for (const skewFactor of [0, 0.001, 0.01, 0.05, 0.1, 0.5, 1]) {
    const r = session({ skewFactor });
    const kill = r.killSwitch.tripped ? r.killSwitch.pnl.toFixed(2) : 'not tripped';
    console.log(`| ${skewFactor} | ${r.maxAbsPosition} | ${pnl(r).toFixed(2)} | ${r.fills} | ${kill} | ${r.finalPosition} |`);
  }
}
if (want('inventory')) {
  const r = session({ skewFactor: 0, inventoryLimit: 20 }, (c) => {
    c.strategy.order_size = 3;
  });
  console.log(`inventory_limit 20, order_size 3, skew 0: max |position| ${r.maxAbsPosition}`);
}
if (want('rejects')) {
  const r = session({ positionLimit: 2 });
  console.log(`position_limit 2: ${counts(r)}`);
}
if (want('smp')) {
  const r = session({ symbol: 'NQ' });
  console.log(`NQ: ${counts(r)}, fills ${r.fills}`);
}
