// A session's market source in a thread of its own (workers/market-source.ts): the worker runs the
// source and writes its L2 events into a shared ring; the session's thread only copies them into
// its market ring. On two cores the source and the engine then run side by side. Two sources:
// - a DBN replay (DbnMarketSource): zstd and the DBN records cost real time per record in JS;
// - the synthetic generator (MarketGenerator), when a run leaves a core free for it (run.ts): it
//   costs more per event than the whole pipeline, and a one-day backtest on two cores runs about
//   1.5x as fast (docs/performance-archive.md, round twenty). Its events are the same, so is every result.
// Memory is the two rings: constant.
//
// The worker's outcome travels in shared memory too (the session's thread blocks in
// Atomics.wait while it runs, so it cannot receive messages): a state word and an error text.
// Order priorities (l3_fifo) come in a shared tape beside the shared ring and are copied into the
// session's own tape with the records (both rings see the same records in the same order).
//
// A worker that finished its session is kept (idle, unref'd: it does not hold the process open)
// and given the next session of this thread: a fresh worker costs its start-up and, above all,
// runs its first records in cold code (interpreted, then optimised), about a third more CPU for
// an hour of ES; a backtest over many days pays that once per thread instead of per day.

import { Worker } from 'node:worker_threads';
import { EV_STRIDE } from '../core/events.ts';
import { workerPath } from '../core/paths.ts';
import { RecordRing, type RingMemory } from '../core/ring.ts';
import { L3Tape } from '../exchange/l3-fifo-queue.ts';
import { type MarketSource, TAPE_CAPACITY } from './source.ts';
import type { ReplaySessionSpec } from './replay/replay-spec.ts';
import { DbnMarketSource } from './replay/dbn-source.ts';
import { REPLAY_QUALITY_FIELDS } from './replay/quality.ts';
import type { ContractSpec } from './instruments.ts';

export const SOURCE_RING_CAPACITY = 1 << 15;
/** Events per batch the worker publishes. */
export const SOURCE_BATCH = 4096;

// status words
export const SRC_STATE = 0;
export const SRC_STOP = 1;
export const SRC_ERROR_LEN = 2;
export const STATUS_INTS = 4;
export const STATE_RUNNING = 0;
export const STATE_DONE = 1;
export const STATE_FAILED = 2;
export const ERROR_BYTES = 4096;
// RecordRing's control words (ring.ts): the producer's head and the consumer's tail.
export const RING_HEAD = 0;
export const RING_TAIL = 1;

/** What the worker runs: a DBN file's session, or the generator's (its inputs, as in runSession). */
export type SourceSpec =
  | { kind: 'replay'; replay: ReplaySessionSpec }
  | { kind: 'synthetic'; root: string; contract?: ContractSpec; date: string; seed: number; activity: number };

/** One session's job, posted to the worker. */
export interface SourceJob {
  source: SourceSpec;
  startNs: number;
  endNs: number;
  ring: RingMemory;
  tape: SharedArrayBuffer | null;
  status: SharedArrayBuffer;
  error: SharedArrayBuffer;
  /** A replay's data-quality counters (quality.ts), written by the worker before it says done. */
  quality: SharedArrayBuffer | null;
}

// The worker publishes at least every SOURCE_BATCH events; a worker that never starts (a broken
// bundle) or hangs must not hang the session forever: this long without a record is an error.
const STALL_MS = 120_000;
const WAIT_MS = 100;
const CLOSE_GRACE_MS = 10_000;
/** Idle source workers kept per thread for the next sessions. */
const MAX_IDLE = 2;

/** A source worker and whether it can take another job (it has not exited or been terminated). */
interface SourceWorker {
  worker: Worker;
  alive: boolean;
}

const idle: SourceWorker[] = [];

function takeWorker(): SourceWorker {
  for (let w = idle.pop(); w !== undefined; w = idle.pop()) if (w.alive) return w;
  const d: SourceWorker = { worker: new Worker(workerPath('market-source')), alive: true };
  d.worker.on('exit', () => (d.alive = false));
  d.worker.on('error', () => (d.alive = false));
  d.worker.unref();
  return d;
}

function retire(d: SourceWorker): void {
  d.alive = false;
  void d.worker.terminate();
}

export class ThreadedSource implements MarketSource {
  readonly tape: L3Tape | null;
  /** What errors name: the file, or the generated session. */
  private readonly label: string;
  private readonly ring: RecordRing;
  private readonly shared: Int32Array | null;
  private readonly status: Int32Array;
  private readonly error: Uint8Array;
  private readonly worker: SourceWorker;
  /** The worker's thread id (a worker kept from an earlier session keeps its id). */
  readonly threadId: number;
  private finished = false;
  private closed = false;
  private offset = 0;
  private started = false;
  private readonly quality: Float64Array | null;

