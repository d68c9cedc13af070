// A market maker in forty lines: one level a side at the touch, stepped back a tick on the side
// the top-of-book imbalance leans against (a heavy bid queue means buyers are waiting: our ask
// would be picked off, so it steps back), and back from the side that would grow the inventory.
// Every `refresh_ms` a timer updates a slow average of the mid, which the quotes lean towards.
//
//   node dist/engine.js --backtest --strategy-file examples/strategies/imbalance-quoter.ts --strategy imbalance_quoter

import { ASK, BID, defineStrategy, NO_PRICE } from '../../src/strategy/port.ts';

export default defineStrategy({
  name: 'imbalance_quoter',
  version: '1.0.0',
  description: 'quotes the touch, stepping back a tick against the top-of-book imbalance and the inventory',
  wakes: 'touch',
  features: 'all', // imbalance_l1 is not computed for a strategy that reads the volatility only
  params: {
    size: { type: 'integer', default: 1, min: 1, max: 100, unit: 'contracts', description: 'contracts per quote' },
    threshold: { type: 'number', default: 0.6, min: 0, max: 1, description: 'imbalance beyond which the opposite quote steps back' },
    max_position: { type: 'integer', default: 10, min: 1, max: 1000, unit: 'contracts', description: 'inventory cap' },
    refresh_ms: { type: 'integer', default: 1000, min: 10, max: 60_000, unit: 'ms', description: 'period of the slow mid average' },
  },
  create(p, ctx) {
    const size = p.size as number;
    const threshold = p.threshold as number;
    const cap = p.max_position as number;
    let slowMid = NaN;
    ctx.wakeEvery((p.refresh_ms as number) * 1e6, 0);
    return {
      onTimer(c) {
        const m = c.mid;
        if (m === m) slowMid = slowMid === slowMid ? 0.9 * slowMid + 0.1 * m : m;
      },
      quote(c, q) {
        const imb = c.feature('imbalance_l1');
        const pos = c.position;
        let bid = c.bestBid;
        let ask = c.bestAsk;
        if (imb < -threshold || pos >= cap / 2 || c.mid > slowMid + 2) bid -= 1;
        if (imb > threshold || pos <= -cap / 2 || c.mid < slowMid - 2) ask += 1;
        q.price[BID] = c.reduceOnly && pos >= 0 ? NO_PRICE : bid;
        q.price[ASK] = c.reduceOnly && pos <= 0 ? NO_PRICE : ask;
        q.size[BID] = size;
        q.size[ASK] = size;
        q.maxPosition = cap;
      },
    };
  },
});
