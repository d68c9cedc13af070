// Bad recorded data fails clearly, naming the file and where: a truncated file (through the decoder
// thread), a symbol of no known contract, a price off the tick grid; an MBO file that starts
// mid-session (cancels of orders never added, as the official fixture does) is counted and skipped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { runSession } from '../../../src/backtest/session.ts';
import { validateBacktestRequest, sessionSpecs } from '../../../src/backtest/request.ts';
import { parseConfig } from '../../../src/config/load.ts';
import type { DbnMetadata } from '../../../src/data/dbn/index.ts';
import { DbnWriter, newMboFields } from '../../../src/data/dbn/writer.ts';
import { planReplay } from '../../../src/market/replay/dataset.ts';
import { DbnMarketSource } from '../../../src/market/replay/dbn-source.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { EV_STRIDE } from '../../../src/core/events.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures', 'dbn');
const dir = mkdtempSync(join(tmpdir(), 'dbn-replay-errors-'));
const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n`, 'test.toml');
const START = 1_709_649_000_000_000_000n; // 2024-03-05 14:30 UTC = 09:30 New York

function meta(rawSymbol: string): DbnMetadata {
  return {
    version: 3,
    dataset: 'TEST.GLBX',
    schema: 'mbo',
    start: START,
    end: START + 60_000_000_000n,
    limit: 0n,
    stype_in: 'raw_symbol',
    stype_out: 'instrument_id',
    ts_out: false,
    symbol_cstr_len: 71,
    symbols: [rawSymbol],
    partial: [],
    not_found: [],
    mappings: [{ raw_symbol: rawSymbol, intervals: [{ start_date: '2024-03-05', end_date: '2024-03-06', symbol: '42' }] }],
  };
}

/** An MBO file of `prices` (1e-9 units): one add each, a second apart. */
async function mboFile(name: string, rawSymbol: string, prices: number[]): Promise<string> {
  const file = join(dir, name);
  const w = await DbnWriter.toFile(file, meta(rawSymbol));
  const f = newMboFields();
  f.instrumentId = 42;
  prices.forEach((p, i) => {
    Object.assign(f, { tsEventRel: i * 1e9, tsRecvRel: i * 1e9, orderId: i + 1, price: p, size: 1, action: 0x41, side: 0x42, flags: 0x80 });
    w.writeMbo(f);
  });
  w.close();
  return file;
}

function drain(file: string): DbnMarketSource {
  const s = planReplay(file).sessions[0];
  const src = new DbnMarketSource(s.replay, s.sessionStartNs, s.sessionEndNs);
  const ring = RecordRing.allocate(EV_STRIDE, 1024, false);
  try {
    while (!src.done) {
      const n = src.generate(ring, ring.free());
      ring.advance(n);
      ring.release();
    }
  } finally {
    src.close();
  }
  return src;
}

test.before(() => ensureBuilt());
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('a symbol of no known contract root is an error naming the file and the symbol', async () => {
  const file = await mboFile('zz.mbo.dbn.zst', 'ZZH4', [5000e9]);
  assert.throws(
    () => planReplay(file),
    (e: Error) => e.message.includes(file) && e.message.includes('ZZH4') && /no symbol maps to a known contract/.test(e.message),
  );
  const v = validateBacktestRequest({}, config, file);
  assert.is(v.ok, false);
  if (!v.ok) assert.is(v.errors[0].field, 'data');
});

test('a price off the tick grid is an error naming the file and the record', async () => {
  const file = await mboFile('offgrid.mbo.dbn.zst', 'ESH4', [5000e9, 5000.1e9]);
  assert.throws(
    () => drain(file),
    (e: Error) => e.message.startsWith(`${file}: record 1: price 5000100000000`) && e.message.includes('ESH4'),
  );
});

test('a truncated file fails the session (decoded in its own thread) with the decoder error naming the file', () => {
  const file = join(dir, 'cut.mbo.dbn');
  const whole = readFileSync(join(FIXTURES, 'test_data.mbo.v3.dbn'));
  writeFileSync(file, whole.subarray(0, whole.length - 10));
  const v = validateBacktestRequest({}, config, file);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const spec = sessionSpecs(v.request, config, false)[0];
  assert.throws(
    () => runSession(spec),
    (e: Error) => e.message.includes(file),
  );
});

test('cancels of orders never seen (a file starting mid-session) are counted and skipped', () => {
  const file = join(dir, 'mid.mbo.dbn.zst');
  copyFileSync(join(FIXTURES, 'test_data.mbo.v3.dbn.zst'), file);
  const src = drain(file);
  assert.equal(src.unknownOrders, { unknownCancels: 2, unknownFills: 0, unknownModifies: 0, duplicateAdds: 0 });
  assert.is(src.records, 2);
});

test.run();
