// Streaming DBN reader: reads the file in chunks (synchronously: it runs in a worker and the
// engine pulls records one by one), decompresses zstd incrementally, frames records by their
// length byte (x4) and checks the time order. Memory stays constant: one buffer holding the
// current chunk's decoded bytes plus at most one partial record.
import { closeSync, openSync, readSync } from 'node:fs';
import { FLAGS, LENGTH_MULTIPLIER, RECORD_HEADER_LEN, RECORD_LEN, RTYPE, SUPPORTED_SCHEMAS } from './constants.ts';
import { DbnCursor } from './cursor.ts';
import { DbnError } from './errors.ts';
import { type DbnMetadata, decodeMetadata, decodePrelude, PRELUDE_LEN } from './metadata.ts';
import { decodeRecord, type DbnRecord } from './records.ts';
import { isZstd, ZstdDecodeError, ZstdStreamDecoder } from './zstd.ts';

export interface DbnReadOptions {
  /** Bytes read from the file per call (default 256 KiB). */
  chunkSize?: number;
  /** Throw a DbnError when the index timestamp decreases (default true). */
  checkOrder?: boolean;
}

/** Where the bytes come from: a file descriptor, an in-memory buffer, another thread (inflate-thread.ts). */
export interface ByteSource {
  /** Fills `dst` from the start with what is there (at least one byte); returns the count, 0 at the end. */
  read(dst: Uint8Array): number;
  close(): void;
}

export function fileSource(path: string): ByteSource {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new DbnError('io', { file: path }, `cannot open: ${(e as Error).message}`);
  }
  return {
    read(dst) {
      try {
        return readSync(fd, dst, 0, dst.length, null);
      } catch (e) {
        throw new DbnError('io', { file: path }, `cannot read: ${(e as Error).message}`);
      }
    },
    close: () => closeSync(fd),
  };
}

function bytesSource(bytes: Uint8Array): ByteSource {
  let at = 0;
  return {
    read(dst) {
      const n = Math.min(dst.length, bytes.length - at);
      dst.set(bytes.subarray(at, at + n));
      at += n;
      return n;
    },
    close() {},
  };
}

/** Minimum length of each record type this module lays out; others are skipped by length. */
function layoutLength(rtype: number): number {
  switch (rtype) {
    case RTYPE.MBO:
      return RECORD_LEN.MBO;
    case RTYPE.MBP_0:
      return RECORD_LEN.TRADE;
    case RTYPE.MBP_1:
      return RECORD_LEN.MBP_1;
    case RTYPE.MBP_10:
      return RECORD_LEN.MBP_10;
    case RTYPE.INSTRUMENT_DEF:
      return RECORD_HEADER_LEN + 8;
    default:
      return 0;
  }
}

/** Offset of ts_recv, the field DBN sorts MBO/MBP/trades/definition records by; -1: not checked. */
function indexTsOffset(rtype: number): number {
  switch (rtype) {
    case RTYPE.MBO:
      return 40;
    case RTYPE.MBP_0:
    case RTYPE.MBP_1:
    case RTYPE.MBP_10:
      return 32;
    case RTYPE.INSTRUMENT_DEF:
      return 16;
    default:
      return -1;
  }
}

export class DbnReader {
  readonly file: string;
  readonly metadata: DbnMetadata;
  /** The bytes this reader reads are zstd (detected by magic, not by name; false over an inflater thread's output). */
  readonly compressed: boolean;
  /** Records of types this module does not lay out, skipped by length so far. */
  skipped = 0;
  /** Records read so far (skipped ones included). */
  count = 0;
  /** Bytes read from the source so far (compressed bytes for .zst read here). */
  fileBytes = 0;

  private readonly source: ByteSource;
  private readonly chunk: Uint8Array;
  private readonly zstd: ZstdStreamDecoder | null = null;
  private readonly checkOrder: boolean;
  private buf: Uint8Array;
  private view: DataView;
  private start = 0;
  private end = 0;
  /** Offset in the decoded stream of buf[0]. */
  private base = 0;
  private eof = false;
  private readonly cursor = new DbnCursor();
  private prevHi = -1;
  private prevLo = -1;

