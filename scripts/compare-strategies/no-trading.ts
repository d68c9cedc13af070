// The comparison's baseline: a strategy that never sends an order. Its sessions run the same
// market, clock and risk path as every other row, so its figures (P&L 0, no fills, no fees)
// are measured by the engine, not written in: a check that nothing outside the strategy trades.
//
//   node dist/engine.js --backtest --strategy-file scripts/compare-strategies/no-trading.ts --strategy no_trading

import { defineStrategy } from '../../src/strategy/port.ts';

export default defineStrategy({
  name: 'no_trading',
  version: '1.0.0',
  description: 'never quotes or sends an order: the baseline a strategy has to beat',
  wakes: 'touch',
  levels: 0,
  params: {},
  create() {
    return {};
  },
});
