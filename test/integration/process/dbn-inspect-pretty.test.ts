// `--inspect --pretty`: prices as decimal numbers and timestamps as ISO 8601 UTC with all nine
// nanosecond digits, checked against the raw integers the plain --inspect prints for the same file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixedToDecimal, isoNs } from '../../../src/data/dbn/pretty.ts';
import { runCli } from '../../helpers/cli.ts';

const DIR = new URL('../../fixtures/dbn/', import.meta.url).pathname;
const lines = (s: string) =>
  s
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

test('the MBO fixture: price 3722.75, ts_event with its nanoseconds, metadata times in ISO', () => {
  const r = runCli(['--inspect', `${DIR}test_data.mbo.v3.dbn.zst`, '--limit', '1', '--pretty']);
  assert.is(r.code, 0, r.stderr);
  const [meta, rec] = lines(r.stdout);
  assert.is(meta.start, '2020-12-28T13:00:00.000000000Z');
  assert.is(meta.end, '2020-12-29T00:00:00.000000000Z');
  assert.is(rec.price, 3722.75);
  assert.is(rec.hd.ts_event, '2020-12-28T13:00:00.000429831Z');
  assert.is(rec.ts_recv, '2020-12-28T13:00:00.000704060Z');
  // Not timestamps or prices: unchanged.
  assert.is(rec.order_id, '647784973705');
  assert.is(rec.ts_in_delta, 22993);
});

test('every price and time of an MBP-10 file equals the raw value it came from', () => {
  const raw = lines(runCli(['--inspect', `${DIR}test_data.mbp-10.v3.dbn.zst`, '--limit', '3']).stdout);
  const pretty = lines(runCli(['--inspect', `${DIR}test_data.mbp-10.v3.dbn.zst`, '--limit', '3', '--pretty']).stdout);
  assert.is(pretty.length, raw.length);
  for (let i = 1; i < raw.length; i++) {
    assert.is(pretty[i].hd.ts_event, isoNs(BigInt(raw[i].hd.ts_event)));
    assert.is(pretty[i].price, Number(raw[i].price) / 1e9);
    for (let l = 0; l < raw[i].levels.length; l++) {
      const px = raw[i].levels[l].bid_px;
      assert.is(pretty[i].levels[l].bid_px, px === '9223372036854775807' ? null : fixedToDecimal(BigInt(px)));
    }
  }
});

test('the conversions are exact: nanoseconds kept, negative prices, sentinels', () => {
  assert.is(isoNs(1704205800374063174n), '2024-01-02T14:30:00.374063174Z');
  assert.is(isoNs(0n), '1970-01-01T00:00:00.000000000Z');
  assert.is(fixedToDecimal(5129250000000n), 5129.25);
  assert.is(fixedToDecimal(-1500000000n), -1.5);
  assert.is(fixedToDecimal(4500123456789n), 4500.123456789);
});

test('--pretty only applies with --inspect', () => {
  const r = runCli(['--backtest', '--pretty']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--pretty only applies with --inspect/);
});

test.run();