  constructor(source: SourceSpec, startNs: number, endNs: number) {
    this.label = source.kind === 'replay' ? source.replay.files.join(', ') : `the generator's ${source.root} session ${source.date}`;
    const perOrder = source.kind === 'replay' && source.replay.perOrder;
    const mem = RecordRing.memory(EV_STRIDE, SOURCE_RING_CAPACITY, true);
    this.ring = new RecordRing(mem);
    const tapeBuf = perOrder ? new SharedArrayBuffer(SOURCE_RING_CAPACITY * 4) : null;
    this.shared = tapeBuf ? new Int32Array(tapeBuf) : null;
    this.tape = perOrder ? new L3Tape(TAPE_CAPACITY) : null;
    const status = new SharedArrayBuffer(STATUS_INTS * 4);
    const error = new SharedArrayBuffer(ERROR_BYTES);
    this.status = new Int32Array(status);
    this.error = new Uint8Array(error);
    const quality = source.kind === 'replay' ? new SharedArrayBuffer(REPLAY_QUALITY_FIELDS.length * 8) : null;
    this.quality = quality ? new Float64Array(quality) : null;
    const job: SourceJob = { source, startNs, endNs, ring: mem, tape: tapeBuf, status, error, quality };
    this.worker = takeWorker();
    this.threadId = this.worker.worker.threadId;
    this.worker.worker.postMessage(job);
  }

  get done(): boolean {
    return this.finished;
  }

  /** A replay's data-quality counters once done (the worker wrote them before saying so), else null. */
  qualityCounts(): Float64Array | null {
    return this.finished ? this.quality : null;
  }

  /** Waits for the worker's events, then copies up to maxEvents into `out`; 0 only at the end. */
  generate(out: RecordRing, maxEvents: number): number {
    const src = this.ring;
    if (!this.started) {
      this.started = true;
      this.offset = (out.writeSeq - src.readSeq) | 0;
    }
    let waited = 0;
    for (;;) {
      let n = src.available();
      if (n > 0) {
        if (n > maxEvents) n = maxEvents;
        this.copy(out, n);
        return n;
      }
      const state = Atomics.load(this.status, SRC_STATE);
      if (state === STATE_FAILED) throw new Error(this.failure());
      if (state === STATE_DONE && src.available() === 0) {
        this.finished = true;
        return 0;
      }
      if (state === STATE_RUNNING) {
        const r = Atomics.wait(src.ctl, RING_HEAD, Atomics.load(src.ctl, RING_HEAD), WAIT_MS);
        waited = r === 'timed-out' ? waited + WAIT_MS : 0;
        if (waited >= STALL_MS) throw new Error(`${this.label}: the source thread produced nothing for ${STALL_MS / 1000} s`);
      }
    }
  }

  /**
   * A worker that finished its job goes back to the idle workers of this thread. One still
   * running (the session stopped early) is asked to stop: it sees the request within one batch
   * (or its 100 ms wait) and closes its file itself, since terminate() would leave the descriptor
   * open; it is terminated once done, or after a grace period.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const d = this.worker;
    if (Atomics.load(this.status, SRC_STATE) !== STATE_RUNNING && d.alive && idle.length < MAX_IDLE) {
      idle.push(d);
      return;
    }
    Atomics.store(this.status, SRC_STOP, 1);
    Atomics.notify(this.ring.ctl, RING_TAIL);
    const status = this.status;
    const poll = setInterval(() => {
      if (Atomics.load(status, SRC_STATE) === STATE_RUNNING) return;
      clearInterval(poll);
      retire(d);
    }, WAIT_MS);
    poll.unref();
    setTimeout(() => {
      clearInterval(poll);
      retire(d);
    }, CLOSE_GRACE_MS).unref();
  }

  private copy(out: RecordRing, n: number): void {
    const src = this.ring;
    const smask = src.mask;
    const tape = this.tape;
    const shared = this.shared;
    if (tape !== null && shared !== null) {
      for (let k = 0; k < n; k++) tape.set((out.writeSeq + k) | 0, (shared[(src.readSeq + k) & smask] + this.offset) | 0);
    }
    src.copyTo(out, n);
    out.publish();
    src.advance(n);
    src.release();
    Atomics.notify(src.ctl, RING_TAIL);
  }

  private failure(): string {
    const len = Atomics.load(this.status, SRC_ERROR_LEN);
    return new TextDecoder().decode(this.error.slice(0, len));
  }
}

/**
 * The market source of a replayed session (runSession's): decoded in its own thread
 * (ThreadedSource above) unless `inline`, which decodes on the calling thread.
 */
export function openReplaySource(spec: ReplaySessionSpec, startNs: number, endNs: number, inline = false): MarketSource {
  return inline ? new DbnMarketSource(spec, startNs, endNs) : new ThreadedSource({ kind: 'replay', replay: spec }, startNs, endNs);
}
