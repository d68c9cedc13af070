// The same data in DBN v1, v2 and v3 (plain and zstd) decodes to the same records, and the
// fast face (cursor, numbers) agrees with the exact face (objects, bigint) on every field.
import { readFileSync } from 'node:fs';
import { Zstd } from '@hpcc-js/wasm-zstd';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DbnReader, type DbnRecord, isMbo, isMbp } from '../../../src/data/dbn/index.ts';

const DIR = new URL('../../fixtures/dbn/', import.meta.url).pathname;

function decodeAll(file: string, chunkSize?: number): { records: DbnRecord[]; version: number } {
  const reader = DbnReader.open(DIR + file, { chunkSize });
  try {
    return { records: [...reader.records()], version: reader.metadata.version };
  } finally {
    reader.close();
  }
}

const GROUPS = {
  mbo: ['test_data.mbo.v1.dbn.zst', 'test_data.mbo.v2.dbn.zst', 'test_data.mbo.v3.dbn.zst', 'test_data.mbo.v3.dbn'],
  'mbp-10': ['test_data.mbp-10.v1.dbn.zst', 'test_data.mbp-10.v2.dbn.zst', 'test_data.mbp-10.v3.dbn.zst', 'test_data.mbp-10.dbn'],
};

for (const [schema, files] of Object.entries(GROUPS)) {
  test(`${schema}: every version and compression decodes to the same records`, () => {
    const first = decodeAll(files[0]).records;
    assert.is(first.length, 2);
    for (const f of files.slice(1)) assert.equal(decodeAll(f).records, first, f);
  });
  test(`${schema}: chunk boundaries anywhere (1..64-byte reads) change nothing`, () => {
    for (const f of files) {
      const whole = decodeAll(f).records;
      for (const chunkSize of [1, 2, 3, 5, 8, 13, 64]) assert.equal(decodeAll(f, chunkSize).records, whole, `${f} chunkSize ${chunkSize}`);
    }
  });
}

test('cursor fields equal the exact record fields (MBO, MBP-10, MBP-1, TBBO, trades)', () => {
  for (const f of ['test_data.mbo.v3.dbn', 'test_data.mbp-10.dbn', 'test_data.mbp-1.v3.dbn.zst', 'test_data.tbbo.v3.dbn.zst', 'test_data.trades.v3.dbn.zst']) {
    const exact = decodeAll(f).records;
    const reader = DbnReader.open(DIR + f);
    const base = reader.metadata.start;
    let i = 0;
    for (let c = reader.next(); c !== null; c = reader.next(), i++) {
      const r = exact[i];
      assert.is(c.rtype, r.hd.rtype);
      assert.is(c.instrumentId, r.hd.instrument_id);
      assert.is(c.publisherId, r.hd.publisher_id);
      assert.is(c.tsEvent(), r.hd.ts_event);
      assert.is(BigInt(c.tsEventRel), r.hd.ts_event - base);
      if (isMbo(r) || isMbp(r)) {
        assert.is(BigInt(c.price), r.price, `${f} price`);
        assert.is(c.size, r.size);
        assert.is(String.fromCharCode(c.action), r.action);
        assert.is(String.fromCharCode(c.side), r.side);
        assert.is(c.flags, r.flags);
        assert.is(c.tsRecv(), r.ts_recv);
        assert.is(BigInt(c.tsRecvRel), r.ts_recv - base);
        assert.is(c.tsInDelta, r.ts_in_delta);
        assert.is(c.sequence, r.sequence);
      }
      if (isMbo(r)) {
        assert.is(BigInt(c.orderId), r.order_id);
        assert.is(c.orderIdExact(), r.order_id);
        assert.is(c.channelId, r.channel_id);
      }
      if (isMbp(r)) {
        assert.is(c.depth, r.depth);
        assert.is(c.levelCount, r.levels.length);
        r.levels.forEach((l, k) => {
          assert.is(BigInt(c.bidPx(k)), l.bid_px);
          assert.is(BigInt(c.askPx(k)), l.ask_px);
          assert.is(c.bidSz(k), l.bid_sz);
          assert.is(c.askSz(k), l.ask_sz);
          assert.is(c.bidCt(k), l.bid_ct);
          assert.is(c.askCt(k), l.ask_ct);
        });
      }
    }
    assert.is(i, exact.length, f);
    reader.close();
  }
});

test('a stream of several zstd frames and a skippable frame decodes as one file', async () => {
  const zstd = await Zstd.load();
  const plain = readFileSync(`${DIR}test_data.mbo.v3.dbn`);
  // Split inside the first record, so a record spans two frames.
  const skippable = Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
  const stream = Buffer.concat([zstd.compress(plain.subarray(0, 0x170)), skippable, zstd.compress(plain.subarray(0x170))]);
  for (const chunkSize of [1, 7, 4096]) {
    const reader = DbnReader.fromBytes(stream, 'frames.dbn.zst', { chunkSize });
    assert.ok(reader.compressed);
    assert.equal([...reader.records()], decodeAll('test_data.mbo.v3.dbn').records, `chunkSize ${chunkSize}`);
  }
});

test.run();