  /** Opens a .dbn or .dbn.zst file and reads its metadata. */
  static open(path: string, options: DbnReadOptions = {}): DbnReader {
    return new DbnReader(path, fileSource(path), options);
  }

  /** Reads DBN (plain or zstd) from memory; `name` is used in error messages. */
  static fromBytes(bytes: Uint8Array, name = '<bytes>', options: DbnReadOptions = {}): DbnReader {
    return new DbnReader(name, bytesSource(bytes), options);
  }

  /** Reads DBN (plain or zstd) from `source`; `name` is used in error messages. Closing the reader closes it. */
  static fromSource(source: ByteSource, name: string, options: DbnReadOptions = {}): DbnReader {
    return new DbnReader(name, source, options);
  }

  private constructor(file: string, source: ByteSource, options: DbnReadOptions) {
    this.file = file;
    this.source = source;
    this.checkOrder = options.checkOrder ?? true;
    this.chunk = new Uint8Array(options.chunkSize ?? 256 * 1024);
    this.buf = new Uint8Array(Math.max(this.chunk.length * 2, 64 * 1024));
    this.view = new DataView(this.buf.buffer);
    try {
      // Sniff the first 4 bytes straight from the file: a zstd magic, or else plain DBN.
      let first = new Uint8Array(0);
      let got = 1;
      while (first.length < 4 && got > 0) {
        got = this.readFile();
        const joined = new Uint8Array(first.length + got);
        joined.set(first);
        joined.set(this.chunk.subarray(0, got), first.length);
        first = joined;
      }
      this.compressed = isZstd(first);
      if (this.compressed) {
        this.zstd = new ZstdStreamDecoder((out) => this.append(out));
        this.pushCompressed(first, got === 0);
      } else {
        this.append(first);
      }
      if (got === 0) this.eof = true;
      this.fill(PRELUDE_LEN);
      const { version, length } = decodePrelude(this.buf.subarray(this.start, this.end), file);
      this.fill(PRELUDE_LEN + length);
      if (this.end - this.start < PRELUDE_LEN + length)
        throw new DbnError('truncated', { file, offset: this.end - this.start }, `file ends inside the metadata (${PRELUDE_LEN + length} bytes expected)`);
      this.metadata = decodeMetadata(version, this.buf.slice(this.start + PRELUDE_LEN, this.start + PRELUDE_LEN + length), file);
      if (this.metadata.schema !== null && !SUPPORTED_SCHEMAS.includes(this.metadata.schema)) {
        throw new DbnError(
          'schema',
          { file, offset: PRELUDE_LEN + 16 },
          `unsupported schema ${this.metadata.schema}: this reader decodes ${SUPPORTED_SCHEMAS.join(', ')}`,
        );
      }
      this.start += PRELUDE_LEN + length;
      this.cursor.setTimeBase(this.metadata.start);
    } catch (e) {
      this.close();
      throw e;
    }
  }

  /**
   * Fast face: advances to the next record and returns the (reused) cursor over it, or null
   * at the end of the file. Records of other types are skipped by length.
   */
  next(): DbnCursor | null {
    for (;;) {
      if (this.end - this.start < 1) {
        this.fill(1);
        if (this.end - this.start < 1) return null;
      }
      const length = this.buf[this.start] * LENGTH_MULTIPLIER;
      const offset = this.base + this.start;
      const index = this.count;
      if (length < RECORD_HEADER_LEN)
        throw new DbnError('corrupt', { file: this.file, offset, record: index }, `record length ${length} is shorter than the 16-byte record header`);
      if (this.end - this.start < length) {
        this.fill(length);
        if (this.end - this.start < length) {
          throw new DbnError('truncated', { file: this.file, offset, record: index }, `file ends inside a record: ${this.end - this.start} of ${length} bytes`);
        }
      }
      const pos = this.start;
      this.start += length;
      this.count++;
      const rtype = this.buf[pos + 1];
      const need = layoutLength(rtype);
      if (need === 0) {
        this.skipped++;
        continue;
      }
      if (length < need)
        throw new DbnError(
          'corrupt',
          { file: this.file, offset, record: index },
          `record of rtype 0x${rtype.toString(16).padStart(2, '0')} is ${length} bytes, its layout needs ${need}`,
        );
      if (this.checkOrder) this.checkTime(pos, rtype, offset, index);
      this.cursor.set(this.buf, this.view, pos, index, offset);
      return this.cursor;
    }
  }

