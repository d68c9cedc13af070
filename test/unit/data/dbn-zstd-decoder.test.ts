// The zstd decoder of the DBN reader (src/data/dbn/zstd.ts: the reference C zstd in WASM, driven
// through ZSTD_decompressStream): the same bytes as fzstd (an independent pure-JS decoder) for any
// split of the input, concatenated and skippable frames, and clear errors (never a hang) for
// corrupt and truncated input.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Zstd } from '@hpcc-js/wasm-zstd';
import { decompress as fzstdDecompress } from 'fzstd';
import { ZstdDecodeError, ZstdStreamDecoder } from '../../../src/data/dbn/zstd.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures', 'dbn');
const zstFixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.zst'));

/** Decodes `input` pushed in pieces of `step` bytes. */
function decode(input: Uint8Array, step: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const d = new ZstdStreamDecoder((block) => parts.push(block.slice()));
  try {
    if (input.length === 0) d.push(input, true);
    for (let at = 0; at < input.length; at += step) d.push(input.subarray(at, at + step), at + step >= input.length);
  } finally {
    d.close();
  }
  return Buffer.concat(parts);
}

const zstd = await Zstd.load();
/** ~1.2 MB of DBN-like bytes (more than one 128 KiB zstd block). */
const big = new Uint8Array(1_200_000).map((_, i) => (i % 56 < 16 ? i % 56 : (i * 2654435761) >>> 27));
const bigFrame = zstd.compress(big, 3);

test('every official zstd fixture decodes to fzstd\'s bytes, pushed whole, in 4 KiB, 7-byte and 1-byte pieces', () => {
  assert.ok(zstFixtures.length >= 8);
  for (const f of zstFixtures) {
    const input = new Uint8Array(readFileSync(join(FIXTURES, f)));
    const want = fzstdDecompress(input);
    for (const step of [input.length, 4096, 7, 1]) assert.equal(decode(input, step), Buffer.from(want), `${f}, pieces of ${step}`);
  }
});

test('a frame larger than one block, and concatenated frames with a skippable frame between them', () => {
  assert.equal(decode(bigFrame, 1 << 16), Buffer.from(big));
  const skippable = new Uint8Array([0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4]);
  const small = new TextEncoder().encode('second frame');
  const joined = Buffer.concat([bigFrame, skippable, zstd.compress(small, 1)]);
  for (const step of [joined.length, 5000, 13]) assert.equal(decode(joined, step), Buffer.concat([big, small]), `pieces of ${step}`);
});

test('truncated input is a truncation error at every cut; corrupt input is a zstd error with its code', () => {
  const frame = zstd.compress(new TextEncoder().encode('x'.repeat(5000) + 'y'.repeat(3000)), 3);
  for (let cut = 1; cut < frame.length; cut++) {
    assert.throws(
      () => decode(frame.subarray(0, cut), 3),
      (e: unknown) => e instanceof ZstdDecodeError && e.truncated,
      `cut at ${cut}`,
    );
  }
  assert.throws(
    () => decode(frame.subarray(0, frame.length - 1), frame.length),
    (e: unknown) => e instanceof ZstdDecodeError && e.truncated && /ends inside a zstd frame/.test(e.message),
  );
  const corrupt = bigFrame.slice();
  for (let i = 200; i < 260; i++) corrupt[i] ^= 0xa5;
  assert.throws(
    () => decode(corrupt, 4096),
    (e: unknown) => e instanceof ZstdDecodeError && !e.truncated && e.code > 0,
  );
  const notZstd = new Uint8Array(64).fill(7);
  assert.throws(() => decode(notZstd, 64), (e: unknown) => e instanceof ZstdDecodeError && e.code === 10 && /prefix_unknown/.test(e.message));
});

test('close() is idempotent, and a push after it is refused', () => {
  const d = new ZstdStreamDecoder(() => {});
  d.push(bigFrame.subarray(0, 1000), false);
  d.close();
  d.close();
  assert.throws(() => d.push(bigFrame.subarray(1000), true), /after close/);
});

test.run();
