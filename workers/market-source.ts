// A session's market source in a thread of its own (src/market/source-thread.ts): a DBN replay
// (its zstd inflated in a thread of its own: src/data/dbn/inflate-thread.ts, its records turned
// into L2 events by DbnMarketSource) or the synthetic generator, publishing its events on the
// shared ring and waiting while the ring is full. Each job ends with a state word: done, or
// failed with the error's text. The worker takes one job per message and stays for the next
// (src/market/source-thread.ts keeps it idle).

import { parentPort } from 'node:worker_threads';
import type { MarketSource } from '../src/market/source.ts';
import {
  ERROR_BYTES,
  RING_HEAD,
  RING_TAIL,
  SOURCE_BATCH,
  SOURCE_RING_CAPACITY,
  type SourceJob,
  SRC_ERROR_LEN,
  SRC_STATE,
  SRC_STOP,
  STATE_DONE,
  STATE_FAILED,
} from '../src/market/source-thread.ts';
import { RecordRing } from '../src/core/ring.ts';
import { openInflated } from '../src/data/dbn/inflate-thread.ts';
import { L3Tape } from '../src/exchange/l3-fifo-queue.ts';
import { MarketGenerator } from '../src/market/generator.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { DbnMarketSource } from '../src/market/replay/dbn-source.ts';

function open(job: SourceJob, tape: L3Tape | null): MarketSource {
  const s = job.source;
  if (s.kind === 'replay') return new DbnMarketSource(s.replay, job.startNs, job.endNs, tape, (file) => openInflated(file));
  return new MarketGenerator(s.contract ?? contractForRoot(s.root), s.date, s.seed, {
    sessionStartNs: job.startNs,
    sessionEndNs: job.endNs,
    activity: s.activity,
  });
}

/** Runs one session's source into its shared ring; the worker then waits for the next job. */
function run(job: SourceJob): void {
  const status = new Int32Array(job.status);
  const ring = new RecordRing(job.ring);
  const tape = job.tape ? new L3Tape(SOURCE_RING_CAPACITY, new Int32Array(job.tape)) : null;
  let source: MarketSource | null = null;
  try {
    source = open(job, tape);
    while (!source.done && Atomics.load(status, SRC_STOP) === 0) {
      const room = ring.free();
      if (room === 0) {
        Atomics.wait(ring.ctl, RING_TAIL, Atomics.load(ring.ctl, RING_TAIL), 100);
        continue;
      }
      source.generate(ring, room < SOURCE_BATCH ? room : SOURCE_BATCH);
      Atomics.notify(ring.ctl, RING_HEAD);
    }
    const q = source.qualityCounts?.();
    if (q && job.quality) new Float64Array(job.quality).set(q);
    source.close?.();
    source = null;
    Atomics.store(status, SRC_STATE, STATE_DONE);
  } catch (e) {
    const bytes = new TextEncoder().encode(e instanceof Error ? e.message : String(e)).subarray(0, ERROR_BYTES);
    new Uint8Array(job.error).set(bytes);
    Atomics.store(status, SRC_ERROR_LEN, bytes.length);
    Atomics.store(status, SRC_STATE, STATE_FAILED);
  } finally {
    source?.close?.();
    Atomics.notify(ring.ctl, RING_HEAD);
  }
}

parentPort!.on('message', run);
