// Every official fixture (each version and compression) decodes to the metadata and records
// derived independently from the published layouts (fixtures/dbn/DERIVATION.md, expected.json):
// every field of every record.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DbnReader, dbnJson } from '../../../src/data/dbn/index.ts';

const DIR = new URL('../../fixtures/dbn/', import.meta.url).pathname;
const EXPECTED: Record<string, { metadata: unknown; records: unknown[] }> = JSON.parse(readFileSync(`${DIR}expected.json`, 'utf8'));
const plain = (x: unknown): unknown => JSON.parse(dbnJson(x));

test('the derivation covers every fixture file', () => {
  const files = [
    'test_data.definition.v3.dbn.zst',
    'test_data.mbo.v1.dbn.zst',
    'test_data.mbo.v2.dbn.zst',
    'test_data.mbo.v3.dbn',
    'test_data.mbo.v3.dbn.zst',
    'test_data.mbp-1.v3.dbn.zst',
    'test_data.mbp-10.dbn',
    'test_data.mbp-10.v1.dbn.zst',
    'test_data.mbp-10.v2.dbn.zst',
    'test_data.mbp-10.v3.dbn.zst',
    'test_data.tbbo.v3.dbn.zst',
    'test_data.trades.v3.dbn.zst',
  ];
  assert.equal(Object.keys(EXPECTED).sort(), files);
});

for (const [file, want] of Object.entries(EXPECTED)) {
  test(`${file}: metadata and every field of every record`, () => {
    const reader = DbnReader.open(DIR + file);
    try {
      assert.is(reader.compressed, file.endsWith('.zst'));
      assert.equal(plain(reader.metadata), want.metadata);
      const got = [...reader.records()].map(plain);
      assert.is(got.length, want.records.length);
      got.forEach((r, i) => assert.equal(r, want.records[i], `record ${i}`));
      assert.is(reader.skipped, 0);
    } finally {
      reader.close();
    }
  });
}

test('compression is detected by magic, not by name', () => {
  const bytes = readFileSync(`${DIR}test_data.mbo.v3.dbn.zst`);
  const reader = DbnReader.fromBytes(bytes, 'misnamed.dbn');
  assert.ok(reader.compressed);
  assert.equal([...reader.records()].map(plain), EXPECTED['test_data.mbo.v3.dbn.zst'].records);
});

test.run();
