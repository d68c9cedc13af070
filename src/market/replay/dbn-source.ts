// A MarketSource over recorded DBN files (runSession's market, like the generator): the session's
// files are read one after another (a trade date's data wherever the files were cut:
// dataset.ts), records of its instrument decoded in order, turned into L2 events by the MBO
// order book or the MBP-10 level book, and copied into the market ring.
//
// The window [startNs, endNs) (a --start/--end day, regular hours only) is entered as a live feed
// joining at startNs would: every record received before it (ts_recv < startNs), and the file's
// opening book snapshot (its leading clear and F_SNAPSHOT records, whose ts_event is when each
// order was entered, often days before), is applied to the book silently (the warm-up), and the
// book as it then stands is published at startNs as one add per order (MBO) or level (MBP-10).
// Records from endNs (ts_event) on are skipped. A later file's opening clear and snapshot are
// skipped too (counted): the book carried from the file before is the same book, and clearing it
// in the window would replay every order as cancelled and added again. Everything is counted
// (quality.ts).
//
// ts_event is the exchange's time of the event (EV_TS); DBN files are sorted by ts_recv, where a
// ts_event may step back a little: such a record keeps the previous record's time (counted in
// timeClamped), since every stream of the driver is in time order.

import { EV_STRIDE } from '../../core/events.ts';
import type { RecordRing } from '../../core/ring.ts';
import { DbnReader, FLAGS, RTYPE, type DbnCursor } from '../../data/dbn/index.ts';
import { L3Tape } from '../../exchange/l3-fifo-queue.ts';
import { type MarketSource, TAPE_CAPACITY } from '../source.ts';
import { EventQueue } from './event-queue.ts';
import { MboBook } from './mbo-book.ts';
import { MBP_LEVELS, Mbp10Book } from './mbp10-book.ts';
import { Q, REPLAY_QUALITY_FIELDS } from './quality.ts';
import type { ReplaySessionSpec } from './replay-spec.ts';

const F_SNAPSHOT = FLAGS.F_SNAPSHOT;
const CLEAR = 0x52; // action R

export class DbnMarketSource implements MarketSource {
  readonly spec: ReplaySessionSpec;
  readonly tape: L3Tape | null;
  private readonly open: (file: string) => DbnReader;
  private reader: DbnReader;
  /** The file being read (an index into spec.files). */
  private fileIndex = 0;
  private readonly queue = new EventQueue();
  private readonly mbo: MboBook | null;
  private readonly mbp: Mbp10Book | null;
  private readonly rtype: number;
  private readonly startNs: number;
  private readonly endNs: number;
  private readonly bidPx = new Float64Array(MBP_LEVELS);
  private readonly bidSz = new Float64Array(MBP_LEVELS);
  private readonly askPx = new Float64Array(MBP_LEVELS);
  private readonly askSz = new Float64Array(MBP_LEVELS);
  private timeShift: number;
  private eof = false;
  /** The record being applied: its time (engine ns), its price (ticks), the previous record's time, its ts_recv. */
  private readonly rec: Float64Array;
  private seqBase = 0;
  private drained = 0;
  /** Before the window: records go to the book silently (see the head of this file). */
  private warming = true;
  /** Still in the file's opening run of clear and snapshot records. */
  private opening = true;
  /** The data-quality counters (quality.ts; the exchange's two stay 0 here). */
  readonly quality = new Float64Array(REPLAY_QUALITY_FIELDS.length);
  /** Sees each record applied in the window: its time (engine ns), action and size (the facts command). */
  onRecord: ((tsNs: number, action: number, size: number) => void) | null = null;

  /**
   * `tape`: where order priorities go (a shared one in the decoder thread); default: its own.
   * `open`: opens a file's reader (the decoder thread's inflates in a thread of its own); default:
   * one that decodes in this thread.
   */
  constructor(spec: ReplaySessionSpec, startNs: number, endNs: number, tape: L3Tape | null = null, open: ((file: string) => DbnReader) | null = null) {
    this.spec = spec;
    this.startNs = startNs;
    this.endNs = endNs;
    if (spec.files.length === 0) throw new Error(`replay of ${spec.symbol}: no files`);
    this.open = open ?? ((file) => DbnReader.open(file));
    this.reader = this.open(spec.files[0]);
    // The cursor's times count from the metadata start: shift them to New York midnight.
    this.timeShift = Number(this.reader.metadata.start - BigInt(spec.baseUtcNs));
    if (spec.schema === 'mbo') {
      this.mbo = new MboBook(this.queue, spec.perOrder);
      this.mbp = null;
      this.rtype = RTYPE.MBO;
    } else {
      this.mbo = null;
      this.mbp = new Mbp10Book(this.queue);
      this.rtype = RTYPE.MBP_10;
    }
    this.tape = spec.perOrder ? (tape ?? new L3Tape(TAPE_CAPACITY)) : null;
    this.rec = new Float64Array([0, 0, startNs, 0]);
  }

  /** Records of the session's instrument applied in the window. */
  get records(): number {
    return this.quality[Q.records_applied];
  }

  /** Records whose ts_event was before the previous record's (kept at the previous time). */
  get timeClamped(): number {
    return this.quality[Q.time_clamped];
  }

