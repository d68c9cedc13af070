import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PowerQueueModel, RiskAverseQueueModel } from '../../../src/exchange/queue-model.ts';
import { queueModelFromName } from '../../../src/exchange/queue-model-factory.ts';

const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps, `${a} != ${b}`);

test('power n=2: hand-worked split of a cancel between ahead and behind', () => {
  const m = new PowerQueueModel(2);
  // before 10, front 4 (back 6), 3 cancelled: prob(back) = 36/(36+16) = 9/13,
  // front' = 4 - (4/13)*3 = 40/13
  close(m.prob(4, 6), 9 / 13);
  close(m.onCancel(4, 10, 7), 40 / 13);
  // symmetric queue: half of the cancel comes from ahead
  close(m.onCancel(50, 100, 40), 20); // 50 - 0.5*60 + min(50 - 30, 0)
});

test('power n=2: the squared fast path gives the same double as the formula with Math.pow', () => {
  const m = new PowerQueueModel(2);
  // the model's formula, written out with prob() (Math.pow): equal to the last bit
  const reference = (front: number, before: number, after: number) => {
    const chg = before - after;
    const back = before - front;
    const prob = m.prob(front, back);
    let f = front - (1 - prob) * chg;
    const rest = back - prob * chg;
    if (rest < 0) f += rest;
    return f > after ? after : f > 0 ? f : 0;
  };
  let seed = 12345;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  for (let i = 0; i < 20000; i++) {
    const before = 1 + Math.floor(rand() * 500);
    const front = i % 2 === 0 ? Math.floor(rand() * before) : rand() * before; // whole and fractional fronts
    const after = Math.floor(rand() * before);
    assert.is(m.onCancel(front, before, after), reference(front, before, after), `front ${front} before ${before} after ${after}`);
  }
});

test('power n=1 is pro rata: the front loses front/before of the cancel', () => {
  const m = new PowerQueueModel(1);
  close(m.onCancel(4, 10, 7), 4 - 0.4 * 3); // 2.8
  close(m.onCancel(30, 40, 20), 30 - 0.75 * 20); // 15
});

test('power: when the back cannot absorb its share the rest comes from the front', () => {
  const m = new PowerQueueModel(3);
  // front 2, back 8, 9 cancelled: prob = 512/520, back - prob*9 < 0 -> front' = after = 1
  close(m.onCancel(2, 10, 1), 1);
  // n=1, front 2, back 8, 9 cancelled: prob 0.8, back share 7.2 <= 8 -> 2 - 0.2*9 = 0.2
  close(new PowerQueueModel(1).onCancel(2, 10, 1), 0.2);
});

test('power: clamped to [0, after]', () => {
  // n=0.5, front 1, back 100, 50 cancelled: prob = 10/11, 1 - 50/11 < 0 -> 0
  assert.is(new PowerQueueModel(0.5).onCancel(1, 101, 51), 0);
  // everything cancelled -> 0 ahead
  assert.is(new PowerQueueModel(2).onCancel(7, 10, 0), 0);
  // empty level (front = back = 0): prob falls back to 1, front stays 0
  assert.is(new PowerQueueModel(2).prob(0, 0), 1);
  assert.is(new PowerQueueModel(2).onCancel(0, 0, 0), 0);
  // a size increase is not a cancel: front is kept (capped by the level)
  assert.is(new PowerQueueModel(2).onCancel(5, 10, 12), 5);
  // front at the very front: cancels all come from behind
  assert.is(new PowerQueueModel(2).onCancel(0, 10, 4), 0);
});

test('power large n: cancels come from the longer side, no overflow', () => {
  const m50 = new PowerQueueModel(50);
  close(m50.onCancel(300, 800, 700), 300, 1e-6); // longer back absorbs it all
  close(m50.onCancel(500, 800, 700), 400, 1e-6); // longer front absorbs it all
  // n = 1000: 500^1000 overflows; the ratio form still gives the right limit
  const m1000 = new PowerQueueModel(1000);
  close(m1000.onCancel(500, 800, 700), 400, 1e-9);
  close(m1000.onCancel(300, 800, 700), 300, 1e-9);
  assert.ok(Number.isFinite(m1000.onCancel(1e6, 2e6, 1.5e6)));
});

test('power model advances more with larger n when we are ahead of a long back', () => {
  // front 20, back 80, 30 cancelled
  const f1 = new PowerQueueModel(1).onCancel(20, 100, 70);
  const f2 = new PowerQueueModel(2).onCancel(20, 100, 70);
  close(f1, 20 - 0.2 * 30); // 14
  close(f2, 20 - (400 / 6800) * 30); // 18.235...
  assert.ok(f2 > f1);
});

test('risk averse: cancels never advance us, only cap the front at the level size', () => {
  const m = new RiskAverseQueueModel();
  assert.is(m.onCancel(4, 10, 7), 4);
  assert.is(m.onCancel(4, 10, 3), 3);
  assert.is(m.onCancel(0, 10, 3), 0);
  for (let after = 10; after >= 0; after--) assert.ok(m.onCancel(6, 10, after) >= Math.min(6, after));
});

test('onDepthChange (the in-place hot-path form) agrees with onCancel for both models', () => {
  const fronts = new Float64Array(3);
  let cases = 0;
  for (const m of [new PowerQueueModel(1), new PowerQueueModel(2), new PowerQueueModel(7), new RiskAverseQueueModel()]) {
    for (const before of [0, 1, 10, 250]) {
      for (let front = 0; front <= before; front += Math.max(1, before / 5)) {
        for (const after of [0, Math.floor(before / 3), before, before + 5]) {
          fronts[1] = front;
          m.onDepthChange(fronts, 1, before, after);
          assert.is(fronts[1], m.onCancel(front, before, after), `${m.name} ${front} ${before} ${after}`);
          assert.ok(fronts[1] >= 0 && fronts[1] <= Math.max(after, 0));
          cases++;
        }
      }
    }
  }
  assert.ok(cases > 100);
  assert.is(fronts[0], 0); // neighbours untouched
  assert.is(fronts[2], 0);
});

test('factory by name', () => {
  const p = queueModelFromName('power', 3);
  assert.is(p.name, 'power');
  assert.ok(p instanceof PowerQueueModel);
  assert.is((p as PowerQueueModel).n, 3);
  assert.is(queueModelFromName('risk_averse', 2).name, 'risk_averse');
  assert.throws(() => queueModelFromName('fifo', 2), /unknown queue model/);
  assert.throws(() => new PowerQueueModel(0), /exponent/);
});

test('L2 models: a new order is behind the displayed size; trades consume the front; the fill check floors what passed', () => {
  for (const m of [new PowerQueueModel(2), new RiskAverseQueueModel()]) {
    const f = new Float64Array(3);
    m.onNewOrder(f, 1, 40);
    assert.is(f[1], 40, m.name);
    m.onTrade(f, 1, 30);
    assert.is(f[1], 10);
    assert.is(m.filled(f, 1), 0, 'not reached: nothing filled');
    assert.is(f[1], 10);
    m.onTrade(f, 1, 13);
    assert.is(m.filled(f, 1), 3);
    assert.is(f[1], 0, 'at the head of the queue after being reached');
    f[2] = 2.5; // a fractional front (power model after a cancel)
    m.onTrade(f, 2, 5);
    assert.is(m.filled(f, 2), 2, 'whole contracts only');
    // adds join behind: a depth increase leaves the front alone
    f[0] = 7;
    m.onDepthChange(f, 0, 10, 25);
    assert.is(f[0], 7);
  }
});

test.run();
