// The fee schedules run the port's conformance suite (test/conformance/fees.ts): the schedule of
// every root the shipped config prices (its [fees.<ROOT>] sections and the flat [fees] table of
// the other built-in roots, through feeParams as both drivers resolve it), and schedules at the
// edges of the config's bounds (rebates, zero).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { feeParams } from '../../../src/config/derive.ts';
import { FeeSchedule } from '../../../src/exchange/fees.ts';
import { CONTRACTS } from '../../../src/market/instruments.ts';
import { describeFeeModel } from '../../conformance/fees.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const config = shippedConfigNoModel();
const roots = [...new Set([...Object.keys(CONTRACTS), ...Object.keys(config.fees).filter((k) => typeof config.fees[k] === 'object')])].sort();
for (const root of roots) describeFeeModel(`${root} (${feeParams(config, root).source})`, () => new FeeSchedule(feeParams(config, root)));
describeFeeModel('a maker rebate', () => new FeeSchedule({ makerFee: -0.2, takerFee: 0.35, exchangeFee: 0.1 }));
describeFeeModel('free', () => new FeeSchedule({ makerFee: 0, takerFee: 0, exchangeFee: 0 }));
describeFeeModel('the bounds', () => new FeeSchedule({ makerFee: -100, takerFee: 100, exchangeFee: 100 }));

test('every built-in root has a schedule in the shipped config', () => {
  assert.ok(roots.length >= Object.keys(CONTRACTS).length);
});

test('a non-finite fee is refused, naming the field', () => {
  for (const k of ['makerFee', 'takerFee', 'exchangeFee'] as const) {
    assert.throws(() => new FeeSchedule({ makerFee: 0, takerFee: 0, exchangeFee: 0, [k]: Number.NaN }), new RegExp(`fee ${k} must be a finite number`));
  }
});

test.run();
