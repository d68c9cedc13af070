// Instrument definitions (rtype 0x13). The layout changed in every DBN version (v1 360 bytes,
// v2 400, v3 520); this module lays out v3, the fields a replay needs to name and size an
// instrument. For v1/v2 definitions only the header and ts_recv (same place in all versions)
// are read; the reader frames every definition by its length either way.
//
// v3 offsets used (record.rs InstrumentDefMsg, 520 bytes): 16 ts_recv u64, 24 min_price_increment
// i64, 32 display_factor i64, 40 expiration u64, 48 activation u64, 56 high_limit_price i64,
// 64 low_limit_price i64, 80 unit_of_measure_qty i64, 88 min_price_increment_amount i64,
// 112 raw_instrument_id u64,
// 214 maturity_year u16, 224 currency char[4], 238 raw_symbol char[71], 309 group char[21],
// 330 exchange char[5], 335 asset char[11], 353 security_type char[7], 487 instrument_class char,
// 488 match_algorithm char, 493 security_update_action char, 494 maturity_month u8.
import type { RecordHeader } from './record-header.ts';

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
  /** The value of one tick with the display factor applied (1e-9 units; UNDEF_PRICE: not given). */
  min_price_increment_amount?: bigint;
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
    min_price_increment_amount: v.getBigInt64(p + 88, true),
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

/** Byte offsets of the v3 fields encodeDefinition writes (the layout above). */
const I64_AT = {
  min_price_increment: 24,
  display_factor: 32,
  high_limit_price: 56,
  low_limit_price: 64,
  unit_of_measure_qty: 80,
  min_price_increment_amount: 88,
} as const;
const U64_AT = { expiration: 40, activation: 48, raw_instrument_id: 112 } as const;
const CSTR_AT = { currency: [224, 4], raw_symbol: [238, 71], group: [309, 21], exchange: [330, 5], asset: [335, 11], security_type: [353, 7] } as const;
const CHAR_AT = { instrument_class: 487, match_algorithm: 488, security_update_action: 493 } as const;

/**
 * Writes a v3 definition's fields at `p` of a zeroed 520-byte record whose header is written.
 * Fields left out: prices UNDEF_PRICE (Databento's null), everything else zero.
 */
export function encodeDefinition(d: InstrumentDefMsg, v: DataView, bytes: Uint8Array, p: number, undefPrice: bigint): void {
  v.setBigUint64(p + 16, d.ts_recv, true);
  for (const [k, at] of Object.entries(I64_AT)) v.setBigInt64(p + at, d[k as keyof typeof I64_AT] ?? undefPrice, true);
  for (const [k, at] of Object.entries(U64_AT)) v.setBigUint64(p + at, d[k as keyof typeof U64_AT] ?? 0n, true);
  v.setUint16(p + 214, d.maturity_year ?? 0, true);
  bytes[p + 494] = d.maturity_month ?? 0;
  for (const [k, [at, len]] of Object.entries(CSTR_AT)) {
    const text = d[k as keyof typeof CSTR_AT] ?? '';
    if (text.length >= len) throw new Error(`definition ${k} '${text}' is longer than its ${len - 1} characters`);
    for (let i = 0; i < text.length; i++) bytes[p + at + i] = text.charCodeAt(i) & 0xff;
  }
  for (const [k, at] of Object.entries(CHAR_AT)) {
    const ch = d[k as keyof typeof CHAR_AT] ?? '';
    bytes[p + at] = ch === '' ? 0 : ch.charCodeAt(0);
  }
}
