// Instrument definitions (rtype 0x13). The layout changed in every DBN version (v1 360 bytes,
// v2 400, v3 520); this module lays out v3, the fields a replay needs to name and size an
// instrument. For v1/v2 definitions only the header and ts_recv (same place in all versions)
// are read; the reader frames every definition by its length either way.
//
// v3 offsets used (record.rs InstrumentDefMsg, 520 bytes): 16 ts_recv u64, 24 min_price_increment
// i64, 32 display_factor i64, 40 expiration u64, 48 activation u64, 56 high_limit_price i64,
// 64 low_limit_price i64, 80 unit_of_measure_qty i64, 112 raw_instrument_id u64,
// 214 maturity_year u16, 224 currency char[4], 238 raw_symbol char[71], 309 group char[21],
// 330 exchange char[5], 335 asset char[11], 353 security_type char[7], 487 instrument_class char,
// 488 match_algorithm char, 493 security_update_action char, 494 maturity_month u8.
import type { RecordHeader } from './records.ts';

export const DEFINITION_V3_LEN = 520;

export interface InstrumentDefMsg {
  hd: RecordHeader;
  ts_recv: bigint;
  /** The v3 fields below are absent for v1/v2 definitions. */
  min_price_increment?: bigint;
  display_factor?: bigint;
  expiration?: bigint;
  activation?: bigint;
  high_limit_price?: bigint;
  low_limit_price?: bigint;
  unit_of_measure_qty?: bigint;
  raw_instrument_id?: bigint;
  maturity_year?: number;
  maturity_month?: number;
  currency?: string;
  raw_symbol?: string;
  group?: string;
  exchange?: string;
  asset?: string;
  security_type?: string;
  instrument_class?: string;
  match_algorithm?: string;
  security_update_action?: string;
}

const latin1 = new TextDecoder('latin1');

export function decodeDefinition(hd: RecordHeader, v: DataView, p: number, length: number, version: number): InstrumentDefMsg {
  const ts_recv = v.getBigUint64(p + 16, true);
  if (version < 3 || length < DEFINITION_V3_LEN) return { hd, ts_recv };
  const bytes = new Uint8Array(v.buffer, v.byteOffset + p, length);
  const cstr = (at: number, len: number): string => {
    const raw = bytes.subarray(at, at + len);
    const nul = raw.indexOf(0);
    return latin1.decode(nul < 0 ? raw : raw.subarray(0, nul));
  };
  const char = (at: number): string => (bytes[at] === 0 ? '' : String.fromCharCode(bytes[at]));
  return {
    hd,
    ts_recv,
    min_price_increment: v.getBigInt64(p + 24, true),
    display_factor: v.getBigInt64(p + 32, true),
    expiration: v.getBigUint64(p + 40, true),
    activation: v.getBigUint64(p + 48, true),
    high_limit_price: v.getBigInt64(p + 56, true),
    low_limit_price: v.getBigInt64(p + 64, true),
    unit_of_measure_qty: v.getBigInt64(p + 80, true),
    raw_instrument_id: v.getBigUint64(p + 112, true),
    maturity_year: v.getUint16(p + 214, true),
    maturity_month: bytes[494],
    currency: cstr(224, 4),
    raw_symbol: cstr(238, 71),
    group: cstr(309, 21),
    exchange: cstr(330, 5),
    asset: cstr(335, 11),
    security_type: cstr(353, 7),
    instrument_class: char(487),
    match_algorithm: char(488),
    security_update_action: char(493),
  };
}
