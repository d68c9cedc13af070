// The markout horizon rule docs/metrics.md states: mid(t + h) is the first mid at or after
// t + h (the mid after the first market event at or after it), not the mid prevailing at t + h.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BID } from '../../../src/core/events.ts';
import { FillLog } from '../../../src/portfolio/fill-log.ts';
import { MarkoutTracker } from '../../../src/portfolio/markouts.ts';

test('a quiet market: the 100 ms and 1 s markouts take the first mid at or after t + h', () => {
  const log = new FillLog();
  log.add();
  const m = new MarkoutTracker(log);
  m.addFill(0, BID, 100, 1, 0); // bought at 100 ticks at t = 0
  const at = new Float64Array(2);
  at.set([50e6, 101]); // 50 ms: the mid prevailing at t + 100 ms, before either horizon
  m.resolve(at, 0);
  assert.is(m.measuredQty[0], 0, 'nothing due before t + 100 ms');
  at.set([5e9, 103]); // the next event, at 5 s: past both the 100 ms and the 1 s horizons
  m.resolve(at, 0);
  assert.is(log.get('markout100ms', 0), 3, 'the mid at 5 s, not the 101 prevailing at 100 ms');
  assert.is(log.get('markout1s', 0), 3);
  assert.ok(Number.isNaN(log.get('markout10s', 0)), 'not yet due');
  at.set([10e9, 99]); // exactly t + 10 s: at or after
  m.resolve(at, 0);
  assert.is(log.get('markout10s', 0), -1);
});

test.run();
