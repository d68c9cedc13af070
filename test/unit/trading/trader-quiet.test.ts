// When an engine fed the touch is quiet (Trader.quietBounds: the driver may take the next events
// that leave the touch where it is a run at a time). A requote that settles is quiet at once; an
// acknowledgement keeps a quiet engine quiet unless the strategy listens to its orders; markouts
// falling due inside a quiet run resolve at the run's mid. trader-top-feed.test.ts shows over
// whole sessions that none of this changes a result; this file shows the states themselves.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BID, ER_ACK, ER_FILL, EV_STRIDE, MD_ADD } from '../../../src/core/events.ts';
import { marketMaker, marketMakerSetup } from '../../../src/strategy/builtin/market-maker.ts';
import type { StrategyDefinition } from '../../../src/strategy/port.ts';
import { quoteParams } from '../../../src/strategy/setup.ts';
import { MS, OPEN, traderHarness } from '../../helpers/trader-harness.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const config = shippedConfigNoModel();

/** The built-in (or `def` with its parameters) fed the touch, after the opening book. */
function setup(def: StrategyDefinition = marketMaker) {
  const h = traderHarness({ strategy: { ...marketMakerSetup(quoteParams(config)), def }, feed: 'top' });
  const ev = new Float64Array(EV_STRIDE);
  /** A run of n quiet events handed over at once, the last at `ts` (an add far below the touch). */
  const quietRun = (n: number, ts: number) => {
    ev.set([ts, MD_ADD, BID, h.e.bestBid - 3, 1, ts]);
    h.e.takeQuiet(n, ev, 0);
  };
  const bounds = new Float64Array(2);
  const quiet = () => {
    h.e.quietBounds(bounds);
    return bounds[0] > -Infinity;
  };
  h.openBook();
  return { ...h, quietRun, quiet };
}

test('the event whose requote settles leaves the engine quiet at once', () => {
  const { market, sent, quiet } = setup();
  assert.not.ok(quiet(), 'not before it quotes');
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  assert.is(sent().length, 2, 'it quotes both sides');
  assert.ok(quiet(), 'quiet from the quoting event on');
});

test('an acknowledgement keeps a quiet engine quiet; a fill makes it quote again', () => {
  const { market, sent, report, quiet } = setup();
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  const [bid, ask] = sent();
  report(OPEN + 2 * MS, ER_ACK, bid);
  report(OPEN + 2 * MS, ER_ACK, ask);
  assert.ok(quiet(), 'still quiet after both acknowledgements');
  report(OPEN + 3 * MS, ER_FILL, bid, 1);
  const after = sent();
  assert.ok(after.length > 0, 'the fill moves the position: the engine quotes again');
});

test('a strategy that listens to its orders is asked again after each of them', () => {
  const heard: number[] = [];
  const listening: StrategyDefinition = {
    ...marketMaker,
    create: (p, ctx) => {
      const s = marketMaker.create(p, ctx);
      s.onOrder = (_c, ev) => {
        heard.push(ev.type);
      };
      return s;
    },
  };
  const { market, sent, report, quiet } = setup(listening);
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  const [bid] = sent();
  assert.ok(quiet());
  report(OPEN + 2 * MS, ER_ACK, bid);
  assert.is(heard.length, 1, 'told of the acknowledgement');
  assert.not.ok(quiet(), 'not quiet: the strategy may have acted on it');
});

test('markouts falling due inside a quiet run resolve at its mid', () => {
  const { e, market, quietRun, sent, report, quiet } = setup();
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  const [bid, ask] = sent();
  report(OPEN + 2 * MS, ER_ACK, bid);
  report(OPEN + 2 * MS, ER_ACK, ask);
  report(OPEN + 3 * MS, ER_FILL, bid, 1);
  sent();
  // The next event leaves the touch where it was; the engine is quiet from it on.
  market(OPEN + 4 * MS, MD_ADD, BID, 19_989, 1);
  assert.ok(quiet());
  const before = e.markouts.sums();
  assert.equal(before.qty, [0, 0, 0, 0], 'nothing measured yet');
  // A run of quiet events past the first horizon (100 ms after the fill's exchange time).
  quietRun(50, OPEN + 200 * MS);
  const after = e.markouts.sums();
  assert.equal(after.qty, [1, 0, 0, 0], 'the 100 ms markout, once');
  // Bought at the bid (20,000) and marked at the run's mid (20,000.5): half a tick.
  assert.is(after.sumTicks[0], 0.5);
  assert.ok(quiet(), 'the run stays quiet');
});

test.run();
