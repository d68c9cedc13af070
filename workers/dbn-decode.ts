// Decoder thread of a DBN replay (src/market/replay/decode-thread.ts): reads the file (its zstd
// inflated in a thread of its own: src/data/dbn/inflate-thread.ts), turns its records into L2
// events (DbnMarketSource) and publishes them on the shared ring, waiting while the ring is full.
// Each job ends with a state word: done, or failed with the error's text. The worker takes one
// job per message and stays for the next (decode-thread.ts keeps it idle).

import { parentPort } from 'node:worker_threads';
import { RecordRing } from '../src/core/ring.ts';
import { openInflated } from '../src/data/dbn/inflate-thread.ts';
import { L3Tape } from '../src/exchange/l3-fifo-queue.ts';
import { DbnMarketSource } from '../src/market/replay/dbn-source.ts';
import {
  DECODE_BATCH,
  DECODE_RING_CAPACITY,
  type DecodeJob,
  ERROR_BYTES,
  RING_HEAD,
  RING_TAIL,
  ST_ERROR_LEN,
  ST_STATE,
  ST_STOP,
  STATE_DONE,
  STATE_FAILED,
} from '../src/market/replay/decode-thread.ts';

/** Decodes one session into its shared ring; the worker then waits for the next job. */
function run(job: DecodeJob): void {
  const status = new Int32Array(job.status);
  const ring = new RecordRing(job.ring);
  const tape = job.tape ? new L3Tape(DECODE_RING_CAPACITY, new Int32Array(job.tape)) : null;
  let source: DbnMarketSource | null = null;
  try {
    source = new DbnMarketSource(job.spec, job.startNs, job.endNs, tape, openInflated(job.spec.file));
    while (!source.done && Atomics.load(status, ST_STOP) === 0) {
      const room = ring.free();
      if (room === 0) {
        Atomics.wait(ring.ctl, RING_TAIL, Atomics.load(ring.ctl, RING_TAIL), 100);
        continue;
      }
      source.generate(ring, room < DECODE_BATCH ? room : DECODE_BATCH);
      Atomics.notify(ring.ctl, RING_HEAD);
    }
    source.close();
    source = null;
    Atomics.store(status, ST_STATE, STATE_DONE);
  } catch (e) {
    const bytes = new TextEncoder().encode(e instanceof Error ? e.message : String(e)).subarray(0, ERROR_BYTES);
    new Uint8Array(job.error).set(bytes);
    Atomics.store(status, ST_ERROR_LEN, bytes.length);
    Atomics.store(status, ST_STATE, STATE_FAILED);
  } finally {
    source?.close();
    Atomics.notify(ring.ctl, RING_HEAD);
  }
}

parentPort!.on('message', run);
