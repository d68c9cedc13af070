// The replay's zstd inflater thread (src/data/dbn/inflate-thread.ts, workers/zstd-inflate.ts):
// a reader over it gives the records an in-thread reader gives, byte for byte, over many slots
// (the inflater waits while the reader is behind); a damaged file fails with the DbnError the
// in-thread reader throws; a reader closed early stops the inflater, which then serves the next
// file. Needs the bundled worker (npm run build).
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openInflated, SLOT_BYTES, SLOTS } from '../../../src/data/dbn/inflate-thread.ts';
import { DbnError, DbnReader, RTYPE } from '../../../src/data/dbn/index.ts';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';

const H = 3600e9;
const FIXTURE = new URL('../../fixtures/dbn/test_data.mbo.v3.dbn.zst', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'dbn-inflate-'));
const big = join(dir, 'es.mbo.dbn.zst');
await exportSynthetic(
  big,
  [{ date: '2024-03-05', rawSymbol: 'ESH24', spec: contractForRoot('ES'), seed: 7, sessionStartNs: 9.5 * H, sessionEndNs: 10.5 * H, activity: 1 }],
  {
    schema: 'mbo',
    marketDataLatencyNs: 50_000,
    maxEventsPerSession: 60_000,
  },
);

/** Every record of the reader, exactly (bigints as text), and the count of MBO records. */
function records(r: DbnReader): { text: string; mbo: number } {
  const out: string[] = [];
  let mbo = 0;
  for (const rec of r.records()) {
    out.push(JSON.stringify(rec, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
    if (rec.hd.rtype === RTYPE.MBO) mbo++;
  }
  r.close();
  return { text: out.join('\n'), mbo };
}

function failure(read: () => unknown): DbnError {
  try {
    read();
  } catch (e) {
    if (e instanceof DbnError) return e;
    throw e;
  }
  throw new Error('expected a DbnError');
}

/** Open descriptors of this process on `file`. */
function openOn(file: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false; // closed since the listing
    }
  }).length;
}

test('the records of an in-thread reader, over many slots', () => {
  for (const file of [FIXTURE, big]) {
    const direct = records(DbnReader.open(file));
    const inflated = records(openInflated(file));
    assert.ok(direct.mbo > 0, file);
    assert.is(inflated.mbo, direct.mbo, file);
    assert.ok(inflated.text === direct.text, `${file}: records differ`);
  }
  // the big file spans more slots than there are, so the inflater waited for the reader
  const decoded = DbnReader.open(big);
  let bytes = 0;
  for (let c = decoded.next(); c !== null; c = decoded.next()) bytes += c.length;
  decoded.close();
  assert.ok(bytes > 2 * SLOTS * SLOT_BYTES, `${bytes} decoded bytes`);
});

test('a damaged file: the same DbnError as an in-thread reader', () => {
  const zst = readFileSync(big);
  const truncated = join(dir, 'truncated.mbo.dbn.zst');
  writeFileSync(truncated, zst.subarray(0, zst.length - 1000));
  const corrupt = join(dir, 'corrupt.mbo.dbn.zst');
  const b = Buffer.from(zst);
  for (let i = b.length >> 1; i < (b.length >> 1) + 64; i++) b[i] ^= 0x5a; // inside a compressed block
  writeFileSync(corrupt, b);
  const header = join(dir, 'header.mbo.dbn.zst');
  const h = Buffer.from(readFileSync(FIXTURE));
  h[4] ^= 0xff; // frame header descriptor: reserved bit set
  writeFileSync(header, h);
  for (const [file, kind] of [
    [truncated, 'truncated'],
    [corrupt, 'zstd'],
    [header, 'zstd'],
  ] as const) {
    const want = failure(() => records(DbnReader.open(file)));
    const got = failure(() => records(openInflated(file)));
    assert.is(want.kind, kind, want.message);
    assert.is(got.kind, want.kind, got.message);
    assert.is(got.message, want.message);
    assert.is(got.offset, want.offset);
  }
  // a file that is not there: the in-thread reader's io error
  const missing = failure(() => openInflated(join(dir, 'missing.dbn.zst')));
  assert.is(missing.kind, 'io');
});

test('a reader closed early stops the inflater, which then serves the next file', async () => {
  const before = openOn(big);
  for (let round = 0; round < 3; round++) {
    const r = openInflated(big);
    for (let i = 0; i < 1000; i++) assert.ok(r.next() !== null);
    r.close();
    // the inflater closes the file once it sees the stop (within a slot or its 100 ms wait)
    for (let t = 0; t < 100 && openOn(big) > before; t++) await new Promise((ok) => setTimeout(ok, 50));
    assert.is(openOn(big), before, `round ${round}: the inflater still holds the file`);
  }
  const all = records(openInflated(big));
  assert.is(all.mbo, records(DbnReader.open(big)).mbo);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
