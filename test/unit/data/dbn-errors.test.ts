// Bad input: each case is a DbnError of its kind whose message names the file and where (byte
// offset in the decoded stream and/or record index); nothing hangs, nothing is half-returned.
// Inputs are the official plain MBO v3 fixture (metadata 8 + 0x160 bytes, then two 56-byte
// records at 0x168 and 0x1a0; see fixtures/dbn/DERIVATION.md) altered byte by byte.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DbnError, type DbnErrorKind, DbnReader } from '../../../src/data/dbn/index.ts';
import { tempDir } from '../../helpers/cli.ts';

const DIR = new URL('../../fixtures/dbn/', import.meta.url).pathname;
const MBO = readFileSync(`${DIR}test_data.mbo.v3.dbn`);
const MBO_ZST = readFileSync(`${DIR}test_data.mbo.v3.dbn.zst`);
const REC0 = 0x168;
const REC1 = 0x1a0;

function decode(bytes: Uint8Array, name = 'bad.dbn'): unknown[] {
  const reader = DbnReader.fromBytes(bytes, name, { chunkSize: 64 });
  return [...reader.records()];
}

function fails(kind: DbnErrorKind, bytes: Uint8Array, ...patterns: RegExp[]): DbnError {
  try {
    decode(bytes);
  } catch (e) {
    if (!(e instanceof DbnError)) throw e;
    assert.is(e.kind, kind, e.message);
    assert.match(e.message, /^bad\.dbn\b/);
    for (const p of patterns) assert.match(e.message, p);
    return e;
  }
  assert.unreachable(`expected a ${kind} error`);
  throw new Error('unreachable');
}

const edit = (at: number, ...values: number[]): Buffer => {
  const b = Buffer.from(MBO);
  values.forEach((v, i) => (b[at + i] = v));
  return b;
};

test('the unaltered file decodes (baseline)', () => {
  assert.is(decode(MBO).length, 2);
});

test('wrong magic', () => {
  fails('magic', edit(0, 0x50, 0x4b, 0x03, 0x04), /wrong magic 50 4b 03 04/, /byte offset 0/);
  fails('magic', Buffer.from('hello, world: not DBN at all'), /not a DBN file/);
});

test('unsupported versions: 0 and 4 and later', () => {
  fails('version', edit(3, 0), /unsupported DBN version 0/, /byte offset 3/);
  fails('version', edit(3, 4), /unsupported DBN version 4: this decoder reads versions 1 to 3/);
});

test('unsupported and unknown schemas', () => {
  // Schema u16 at byte 8 + 16.
  fails('schema', edit(24, 5, 0), /unsupported schema ohlcv-1s/);
  fails('schema', edit(24, 0xe7, 0x03), /unknown schema id 999/);
});

test('truncated: in the prelude, in the metadata, inside a record', () => {
  fails('truncated', MBO.subarray(0, 6), /DBN prelude/);
  fails('truncated', MBO.subarray(0, 200), /inside the metadata/);
  const e = fails('truncated', MBO.subarray(0, REC1 + 20), /record 1/, /byte offset 416/, /20 of 56 bytes/);
  assert.is(e.record, 1);
  assert.is(e.offset, REC1);
  // Ending exactly between records is a complete (shorter) file, not an error.
  assert.is(decode(MBO.subarray(0, REC1)).length, 1);
});

test('truncated zstd stream', () => {
  fails('truncated', MBO_ZST.subarray(0, 100), /compressed file ends inside a zstd frame/);
});

test('corrupt zstd data', () => {
  const b = Buffer.from(MBO_ZST);
  b[4] ^= 0xff; // frame header descriptor: reserved bit set
  fails('zstd', b, /corrupt zstd data/);
});

test('corrupt record lengths', () => {
  fails('corrupt', edit(REC1, 0), /record 1/, /byte offset 416/, /shorter than the 16-byte record header/);
  // An MBO record claiming 16 bytes: framed, but too short for its layout.
  fails('corrupt', edit(REC0, 4), /record 0/, /rtype 0xa0 is 16 bytes, its layout needs 56/);
});

test('records out of time order (ts_recv decreasing)', () => {
  // ts_recv (offset 40): record 0 has bytes 3c de aa ac.., record 1 b0 fa aa ac..; record 1's
  // third byte 0xaa -> 0xa0 puts it 655 us before record 0.
  const b = edit(REC1 + 40 + 2, 0xa0);
  const e = fails('order', b, /record 1/, /byte offset 416/, /out of time order: ts_recv 1609160400000\d+ is before the previous record's 1609160400000704060/);
  assert.is(e.record, 1);
  // The check can be turned off for files known to be unordered.
  assert.is([...DbnReader.fromBytes(b, 'x', { checkOrder: false }).records()].length, 2);
});

test('ts_event may decrease while ts_recv increases: DBN orders by ts_recv', () => {
  // Record 1's ts_event (offset 8) set far below record 0's.
  assert.is(decode(edit(REC1 + 8 + 4, 0)).length, 2);
});

test('records of other types are skipped by their length', () => {
  // A 32-byte record of rtype 0x17 (system message) between the two MBO records.
  const other = Buffer.alloc(32);
  other[0] = 8;
  other[1] = 0x17;
  const b = Buffer.concat([MBO.subarray(0, REC1), other, MBO.subarray(REC1)]);
  const reader = DbnReader.fromBytes(b, 'x');
  const records = [...reader.records()];
  assert.is(records.length, 2);
  assert.is(reader.skipped, 1);
  assert.is(reader.count, 3);
});

test('errors from a file name the file; a missing file or a directory is an io error; an empty file is truncated', () => {
  const dir = tempDir('dbn-errors-');
  const path = join(dir, 'cut.dbn');
  writeFileSync(path, MBO.subarray(0, REC1 + 8));
  const reader = DbnReader.open(path);
  assert.throws(() => [...reader.records()], (e: unknown) => e instanceof DbnError && e.file === path && e.message.startsWith(`${path} (record 1, byte offset 416)`));
  reader.close();
  assert.throws(
    () => DbnReader.open(join(dir, 'missing.dbn')),
    (e: unknown) => e instanceof DbnError && e.kind === 'io' && /missing\.dbn: cannot open/.test(e.message),
  );
  assert.throws(
    () => DbnReader.open(dir),
    (e: unknown) => e instanceof DbnError && e.kind === 'io' && e.message.startsWith(`${dir}: cannot read`),
  );
  writeFileSync(join(dir, 'empty.dbn'), '');
  assert.throws(() => DbnReader.open(join(dir, 'empty.dbn')), (e: unknown) => e instanceof DbnError && e.kind === 'truncated' && /inside the 8-byte DBN prelude \(0 bytes\)/.test(e.message));
});

test.run();
