// DBN writer: metadata (any version 1 to 3, default 3) then records, zstd-compressed by default.
// Records are encoded into one reusable buffer; each full buffer is compressed as a chunk of one
// zstd stream and written out, so memory stays constant however long the file.
//
// Two faces, like the reader: write(record) takes the exact objects the reader returns (bigint
// fields; a round trip is byte-exact); writeMbo/writeMbp take reusable structs of numbers with
// timestamps relative to setTimeBase(), for exporting millions of records without allocating.
import { closeSync, openSync, writeSync } from 'node:fs';
import { LENGTH_MULTIPLIER, RECORD_LEN, RTYPE, UNDEF_PRICE } from './constants.ts';
import { DbnError } from './errors.ts';
import { type DbnMetadata, encodeMetadata } from './metadata.ts';
import { DEFINITION_V3_LEN, encodeDefinition } from './definition.ts';
import { type DbnRecord, isDefinition, isMbo, isMbp } from './records.ts';
import { ZstdStreamEncoder } from './zstd.ts';

const TWO32 = 4294967296;
const BUFFER_LEN = 1 << 20;

/** One MBO record in numbers (see DbnCursor for units); reuse one object for every record. */
export interface MboFields {
  publisherId: number;
  instrumentId: number;
  /** ns after the writer's time base. */
  tsEventRel: number;
  tsRecvRel: number;
  orderId: number;
  /** 1e-9 units; NaN writes UNDEF_PRICE. */
  price: number;
  size: number;
  flags: number;
  channelId: number;
  /** Char codes ('A'.charCodeAt(0), ...). */
  action: number;
  side: number;
  tsInDelta: number;
  sequence: number;
}

/** One MBP record (trades: levelCount 0, MBP-1: 1, MBP-10: 10) in numbers. */
export interface MbpFields {
  publisherId: number;
  instrumentId: number;
  tsEventRel: number;
  tsRecvRel: number;
  price: number;
  size: number;
  action: number;
  side: number;
  flags: number;
  depth: number;
  tsInDelta: number;
  sequence: number;
  levelCount: 0 | 1 | 10;
  /** Level i at index i; prices in 1e-9 units, NaN = UNDEF_PRICE (an empty level). */
  bidPx: Float64Array;
  askPx: Float64Array;
  bidSz: Float64Array;
  askSz: Float64Array;
  bidCt: Float64Array;
  askCt: Float64Array;
}

export function newMboFields(): MboFields {
  return {
    publisherId: 0,
    instrumentId: 0,
    tsEventRel: 0,
    tsRecvRel: 0,
    orderId: 0,
    price: 0,
    size: 0,
    flags: 0,
    channelId: 0,
    action: 0,
    side: 0,
    tsInDelta: 0,
    sequence: 0,
  };
}

export function newMbpFields(levelCount: 0 | 1 | 10): MbpFields {
  const a = () => new Float64Array(10);
  return {
    publisherId: 0,
    instrumentId: 0,
    tsEventRel: 0,
    tsRecvRel: 0,
    price: 0,
    size: 0,
    action: 0,
    side: 0,
    flags: 0,
    depth: 0,
    tsInDelta: 0,
    sequence: 0,
    levelCount,
    bidPx: a(),
    askPx: a(),
    bidSz: a(),
    askSz: a(),
    bidCt: a(),
    askCt: a(),
  };
}

export interface DbnWriteOptions {
  /** zstd-compress the output (default true). */
  compress?: boolean;
  /** zstd level (default 3). */
  level?: number;
}

export class DbnWriter {
  /** Records written so far. */
  count = 0;
  private readonly buf = new Uint8Array(BUFFER_LEN);
  private readonly view = new DataView(this.buf.buffer);
  private pos = 0;
  private baseHi = 0;
  private baseLo = 0;
  private closed = false;
  private readonly version: number;

  private constructor(
    private readonly sink: (bytes: Uint8Array) => void,
    private readonly zstd: ZstdStreamEncoder | null,
    metadata: DbnMetadata,
  ) {
    this.version = metadata.version;
    this.emit(encodeMetadata(metadata));
    this.setTimeBase(metadata.start);
  }

