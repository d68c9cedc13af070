// Inflater thread of a replay's decoder (src/data/dbn/inflate-thread.ts): reads a .dbn.zst file,
// decompresses it and publishes the decoded stream slot by slot, waiting while every slot is
// taken. Each file ends with a state word: done, or failed with the error (a DbnError's kind,
// place and detail, as an in-thread reader would throw it). One file per message; the worker then
// waits for the next.

import { parentPort } from 'node:worker_threads';
import { DbnError } from '../src/data/dbn/errors.ts';
import {
  DONE,
  FAILED,
  ZI_ERROR_LEN,
  ZI_HEAD,
  ZI_LEN,
  ZI_STATE,
  ZI_STOP,
  ZI_TAIL,
  type InflateFailure,
  type InflateJob,
  SLOT_BYTES,
  SLOTS,
} from '../src/data/dbn/inflate-thread.ts';
import { type ByteSource, fileSource, zstdFailure } from '../src/data/dbn/reader.ts';
import { ZstdDecodeError, ZstdStreamDecoder } from '../src/data/dbn/zstd.ts';

/** Compressed bytes read per call. */
const CHUNK = 256 * 1024;
const WAIT_MS = 100;

/** Thrown out of the decoder's callback when the reader has stopped: nothing more to do. */
class Stopped extends Error {}

const chunk = new Uint8Array(CHUNK);

function run(job: InflateJob): void {
  const ctl = new Int32Array(job.ctl);
  const data = new Uint8Array(job.data);
  let head = 0; // slots published
  let fill = 0; // bytes in the slot being filled
  let decoded = 0;
  let compressed = 0;

  const publish = (): void => {
    ctl[ZI_LEN + (head % SLOTS)] = fill;
    Atomics.store(ctl, ZI_HEAD, ++head);
    Atomics.notify(ctl, ZI_HEAD);
    fill = 0;
  };
  // Before the first byte of a slot: wait until the reader has released it.
  const claim = (): void => {
    for (;;) {
      if (Atomics.load(ctl, ZI_STOP) !== 0) throw new Stopped();
      const tail = Atomics.load(ctl, ZI_TAIL);
      if (head - tail < SLOTS) return;
      Atomics.wait(ctl, ZI_TAIL, tail, WAIT_MS);
    }
  };
  const onData = (block: Uint8Array): void => {
    decoded += block.length;
    for (let at = 0; at < block.length; ) {
      if (fill === 0) claim();
      const n = Math.min(block.length - at, SLOT_BYTES - fill);
      data.set(block.subarray(at, at + n), (head % SLOTS) * SLOT_BYTES + fill);
      fill += n;
      at += n;
      if (fill === SLOT_BYTES) publish();
    }
  };

  let source: ByteSource | null = null;
  let zstd: ZstdStreamDecoder | null = null;
  try {
    source = fileSource(job.file);
    zstd = new ZstdStreamDecoder(onData);
    for (;;) {
      const got = source.read(chunk);
      compressed += got;
      try {
        zstd.push(chunk.subarray(0, got), got === 0);
      } catch (e) {
        throw e instanceof ZstdDecodeError ? zstdFailure(e, job.file, decoded, compressed) : e;
      }
      if (got === 0) break;
      if (Atomics.load(ctl, ZI_STOP) !== 0) throw new Stopped();
    }
    if (fill > 0) publish(); // never an empty slot: the reader takes one as the end
    Atomics.store(ctl, ZI_STATE, DONE);
  } catch (e) {
    if (e instanceof Stopped) Atomics.store(ctl, ZI_STATE, DONE);
    else fail(job, ctl, e);
  } finally {
    zstd?.close();
    source?.close();
    Atomics.notify(ctl, ZI_HEAD);
  }
}

function fail(job: InflateJob, ctl: Int32Array, e: unknown): void {
  const f: InflateFailure =
    e instanceof DbnError
      ? { kind: e.kind, offset: e.offset ?? null, detail: e.detail }
      : { kind: null, offset: null, detail: e instanceof Error ? e.message : String(e) };
  // Fits the error's shared bytes (ERROR_BYTES) whatever the text (a char is at most 6 bytes in JSON).
  f.detail = f.detail.slice(0, 600);
  const bytes = new TextEncoder().encode(JSON.stringify(f));
  new Uint8Array(job.error).set(bytes);
  Atomics.store(ctl, ZI_ERROR_LEN, bytes.length);
  Atomics.store(ctl, ZI_STATE, FAILED);
}

parentPort!.on('message', run);