  /** The data-quality counters with the MBO book's unknown-order counts. */
  qualityCounts(): Float64Array {
    const q = this.quality;
    if (this.mbo !== null) {
      q[Q.unknown_cancels] = this.mbo.counts.unknownCancels;
      q[Q.unknown_modifies] = this.mbo.counts.unknownModifies;
      q[Q.unknown_fills] = this.mbo.counts.unknownFills;
    }
    return q;
  }

  get done(): boolean {
    return this.eof && this.queue.length === 0;
  }

  /** The MBO book's counts of orders never seen (null for MBP-10). */
  get unknownOrders() {
    return this.mbo?.counts ?? null;
  }

  generate(ring: RecordRing, maxEvents: number): number {
    if (ring.stride !== EV_STRIDE) throw new Error(`market ring stride ${ring.stride} != EV_STRIDE ${EV_STRIDE}`);
    if (this.tape !== null && ring.capacity > this.tape.mask + 1)
      throw new Error(`market ring of ${ring.capacity} records exceeds the l3 tape's ${this.tape.mask + 1}`);
    if (this.drained === 0) this.seqBase = ring.writeSeq;
    while (!this.eof && this.ready() < maxEvents) this.step();
    let n = this.ready();
    if (n > maxEvents) n = maxEvents;
    if (n <= 0) return 0;
    this.queue.drainTo(ring, n, this.tape, this.seqBase);
    this.drained += n;
    return n;
  }

  close(): void {
    this.reader.close();
  }

  /** Events complete enough to hand over: an open MBO event's last level change may still grow. */
  private ready(): number {
    const q = this.queue.length;
    return !this.eof && this.mbo !== null && this.mbo.open ? q - 1 : q;
  }

  private step(): void {
    const c = this.reader.next();
    if (c === null) {
      if (this.fileIndex + 1 < this.spec.files.length) this.nextFile();
      else {
        if (this.warming) this.publish();
        this.eof = true;
      }
      return;
    }
    if (c.rtype !== this.rtype || c.instrumentId !== this.spec.instrumentId) return;
    // Doubles stay in typed arrays (the time, prices): see DbnCursor.timeAndPrice.
    const r = this.rec;
    const q = this.quality;
    c.timeAndPrice(r, 0);
    r[0] += this.timeShift;
    const flags = c.flags;
    const snapshot = (flags & F_SNAPSHOT) !== 0;
    if (snapshot) q[Q.snapshot_records]++;
    if (this.opening && !snapshot && c.action !== CLEAR) this.opening = false;
    if (this.opening && this.fileIndex > 0) {
      q[Q.records_skipped]++; // a later file's opening: the book is carried over
      return;
    }
    if (this.warming) {
      c.recvTimeInto(r, 3);
      if (this.opening || r[3] + this.timeShift < this.startNs) {
        q[Q.records_warmup]++;
        this.apply(c, flags);
        this.queue.restart(); // nobody sees the warm-up's events
        return;
      }
      this.publish();
    }
    if (r[0] >= this.endNs) {
      q[Q.records_skipped]++;
      return;
    }
    if (r[0] < r[2]) {
      r[0] = r[2];
      q[Q.time_clamped]++;
    }
    r[2] = r[0];
    q[Q.records_applied]++;
    this.queue.ts = r[0]; // the time of the events this record yields
    if (this.onRecord !== null) this.onRecord(r[0], c.action, c.size);
    this.apply(c, flags);
  }

  /** The session's next file: the book goes on; its opening snapshot is skipped (see above). */
  private nextFile(): void {
    this.reader.close();
    this.fileIndex++;
    this.reader = this.open(this.spec.files[this.fileIndex]);
    this.timeShift = Number(this.reader.metadata.start - BigInt(this.spec.baseUtcNs));
    this.opening = true;
  }

  private apply(c: DbnCursor, flags: number): void {
    this.toTicks(c, this.rec, 1, 2);
    if (this.mbo !== null) this.mbo.apply(c.action, c.side, this.rec[1], c.size, c.orderIdHi, c.orderIdLo, flags);
    else this.applyMbp(c);
  }

  /** The warm-up is over: the book as it stands, as adds at the window's start. */
  private publish(): void {
    this.warming = false;
    this.queue.restart();
    this.queue.ts = this.startNs;
    if (this.mbo !== null) this.mbo.publish();
    else this.mbp!.publish();
  }

  private applyMbp(c: DbnCursor): void {
    c.levelsInto(this.bidPx, this.bidSz, this.askPx, this.askSz);
    this.toTicks(c, this.bidPx, 0, MBP_LEVELS);
    this.toTicks(c, this.askPx, 0, MBP_LEVELS);
    this.mbp!.apply(c.action, c.side, this.rec[1], c.size, c.flags, this.bidPx, this.bidSz, this.askPx, this.askSz);
  }

  /** DBN prices (1e-9 units; NaN = undefined) in a[from..to) to whole ticks; off the tick grid is an error. */
  private toTicks(c: DbnCursor, a: Float64Array, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const price = a[i];
      if (price !== price) continue;
      const t = price / this.spec.tickUnits;
      if (t !== Math.floor(t)) {
        throw new Error(
          `${this.spec.files[this.fileIndex]}: record ${c.index}: price ${price} (1e-9 units) is not a multiple of ${this.spec.symbol}'s ` +
            `tick (${this.spec.tickUnits})`,
        );
      }
      a[i] = t;
    }
  }
}