  /** Writes to `path` (created or truncated). Call close() to finish the file. */
  static async toFile(path: string, metadata: DbnMetadata, options: DbnWriteOptions = {}): Promise<DbnWriter> {
    let fd: number;
    try {
      fd = openSync(path, 'w');
    } catch (e) {
      throw new DbnError('io', { file: path }, `cannot write: ${(e as Error).message}`);
    }
    const zstd = (options.compress ?? true) ? await ZstdStreamEncoder.create(options.level) : null;
    const w = new DbnWriter((b) => void writeSync(fd, b), zstd, metadata);
    w.onClose = () => closeSync(fd);
    return w;
  }

  /** Writes into memory; close() returns the bytes. */
  static async toBytes(metadata: DbnMetadata, options: DbnWriteOptions = {}): Promise<DbnWriter> {
    const zstd = (options.compress ?? true) ? await ZstdStreamEncoder.create(options.level) : null;
    const parts: Uint8Array[] = [];
    const w = new DbnWriter((b) => void parts.push(b.slice()), zstd, metadata);
    w.collect = () => Buffer.concat(parts);
    return w;
  }

  private onClose: () => void = () => {};
  private collect: () => Uint8Array = () => new Uint8Array(0);

  /** Base of the *Rel timestamps of writeMbo/writeMbp (default: metadata.start). */
  setTimeBase(ns: bigint): void {
    this.baseHi = Number(ns >> 32n);
    this.baseLo = Number(ns & 0xffffffffn);
  }

  /** Exact face: any record the reader returns (MBO, MBP-0/1/10, v3 instrument definitions). */
  write(r: DbnRecord): void {
    if (isDefinition(r)) {
      if (this.version < 3) throw new Error(`DbnWriter.write: definition records are written in the DBN v3 layout; this file is v${this.version}`);
      const p = this.begin(DEFINITION_V3_LEN, RTYPE.INSTRUMENT_DEF, r.hd.publisher_id, r.hd.instrument_id);
      this.view.setBigUint64(p + 8, r.hd.ts_event, true);
      encodeDefinition(r, this.view, this.buf, p, UNDEF_PRICE);
      return;
    }
    if (isMbo(r)) {
      const p = this.begin(RECORD_LEN.MBO, RTYPE.MBO, r.hd.publisher_id, r.hd.instrument_id);
      const v = this.view;
      v.setBigUint64(p + 8, r.hd.ts_event, true);
      v.setBigUint64(p + 16, r.order_id, true);
      v.setBigInt64(p + 24, r.price, true);
      v.setUint32(p + 32, r.size, true);
      this.buf[p + 36] = r.flags;
      this.buf[p + 37] = r.channel_id;
      this.buf[p + 38] = r.action.charCodeAt(0);
      this.buf[p + 39] = r.side.charCodeAt(0);
      v.setBigUint64(p + 40, r.ts_recv, true);
      v.setInt32(p + 48, r.ts_in_delta, true);
      v.setUint32(p + 52, r.sequence, true);
      return;
    }
    if (!isMbp(r)) throw new Error(`DbnWriter.write: records of rtype 0x${(r as DbnRecord).hd.rtype.toString(16)} are not written by this module`);
    const p = this.begin(RECORD_LEN.TRADE + r.levels.length * RECORD_LEN.LEVEL, r.hd.rtype, r.hd.publisher_id, r.hd.instrument_id);
    const v = this.view;
    v.setBigUint64(p + 8, r.hd.ts_event, true);
    v.setBigInt64(p + 16, r.price, true);
    v.setUint32(p + 24, r.size, true);
    this.buf[p + 28] = r.action.charCodeAt(0);
    this.buf[p + 29] = r.side.charCodeAt(0);
    this.buf[p + 30] = r.flags;
    this.buf[p + 31] = r.depth;
    v.setBigUint64(p + 32, r.ts_recv, true);
    v.setInt32(p + 40, r.ts_in_delta, true);
    v.setUint32(p + 44, r.sequence, true);
    r.levels.forEach((l, i) => {
      const at = p + RECORD_LEN.TRADE + i * RECORD_LEN.LEVEL;
      v.setBigInt64(at, l.bid_px, true);
      v.setBigInt64(at + 8, l.ask_px, true);
      v.setUint32(at + 16, l.bid_sz, true);
      v.setUint32(at + 20, l.ask_sz, true);
      v.setUint32(at + 24, l.bid_ct, true);
      v.setUint32(at + 28, l.ask_ct, true);
    });
  }

