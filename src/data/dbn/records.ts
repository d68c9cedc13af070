// The exact face: records as plain objects named and shaped as Databento's JSON (hd.rtype,
// levels[i].bid_px, ...), 64-bit integers as bigint, action and side as one-character strings.
// Used by --inspect and the tests; the engine reads the cursor instead (no allocation).
import { RECORD_LEN, RTYPE } from './constants.ts';
import type { DbnCursor } from './cursor.ts';
import { decodeDefinition, type InstrumentDefMsg } from './definition.ts';
import type { RecordHeader } from './record-header.ts';

export interface MboMsg {
  hd: RecordHeader;
  order_id: bigint;
  price: bigint;
  size: number;
  flags: number;
  channel_id: number;
  action: string;
  side: string;
  ts_recv: bigint;
  ts_in_delta: number;
  sequence: number;
}

export interface BidAskPair {
  bid_px: bigint;
  ask_px: bigint;
  bid_sz: number;
  ask_sz: number;
  bid_ct: number;
  ask_ct: number;
}

/** Trades (MBP-0, no levels), MBP-1 and TBBO (one level), MBP-10 (ten levels). */
export interface MbpMsg {
  hd: RecordHeader;
  price: bigint;
  size: number;
  action: string;
  side: string;
  flags: number;
  depth: number;
  ts_recv: bigint;
  ts_in_delta: number;
  sequence: number;
  levels: BidAskPair[];
}

export type DbnRecord = MboMsg | MbpMsg | InstrumentDefMsg;

export function isMbo(r: DbnRecord): r is MboMsg {
  return r.hd.rtype === RTYPE.MBO;
}

export function isMbp(r: DbnRecord): r is MbpMsg {
  return r.hd.rtype === RTYPE.MBP_0 || r.hd.rtype === RTYPE.MBP_1 || r.hd.rtype === RTYPE.MBP_10;
}

export function isDefinition(r: DbnRecord): r is InstrumentDefMsg {
  return r.hd.rtype === RTYPE.INSTRUMENT_DEF;
}

/** Decodes the cursor's record (one of the types the reader returns). */
export function decodeRecord(c: DbnCursor, version: number): DbnRecord {
  const v = c.view;
  const p = c.pos;
  const hd: RecordHeader = { length: c.bytes[p], rtype: c.rtype, publisher_id: c.publisherId, instrument_id: c.instrumentId, ts_event: c.tsEvent() };
  const char = (at: number): string => String.fromCharCode(c.bytes[p + at]);
  if (hd.rtype === RTYPE.MBO) {
    return {
      hd,
      order_id: v.getBigUint64(p + 16, true),
      price: v.getBigInt64(p + 24, true),
      size: v.getUint32(p + 32, true),
      flags: c.bytes[p + 36],
      channel_id: c.bytes[p + 37],
      action: char(38),
      side: char(39),
      ts_recv: v.getBigUint64(p + 40, true),
      ts_in_delta: v.getInt32(p + 48, true),
      sequence: v.getUint32(p + 52, true),
    };
  }
  if (hd.rtype === RTYPE.INSTRUMENT_DEF) return decodeDefinition(hd, v, p, c.length, version);
  const levels: BidAskPair[] = [];
  for (let i = 0; i < c.levelCount; i++) {
    const l = p + RECORD_LEN.TRADE + i * RECORD_LEN.LEVEL;
    levels.push({
      bid_px: v.getBigInt64(l, true),
      ask_px: v.getBigInt64(l + 8, true),
      bid_sz: v.getUint32(l + 16, true),
      ask_sz: v.getUint32(l + 20, true),
      bid_ct: v.getUint32(l + 24, true),
      ask_ct: v.getUint32(l + 28, true),
    });
  }
  return {
    hd,
    price: v.getBigInt64(p + 16, true),
    size: v.getUint32(p + 24, true),
    action: char(28),
    side: char(29),
    flags: c.bytes[p + 30],
    depth: c.bytes[p + 31],
    ts_recv: v.getBigUint64(p + 32, true),
    ts_in_delta: v.getInt32(p + 40, true),
    sequence: v.getUint32(p + 44, true),
    levels,
  };
}
