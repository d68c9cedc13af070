// Imperative orders: a breakout trader. Every `window_ms` it compares the mid with the mid one
// window ago; a move of `trigger_ticks` or more buys (or sells) `size` contracts at once with an
// IOC order at the far touch, then rests a post-only take-profit order `target_ticks` away,
// which it moves (replace: one modify; the new price sends it to the back of the queue) if the
// market runs further its way. Order events keep its view of its own orders; it stops adding near the
// session end (reduce-only) and never holds more than `max_position`.
//
//   node dist/engine.js --backtest --strategy-file examples/strategies/breakout-taker.ts --strategy breakout_taker

import { ASK, BID, defineStrategy, FLAG_IOC, FLAG_POST_ONLY, ORDER_FILL, OS_NONE } from '../../src/strategy/port.ts';

export default defineStrategy({
  name: 'breakout_taker',
  version: '1.0.0',
  description: 'takes liquidity with IOC orders on a breakout of the mid, exits with a post-only take-profit it moves along',
  wakes: 'touch',
  levels: 0, // no quote() targets: every order is sent by hand
  params: {
    size: { type: 'integer', default: 1, min: 1, max: 100, unit: 'contracts', description: 'contracts per entry' },
    window_ms: { type: 'integer', default: 5000, min: 100, max: 600_000, unit: 'ms', description: 'the lookback between two checks' },
    trigger_ticks: { type: 'number', default: 3, min: 0.5, max: 1000, unit: 'ticks', description: 'mid move over a window that triggers an entry' },
    target_ticks: { type: 'integer', default: 4, min: 1, max: 1000, unit: 'ticks', description: 'take-profit distance from the entry' },
    max_position: { type: 'integer', default: 3, min: 1, max: 1000, unit: 'contracts', description: 'largest position it builds' },
  },
  create(p, ctx) {
    const size = p.size as number;
    const trigger = p.trigger_ticks as number;
    const target = p.target_ticks as number;
    const cap = p.max_position as number;
    let lastMid = NaN;
    let exitId = 0; // the working take-profit order (0: none)
    let entryPrice = NaN;
    ctx.wakeEvery((p.window_ms as number) * 1e6, 0);

    /** Rests (or moves) the take-profit for the whole position. */
    function placeExit(c: typeof ctx): void {
      const pos = c.position;
      if (pos === 0) {
        if (exitId !== 0) c.cancel(exitId);
        exitId = 0;
        return;
      }
      const side = pos > 0 ? ASK : BID;
      const price = pos > 0 ? Math.max(entryPrice + target, c.bestAsk) : Math.min(entryPrice - target, c.bestBid);
      // A refused replace leaves the exit working as it was; the next move tries again.
      if (exitId !== 0 && c.orderState(exitId) !== OS_NONE) c.replace(exitId, price, Math.abs(pos));
      else exitId = c.send(side, price, Math.abs(pos), FLAG_POST_ONLY);
    }

    return {
      onTimer(c) {
        const m = c.mid;
        const move = m - lastMid;
        lastMid = m;
        if (!(move === move) || c.reduceOnly) return;
        const pos = c.position;
        if (move >= trigger && pos + size <= cap) c.send(BID, c.bestAsk, size, FLAG_IOC);
        else if (move <= -trigger && pos - size >= -cap) c.send(ASK, c.bestBid, size, FLAG_IOC);
      },
      onOrder(c, ev) {
        if (ev.type !== ORDER_FILL || ev.id === exitId) {
          if (ev.id === exitId && c.orderState(exitId) === OS_NONE) exitId = 0;
          return;
        }
        entryPrice = ev.price; // an entry filled: the take-profit follows the latest entry
        placeExit(c);
      },
      onMarket(c) {
        // The market ran our way past the take-profit's anchor: move it along.
        const pos = c.position;
        if (pos > 0 && c.bestBid > entryPrice + target) {
          entryPrice = c.bestBid - target;
          placeExit(c);
        } else if (pos < 0 && c.bestAsk < entryPrice - target) {
          entryPrice = c.bestAsk + target;
          placeExit(c);
        }
      },
    };
  },
});