  /** Fast face: one MBO record from numbers. */
  writeMbo(f: MboFields): void {
    const p = this.begin(RECORD_LEN.MBO, RTYPE.MBO, f.publisherId, f.instrumentId);
    const v = this.view;
    this.setTime(p + 8, f.tsEventRel);
    this.setU64(p + 16, f.orderId);
    this.setPrice(p + 24, f.price);
    v.setUint32(p + 32, f.size, true);
    this.buf[p + 36] = f.flags;
    this.buf[p + 37] = f.channelId;
    this.buf[p + 38] = f.action;
    this.buf[p + 39] = f.side;
    this.setTime(p + 40, f.tsRecvRel);
    v.setInt32(p + 48, f.tsInDelta, true);
    v.setUint32(p + 52, f.sequence, true);
  }

  /** Fast face: one MBP record (trades, MBP-1, MBP-10 by f.levelCount) from numbers. */
  writeMbp(f: MbpFields): void {
    const rtype = f.levelCount === 10 ? RTYPE.MBP_10 : f.levelCount === 1 ? RTYPE.MBP_1 : RTYPE.MBP_0;
    const p = this.begin(RECORD_LEN.TRADE + f.levelCount * RECORD_LEN.LEVEL, rtype, f.publisherId, f.instrumentId);
    const v = this.view;
    this.setTime(p + 8, f.tsEventRel);
    this.setPrice(p + 16, f.price);
    v.setUint32(p + 24, f.size, true);
    this.buf[p + 28] = f.action;
    this.buf[p + 29] = f.side;
    this.buf[p + 30] = f.flags;
    this.buf[p + 31] = f.depth;
    this.setTime(p + 32, f.tsRecvRel);
    v.setInt32(p + 40, f.tsInDelta, true);
    v.setUint32(p + 44, f.sequence, true);
    for (let i = 0; i < f.levelCount; i++) {
      const at = p + RECORD_LEN.TRADE + i * RECORD_LEN.LEVEL;
      this.setPrice(at, f.bidPx[i]);
      this.setPrice(at + 8, f.askPx[i]);
      v.setUint32(at + 16, f.bidSz[i], true);
      v.setUint32(at + 20, f.askSz[i], true);
      v.setUint32(at + 24, f.bidCt[i], true);
      v.setUint32(at + 28, f.askCt[i], true);
    }
  }

  /** Flushes, ends the zstd frame and closes the file; returns the bytes for toBytes(). */
  close(): Uint8Array {
    if (this.closed) throw new Error('DbnWriter.close: already closed');
    this.closed = true;
    this.flush();
    if (this.zstd) this.sink(this.zstd.end());
    this.onClose();
    return this.collect();
  }

  /** Reserves a record of `length` bytes, writes its header but ts_event; returns its offset. */
  private begin(length: number, rtype: number, publisherId: number, instrumentId: number): number {
    if (this.closed) throw new Error('DbnWriter: write after close');
    if (this.pos + length > this.buf.length) this.flush();
    const p = this.pos;
    this.buf.fill(0, p, p + length);
    this.buf[p] = length / LENGTH_MULTIPLIER;
    this.buf[p + 1] = rtype;
    this.view.setUint16(p + 2, publisherId, true);
    this.view.setUint32(p + 4, instrumentId, true);
    this.pos += length;
    this.count++;
    return p;
  }

  private setTime(at: number, rel: number): void {
    const lo = this.baseLo + rel;
    const carry = Math.floor(lo / TWO32);
    this.view.setUint32(at, lo - carry * TWO32, true);
    this.view.setUint32(at + 4, this.baseHi + carry, true);
  }

  private setU64(at: number, x: number): void {
    const hi = Math.floor(x / TWO32);
    this.view.setUint32(at, x - hi * TWO32, true);
    this.view.setUint32(at + 4, hi, true);
  }

  private setPrice(at: number, x: number): void {
    if (x !== x) {
      this.view.setBigInt64(at, UNDEF_PRICE, true);
      return;
    }
    const hi = Math.floor(x / TWO32);
    this.view.setUint32(at, x - hi * TWO32, true);
    this.view.setInt32(at + 4, hi, true);
  }

  private flush(): void {
    if (this.pos === 0) return;
    this.emit(this.buf.subarray(0, this.pos));
    this.pos = 0;
  }

  private emit(bytes: Uint8Array): void {
    if (!this.zstd) return this.sink(bytes);
    const out = this.zstd.write(bytes);
    if (out.length) this.sink(out);
  }
}
