// The fast face: one reusable view of the current record, fields read on demand straight from
// the decoded bytes, nothing allocated per record. Valid until the reader's next call to next().
//
// Numbers: prices are i64 in units of 1e-9, returned as float64, exact while |price| < 2^53
// (about 9.007e6 in price units, so every futures price); UNDEF_PRICE reads as NaN. Order ids
// read as numbers, exact below 2^53 (CME ids are ~1e12; use the exact face beyond that).
// Timestamps (u64 ns since the epoch, > 2^53) are read relative to a base set with
// setTimeBase() (default: the metadata start), exact while within 2^53 ns (104 days) of it;
// tsEvent()/tsRecv() give the exact bigint when wanted.
//
// Layouts (byte offsets in the record, little-endian), identical in DBN v1 to v3:
//   header   0 length u8 (x4 bytes), 1 rtype u8, 2 publisher_id u16, 4 instrument_id u32, 8 ts_event u64
//   MBO      16 order_id u64, 24 price i64, 32 size u32, 36 flags u8, 37 channel_id u8,
//            38 action char, 39 side char, 40 ts_recv u64, 48 ts_in_delta i32, 52 sequence u32 (56 bytes)
//   MBP-x    16 price i64, 24 size u32, 28 action char, 29 side char, 30 flags u8, 31 depth u8,
//   (trades  32 ts_recv u64, 40 ts_in_delta i32, 44 sequence u32, then x levels of 32 bytes at 48+32i:
//   = MBP-0)    bid_px i64, ask_px i64, bid_sz u32, ask_sz u32, bid_ct u32, ask_ct u32
import { RECORD_LEN, RTYPE } from './constants.ts';

const TWO32 = 4294967296;

/** Offsets of the fields MBO and MBP share, by layout. */
const MBO_AT = { price: 24, size: 32, flags: 36, action: 38, side: 39, tsRecv: 40, tsInDelta: 48, sequence: 52 } as const;
const MBP_AT = { price: 16, size: 24, flags: 30, action: 28, side: 29, tsRecv: 32, tsInDelta: 40, sequence: 44 } as const;

export class DbnCursor {
  /** The decoded bytes holding the record (replaced when the reader's buffer grows). */
  bytes: Uint8Array = new Uint8Array(0);
  view: DataView = new DataView(new ArrayBuffer(0));
  /** Offset of the record in `bytes`. */
  pos = 0;
  /** 0-based index of the record in the file (skipped records counted). */
  index = -1;
  /** Byte offset of the record in the decoded DBN stream. */
  offset = 0;
  private at: typeof MBO_AT | typeof MBP_AT = MBP_AT;
  private baseHi = 0;
  private baseLo = 0;
  /** Where the time getters compute their result. */
  private readonly scratch = new Float64Array(1);

  /** Called by the reader for each record. */
  set(bytes: Uint8Array, view: DataView, pos: number, index: number, offset: number): void {
    this.bytes = bytes;
    this.view = view;
    this.pos = pos;
    this.index = index;
    this.offset = offset;
    this.at = bytes[pos + 1] === RTYPE.MBO ? MBO_AT : MBP_AT;
  }

  /** Sets the base of tsEventRel/tsRecvRel (ns since the epoch). */
  setTimeBase(ns: bigint): void {
    this.baseHi = Number(ns >> 32n);
    this.baseLo = Number(ns & 0xffffffffn);
  }

  get timeBase(): bigint {
    return (BigInt(this.baseHi) << 32n) | BigInt(this.baseLo);
  }

  // --- header (every record) ---
  /** Record length in bytes. */
  get length(): number {
    return this.bytes[this.pos] * 4;
  }
  get rtype(): number {
    return this.bytes[this.pos + 1];
  }
  get publisherId(): number {
    return this.view.getUint16(this.pos + 2, true);
  }
  get instrumentId(): number {
    return this.view.getUint32(this.pos + 4, true);
  }
  tsEvent(): bigint {
    return this.view.getBigUint64(this.pos + 8, true);
  }
  /** ts_event - time base, in ns. */
  get tsEventRel(): number {
    this.relTimeInto(this.pos + 8, this.scratch, 0);
    return this.scratch[0];
  }

  // --- MBO and MBP (trades, MBP-1, TBBO, MBP-10): offsets chosen by rtype ---
  get price(): number {
    const p = this.pos + this.at.price;
    const hi = this.view.getInt32(p + 4, true);
    const lo = this.view.getUint32(p, true);
    if (hi === 0x7fffffff && lo === 0xffffffff) return Number.NaN;
    return hi * TWO32 + lo;
  }
  get size(): number {
    return this.view.getUint32(this.pos + this.at.size, true);
  }
  get flags(): number {
    return this.bytes[this.pos + this.at.flags];
  }
  /** Action as a char code: A add, C cancel, M modify, T trade, F fill, R clear book, N none. */
  get action(): number {
    return this.bytes[this.pos + this.at.action];
  }
  /** Side as a char code: A ask (sell), B bid (buy), N none. */
  get side(): number {
    return this.bytes[this.pos + this.at.side];
  }
  tsRecv(): bigint {
    return this.view.getBigUint64(this.pos + this.at.tsRecv, true);
  }
  /** ts_recv - time base, in ns. */
  get tsRecvRel(): number {
    this.relTimeInto(this.pos + this.at.tsRecv, this.scratch, 0);
    return this.scratch[0];
  }
  get tsInDelta(): number {
    return this.view.getInt32(this.pos + this.at.tsInDelta, true);
  }
  get sequence(): number {
    return this.view.getUint32(this.pos + this.at.sequence, true);
  }

