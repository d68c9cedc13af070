// zstd decompression in a thread of its own, for the replay's decoder thread
// (workers/market-source.ts). A replay of a .dbn.zst file otherwise runs at the pace of
// that thread, and zstd was about 40 % of it (docs/performance-archive.md, "Round six"): moved here, the
// decoder thread only frames records and keeps the order book, and the three threads (inflate,
// decode, session) share the two cores.
//
// The inflater (workers/zstd-inflate.ts) reads the file, decompresses it and hands the decoded
// DBN stream over in SLOTS shared slots of SLOT_BYTES each; the reader's side is a ByteSource, so
// DbnReader sees a plain DBN stream. Failures travel as a state word and the error's kind, place
// and text, and are thrown by the reader as the same DbnError an in-thread reader throws. Memory:
// the slots, constant. Each file gets fresh shared memory, so an inflater still finishing an
// abandoned file (the session stopped early) cannot write into the next one's.

import { closeSync, openSync, readSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { workerPath } from '../../core/paths.ts';
import { DbnError, type DbnErrorKind } from './errors.ts';
import { type ByteSource, DbnReader, type DbnReadOptions } from './reader.ts';
import { isZstd } from './zstd.ts';

/** Decoded bytes per slot: the compressed chunks the inflater reads decode to ~1 MB each. */
export const SLOT_BYTES = 256 * 1024;
export const SLOTS = 8;

// Control words: slots published by the inflater (head) and released by the reader (tail), the
// state, the reader's stop request, the error's length, then each slot's byte count.
export const ZI_HEAD = 0;
export const ZI_TAIL = 1;
export const ZI_STATE = 2;
export const ZI_STOP = 3;
export const ZI_ERROR_LEN = 4;
export const ZI_LEN = 5;
export const ZI_CTL_INTS = ZI_LEN + SLOTS;
export const RUNNING = 0;
export const DONE = 1;
export const FAILED = 2;
export const ERROR_BYTES = 4096;

/** One file to inflate, posted to the inflater. */
export interface InflateJob {
  file: string;
  ctl: SharedArrayBuffer;
  data: SharedArrayBuffer;
  error: SharedArrayBuffer;
}

/** A failure as it crosses threads: a DbnError's kind, offset and detail, or another error's message. */
export interface InflateFailure {
  kind: DbnErrorKind | null;
  offset: number | null;
  detail: string;
}

// An inflater that never answers (a broken bundle) must not hang the replay: this long without a
// slot is an error. The wait is in slices so that the stall is counted.
const STALL_MS = 120_000;
const WAIT_MS = 100;

interface Inflater {
  worker: Worker;
  alive: boolean;
}

// One inflater per thread that uses it (the decoder thread), kept for its next files.
let inflater: Inflater | null = null;

function inflaterWorker(): Worker {
  if (inflater?.alive) return inflater.worker;
  const d: Inflater = { worker: new Worker(workerPath('zstd-inflate')), alive: true };
  d.worker.on('exit', () => (d.alive = false));
  d.worker.on('error', () => (d.alive = false));
  d.worker.unref();
  inflater = d;
  return d.worker;
}

/** The reader's side: the decoded stream, slot by slot, blocking while the inflater is behind. */
class InflatedSource implements ByteSource {
  private readonly file: string;
  private readonly ctl: Int32Array;
  private readonly data: Uint8Array;
  private readonly error: Uint8Array;
  /** Sequence of the slot being read, the read position in it and its length (-1: none held). */
  private seq = 0;
  private at = 0;
  private len = -1;
  private closed = false;

  constructor(file: string) {
    this.file = file;
    const job: InflateJob = {
      file,
      ctl: new SharedArrayBuffer(ZI_CTL_INTS * 4),
      data: new SharedArrayBuffer(SLOTS * SLOT_BYTES),
      error: new SharedArrayBuffer(ERROR_BYTES),
    };
    this.ctl = new Int32Array(job.ctl);
    this.data = new Uint8Array(job.data);
    this.error = new Uint8Array(job.error);
    inflaterWorker().postMessage(job);
  }

  read(dst: Uint8Array): number {
    if (this.len < 0 && !this.acquire()) return 0;
    const n = Math.min(dst.length, this.len - this.at);
    const from = (this.seq % SLOTS) * SLOT_BYTES + this.at;
    dst.set(this.data.subarray(from, from + n));
    this.at += n;
    if (this.at === this.len) {
      // the slot is the inflater's again
      this.len = -1;
      this.seq++;
      Atomics.store(this.ctl, ZI_TAIL, this.seq);
      Atomics.notify(this.ctl, ZI_TAIL);
    }
    return n;
  }

  /** Stops the inflater if it is still at work (it closes the file itself) and forgets the file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    Atomics.store(this.ctl, ZI_STOP, 1);
    Atomics.notify(this.ctl, ZI_TAIL);
  }

  /** Waits for the next slot; false at the end of the stream. A failure is thrown as soon as it is seen. */
  private acquire(): boolean {
    const ctl = this.ctl;
    let waited = 0;
    for (;;) {
      const state = Atomics.load(ctl, ZI_STATE);
      if (state === FAILED) throw this.failure();
      const head = Atomics.load(ctl, ZI_HEAD);
      if (head !== this.seq) {
        this.len = ctl[ZI_LEN + (this.seq % SLOTS)];
        this.at = 0;
        return true;
      }
      // the inflater publishes its last slot before it sets DONE
      if (state === DONE) return false;
      const r = Atomics.wait(ctl, ZI_HEAD, head, WAIT_MS);
      waited = r === 'timed-out' ? waited + WAIT_MS : 0;
      if (waited >= STALL_MS) throw new Error(`${this.file}: the zstd inflater thread produced nothing for ${STALL_MS / 1000} s`);
    }
  }

  private failure(): Error {
    const len = Atomics.load(this.ctl, ZI_ERROR_LEN);
    const f = JSON.parse(new TextDecoder().decode(this.error.slice(0, len))) as InflateFailure;
    if (f.kind === null) return new Error(f.detail);
    return new DbnError(f.kind, f.offset === null ? { file: this.file } : { file: this.file, offset: f.offset }, f.detail);
  }
}

/** True when the file starts with a zstd magic (false when it cannot be read: the reader then reports why). */
function zstdFile(file: string): boolean {
  let fd = -1;
  try {
    fd = openSync(file, 'r');
    const head = new Uint8Array(4);
    return readSync(fd, head, 0, 4, 0) === 4 && isZstd(head);
  } catch {
    return false;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** A reader of `file` whose zstd, if the file has any, is decompressed in the inflater thread. */
export function openInflated(file: string, options: DbnReadOptions = {}): DbnReader {
  return zstdFile(file) ? DbnReader.fromSource(new InflatedSource(file), file, options) : DbnReader.open(file, options);
}