  /** Exact face: every laid-out record as a plain object (64-bit integers as bigint). */
  *records(): Generator<DbnRecord> {
    for (let c = this.next(); c !== null; c = this.next()) yield decodeRecord(c, this.metadata.version);
  }

  close(): void {
    this.zstd?.close();
    this.source.close();
  }

  private checkTime(pos: number, rtype: number, offset: number, index: number): void {
    const at = indexTsOffset(rtype);
    if (at < 0) return;
    const hi = this.view.getUint32(pos + at + 4, true);
    const lo = this.view.getUint32(pos + at, true);
    if (hi < this.prevHi || (hi === this.prevHi && lo < this.prevLo)) {
      const prev = (BigInt(this.prevHi) << 32n) | BigInt(this.prevLo);
      const cur = (BigInt(hi) << 32n) | BigInt(lo);
      const bad = this.buf[pos + (rtype === RTYPE.MBO ? 36 : 30)] & FLAGS.F_BAD_TS_RECV ? ' (record flagged F_BAD_TS_RECV)' : '';
      throw new DbnError(
        'order',
        { file: this.file, offset, record: index },
        `records out of time order: ts_recv ${cur} is before the previous record's ${prev}${bad}`,
      );
    }
    this.prevHi = hi;
    this.prevLo = lo;
  }

  private readFile(into: Uint8Array = this.chunk): number {
    const n = this.source.read(into);
    this.fileBytes += n;
    return n;
  }

  /** Reads and decodes until `n` bytes are buffered from `start`, or the file ends. */
  private fill(n: number): void {
    while (this.end - this.start < n && !this.eof) {
      if (this.start > 0 && this.buf.length - this.start < n + this.chunk.length) this.compact();
      let got: number;
      if (this.zstd) {
        got = this.readFile();
        this.pushCompressed(this.chunk.subarray(0, got), got === 0);
      } else {
        // Plain DBN (a .dbn file, or an inflater thread's output) is read straight into the
        // buffer: a copy through the chunk would cost the decoder thread ~7 % (round twenty-one).
        this.reserve(this.chunk.length);
        got = this.readFile(this.buf.subarray(this.end, this.end + this.chunk.length));
        this.end += got;
      }
      if (got === 0) this.eof = true;
    }
  }

  private pushCompressed(data: Uint8Array, final: boolean): void {
    try {
      this.zstd?.push(data, final);
    } catch (e) {
      if (!(e instanceof ZstdDecodeError)) throw e;
      throw zstdFailure(e, this.file, this.base + this.end, this.fileBytes);
    }
  }

  /** Moves the unread bytes to the front of the buffer. */
  private compact(): void {
    this.buf.copyWithin(0, this.start, this.end);
    this.base += this.start;
    this.end -= this.start;
    this.start = 0;
  }

  private append(data: Uint8Array): void {
    this.reserve(data.length);
    this.buf.set(data, this.end);
    this.end += data.length;
  }

  /** Room for `n` more bytes after `end`: the unread bytes moved to the front, the buffer grown if need be. */
  private reserve(n: number): void {
    if (this.end + n <= this.buf.length) return;
    this.compact();
    if (this.end + n > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, this.end + n));
      grown.set(this.buf.subarray(0, this.end));
      this.buf = grown;
      this.view = new DataView(grown.buffer);
    }
  }
}

/** The DbnError of a zstd failure after `decoded` bytes of the DBN stream and `compressed` bytes of the file. */
export function zstdFailure(e: ZstdDecodeError, file: string, decoded: number, compressed: number): DbnError {
  const what = e.truncated ? 'compressed file ends inside a zstd frame' : `corrupt zstd data: ${e.message}`;
  return new DbnError(e.truncated ? 'truncated' : 'zstd', { file, offset: decoded }, `${what} (at compressed byte ${compressed})`);
}
