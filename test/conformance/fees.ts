// The fee port's conformance suite (src/exchange/fees.ts, `FeeModel`): what every fee model must
// hold. A fill's fee is per contract (no fixed part: a fill split in two pays what it pays whole),
// zero contracts cost nothing, the hot-path form feeInto() writes exactly what fee() returns and
// nothing beside it, and a liquidity flag other than maker or taker is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LIQ_MAKER, LIQ_TAKER } from '../../src/core/events.ts';
import type { FeeModel } from '../../src/exchange/fees.ts';

const QTYS = [1, 2, 3, 7, 10, 25, 100, 1000];

/** Runs the port's contract against one fee model. */
export function describeFeeModel(name: string, make: () => FeeModel): void {
  test(`fee model ${name}: finite, per contract, nothing for no contracts`, () => {
    const m = make();
    for (const liq of [LIQ_MAKER, LIQ_TAKER]) {
      const one = m.fee(liq, 1);
      assert.ok(Number.isFinite(one), `a contract costs ${one}`);
      assert.is(m.fee(liq, 0), 0);
      for (const a of QTYS) {
        assert.ok(Math.abs(m.fee(liq, a) - a * one) <= 1e-9 * Math.max(1, Math.abs(a * one)), `${a} contracts cost ${m.fee(liq, a)}, ${a} x ${one} expected`);
        for (const b of QTYS) {
          const whole = m.fee(liq, a + b),
            split = m.fee(liq, a) + m.fee(liq, b);
          assert.ok(Math.abs(whole - split) <= 1e-9 * Math.max(1, Math.abs(whole)), `a fill of ${a + b} costs ${whole}, in two (${a} + ${b}) ${split}`);
        }
      }
    }
  });

  test(`fee model ${name}: feeInto writes fee() bit for bit into its slot and nowhere else`, () => {
    const m = make();
    const out = new Float64Array(6).fill(-7.25);
    for (const liq of [LIQ_MAKER, LIQ_TAKER]) {
      for (const q of QTYS) {
        m.feeInto(out, 3, liq, q);
        assert.ok(Object.is(out[3], m.fee(liq, q)), `feeInto ${out[3]}, fee() ${m.fee(liq, q)} (${q} contracts, liquidity ${liq})`);
        for (const i of [0, 1, 2, 4, 5]) assert.is(out[i], -7.25, `slot ${i} was written`);
      }
    }
  });

  test(`fee model ${name}: the same fill always costs the same`, () => {
    const a = make(),
      b = make();
    for (const liq of [LIQ_MAKER, LIQ_TAKER])
      for (const q of QTYS) assert.ok(Object.is(a.fee(liq, q), b.fee(liq, q)) && Object.is(a.fee(liq, q), a.fee(liq, q)));
  });

  test(`fee model ${name}: an unknown liquidity flag is refused`, () => {
    assert.throws(() => make().fee(2, 1), /liquidity/);
  });
}