  /**
   * ts_event - time base and the price (NaN when undefined) into out[at] and out[at + 1]: the
   * getters' doubles through slots (hot-path rule 3).
   */
  timeAndPrice(out: Float64Array, at: number): void {
    this.relTimeInto(this.pos + 8, out, at);
    const p = this.pos + this.at.price;
    const hi = this.view.getInt32(p + 4, true);
    const lo = this.view.getUint32(p, true);
    out[at + 1] = hi === 0x7fffffff && lo === 0xffffffff ? Number.NaN : hi * TWO32 + lo;
  }

  /** ts_recv - time base, in ns, into out[at] (a typed array: no heap number per record). */
  recvTimeInto(out: Float64Array, at: number): void {
    this.relTimeInto(this.pos + this.at.tsRecv, out, at);
  }

  /** The record's levels (levelCount), prices (NaN when undefined) and sizes, into the arrays. */
  levelsInto(bidPx: Float64Array, bidSz: Float64Array, askPx: Float64Array, askSz: Float64Array): void {
    const v = this.view;
    for (let i = 0, p = this.pos + RECORD_LEN.TRADE; i < this.levelCount; i++, p += RECORD_LEN.LEVEL) {
      const bh = v.getInt32(p + 4, true);
      const bl = v.getUint32(p, true);
      bidPx[i] = bh === 0x7fffffff && bl === 0xffffffff ? Number.NaN : bh * TWO32 + bl;
      const ah = v.getInt32(p + 12, true);
      const al = v.getUint32(p + 8, true);
      askPx[i] = ah === 0x7fffffff && al === 0xffffffff ? Number.NaN : ah * TWO32 + al;
      bidSz[i] = v.getUint32(p + 16, true);
      askSz[i] = v.getUint32(p + 20, true);
    }
  }

  // --- MBO only ---
  get orderId(): number {
    return this.view.getUint32(this.pos + 20, true) * TWO32 + this.view.getUint32(this.pos + 16, true);
  }
  /** The order id's high and low 32 bits as int32 (exact for every id, never a heap number). */
  get orderIdHi(): number {
    return this.view.getInt32(this.pos + 20, true);
  }
  get orderIdLo(): number {
    return this.view.getInt32(this.pos + 16, true);
  }
  orderIdExact(): bigint {
    return this.view.getBigUint64(this.pos + 16, true);
  }
  get channelId(): number {
    return this.bytes[this.pos + 37];
  }

  // --- MBP only ---
  /** Book level the event changed (0 = top). */
  get depth(): number {
    return this.bytes[this.pos + 31];
  }
  /** Number of levels the record carries: 10 for MBP-10, 1 for MBP-1/TBBO, 0 for trades and MBO. */
  get levelCount(): number {
    switch (this.rtype) {
      case RTYPE.MBP_10:
        return 10;
      case RTYPE.MBP_1:
        return 1;
      default:
        return 0;
    }
  }
  bidPx(level: number): number {
    return this.levelPrice(level, 0);
  }
  askPx(level: number): number {
    return this.levelPrice(level, 8);
  }
  bidSz(level: number): number {
    return this.view.getUint32(this.pos + RECORD_LEN.TRADE + level * RECORD_LEN.LEVEL + 16, true);
  }
  askSz(level: number): number {
    return this.view.getUint32(this.pos + RECORD_LEN.TRADE + level * RECORD_LEN.LEVEL + 20, true);
  }
  bidCt(level: number): number {
    return this.view.getUint32(this.pos + RECORD_LEN.TRADE + level * RECORD_LEN.LEVEL + 24, true);
  }
  askCt(level: number): number {
    return this.view.getUint32(this.pos + RECORD_LEN.TRADE + level * RECORD_LEN.LEVEL + 28, true);
  }

  private levelPrice(level: number, field: number): number {
    const p = this.pos + RECORD_LEN.TRADE + level * RECORD_LEN.LEVEL + field;
    const hi = this.view.getInt32(p + 4, true);
    const lo = this.view.getUint32(p, true);
    if (hi === 0x7fffffff && lo === 0xffffffff) return Number.NaN;
    return hi * TWO32 + lo;
  }

  /** The u64 time at byte p less the time base, into out[at] (hot-path rule 3). */
  private relTimeInto(p: number, out: Float64Array, at: number): void {
    out[at] = (this.view.getUint32(p + 4, true) - this.baseHi) * TWO32 + (this.view.getUint32(p, true) - this.baseLo);
  }
}
