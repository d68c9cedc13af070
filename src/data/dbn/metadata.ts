// The DBN metadata header: an 8-byte prelude ("DBN", version byte, u32 length of the rest), a
// 100-byte fixed part, then variable symbol lists and symbology mappings. Layout (all little-endian):
//
//   0  dataset        16-byte C string
//  16  schema         u16 (0xFFFF = mixed)
//  18  start          u64 ns since the UNIX epoch
//  26  end            u64 (u64::MAX = none)
//  34  limit          u64 (0 = none)
//      v1: record_count u64 (deprecated), stype_in u8, stype_out u8, ts_out u8, 47 reserved bytes
//      v2+: stype_in u8, stype_out u8, ts_out u8, symbol_cstr_len u16, 53 reserved bytes
// 100  schema_definition_length u32 (always 0)
//      symbols, partial, not_found: each u32 count + count C strings of symbol_cstr_len bytes
//      mappings: u32 count, each raw_symbol C string, u32 interval count, each interval
//                start_date u32 YYYYMMDD, end_date u32 YYYYMMDD, symbol C string
// Offsets above are relative to the end of the prelude (byte 8 of the file).
import {
  DBN_MAGIC,
  DBN_MAX_VERSION,
  METADATA_DATASET_CSTR_LEN,
  METADATA_FIXED_LEN,
  NULL_SCHEMA,
  NULL_STYPE,
  SCHEMA_IDS,
  type SchemaName,
  STYPE_NAMES,
  SYMBOL_CSTR_LEN,
  UNDEF_TIMESTAMP,
  V1_SYMBOL_CSTR_LEN,
} from './constants.ts';
import { DbnError } from './errors.ts';

export interface MappingInterval {
  /** First day the mapping holds, YYYY-MM-DD (UTC). */
  start_date: string;
  /** Day after the last day it holds, YYYY-MM-DD (exclusive, as Databento writes it). */
  end_date: string;
  /** The mapped symbol: for stype_out instrument_id, the instrument id as decimal text. */
  symbol: string;
}

export interface SymbolMapping {
  raw_symbol: string;
  intervals: MappingInterval[];
}

export interface DbnMetadata {
  version: number;
  dataset: string;
  /** null: the file mixes schemas. */
  schema: SchemaName | null;
  /** ns since the UNIX epoch (UTC). */
  start: bigint;
  /** null when the query was open-ended (u64::MAX in the file). */
  end: bigint | null;
  /** 0n: no limit. */
  limit: bigint;
  stype_in: string | null;
  stype_out: string;
  /** Records carry an extra trailing u64 ts_out (gateway send time). */
  ts_out: boolean;
  symbol_cstr_len: number;
  symbols: string[];
  partial: string[];
  not_found: string[];
  mappings: SymbolMapping[];
}

export const PRELUDE_LEN = 8;

/** Reads "DBN" + version + length; throws a DbnError for a wrong magic or version. */
export function decodePrelude(bytes: Uint8Array, file: string): { version: number; length: number } {
  if (bytes.length < PRELUDE_LEN)
    throw new DbnError('truncated', { file, offset: bytes.length }, `file ends inside the 8-byte DBN prelude (${bytes.length} bytes)`);
  if (bytes[0] !== DBN_MAGIC[0] || bytes[1] !== DBN_MAGIC[1] || bytes[2] !== DBN_MAGIC[2]) {
    const hex = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new DbnError('magic', { file, offset: 0 }, `not a DBN file: wrong magic ${hex}, expected "DBN" (44 42 4e) or a zstd frame`);
  }
  const version = bytes[3];
  if (version < 1 || version > DBN_MAX_VERSION)
    throw new DbnError('version', { file, offset: 3 }, `unsupported DBN version ${version}: this decoder reads versions 1 to ${DBN_MAX_VERSION}`);
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  if (length < METADATA_FIXED_LEN)
    throw new DbnError('metadata', { file, offset: 4 }, `metadata length ${length} is shorter than its fixed part (${METADATA_FIXED_LEN} bytes)`);
  return { version, length };
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Decodes the metadata body (the `length` bytes after the prelude). */
export function decodeMetadata(version: number, body: Uint8Array, file: string): DbnMetadata {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let pos = 0;
  const need = (n: number, what: string): void => {
    if (pos + n > body.length)
      throw new DbnError('metadata', { file, offset: PRELUDE_LEN + pos }, `metadata ends inside ${what} (needs ${n} bytes, ${body.length - pos} left)`);
  };
  const cstr = (len: number, what: string): string => {
    need(len, what);
    const raw = body.subarray(pos, pos + len);
    const nul = raw.indexOf(0);
    let s: string;
    try {
      s = decoder.decode(nul < 0 ? raw : raw.subarray(0, nul));
    } catch {
      throw new DbnError('metadata', { file, offset: PRELUDE_LEN + pos }, `${what} is not valid UTF-8`);
    }
    pos += len;
    return s;
  };
  const u32 = (what: string): number => {
    need(4, what);
    const v = view.getUint32(pos, true);
    pos += 4;
    return v;
  };
  const u64 = (): bigint => {
    const v = view.getBigUint64(pos, true);
    pos += 8;
    return v;
  };

  const dataset = cstr(METADATA_DATASET_CSTR_LEN, 'dataset');
  const rawSchema = view.getUint16(pos, true);
  const schema = rawSchema === NULL_SCHEMA ? null : schemaName(rawSchema);
  if (schema === undefined) throw new DbnError('schema', { file, offset: PRELUDE_LEN + pos }, `unknown schema id ${rawSchema}`);
  pos += 2;
  const start = u64();
  const endRaw = u64();
  const limit = u64();
  if (version === 1) pos += 8; // record_count, deprecated
  const stypeInRaw = body[pos++];
  const stypeOutRaw = body[pos++];
  const ts_out = body[pos++] !== 0;
  let symbolCstrLen = V1_SYMBOL_CSTR_LEN;
  if (version >= 2) {
    symbolCstrLen = view.getUint16(pos, true);
    if (symbolCstrLen === 0) throw new DbnError('metadata', { file, offset: PRELUDE_LEN + pos }, 'symbol_cstr_len is 0');
  }
  pos = METADATA_FIXED_LEN;
  const schemaDefLen = u32('schema_definition_length');
  if (schemaDefLen !== 0)
    throw new DbnError(
      'metadata',
      { file, offset: PRELUDE_LEN + pos - 4 },
      `schema_definition_length ${schemaDefLen}: schema definitions are not part of DBN and cannot be read`,
    );
  const symbolList = (what: string): string[] => {
    const n = u32(`${what} count`);
    need(n * symbolCstrLen, `${what} (${n} symbols)`);
    return Array.from({ length: n }, (_, i) => cstr(symbolCstrLen, `${what}[${i}]`));
  };
  const symbols = symbolList('symbols');
  const partial = symbolList('partial');
  const not_found = symbolList('not_found');
  const mappingCount = u32('mappings count');
  const mappings: SymbolMapping[] = [];
  for (let m = 0; m < mappingCount; m++) {
    const raw_symbol = cstr(symbolCstrLen, `mappings[${m}].raw_symbol`);
    const n = u32(`mappings[${m}] interval count`);
    need(n * (8 + symbolCstrLen), `mappings[${m}] (${n} intervals)`);
    const intervals: MappingInterval[] = [];
    for (let i = 0; i < n; i++) {
      const where = `mappings[${m}].intervals[${i}]`;
      const start_date = isoDate(u32(`${where}.start_date`), file, PRELUDE_LEN + pos - 4);
      const end_date = isoDate(u32(`${where}.end_date`), file, PRELUDE_LEN + pos - 4);
      intervals.push({ start_date, end_date, symbol: cstr(symbolCstrLen, `${where}.symbol`) });
    }
    mappings.push({ raw_symbol, intervals });
  }
  return {
    version,
    dataset,
    schema,
    start,
    end: endRaw === UNDEF_TIMESTAMP ? null : endRaw,
    limit,
    stype_in: stypeInRaw === NULL_STYPE ? null : stypeName(stypeInRaw, file),
    stype_out: stypeName(stypeOutRaw, file),
    ts_out,
    symbol_cstr_len: symbolCstrLen,
    symbols,
    partial,
    not_found,
    mappings,
  };
}

function schemaName(id: number): SchemaName | undefined {
  return (Object.keys(SCHEMA_IDS) as SchemaName[]).find((k) => SCHEMA_IDS[k] === id);
}

function stypeName(id: number, file: string): string {
  const name = STYPE_NAMES[id];
  if (name === undefined) throw new DbnError('metadata', { file }, `unknown symbology type id ${id}`);
  return name;
}

function isoDate(yyyymmdd: number, file: string, offset: number): string {
  const y = Math.floor(yyyymmdd / 10000);
  const m = Math.floor(yyyymmdd / 100) % 100;
  const d = yyyymmdd % 100;
  if (m < 1 || m > 12 || d < 1 || d > 31) throw new DbnError('metadata', { file, offset }, `mapping date ${yyyymmdd} is not a YYYYMMDD date`);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Encodes metadata as DBN `version` (1 to 3), padded to a multiple of 8 bytes so records align. */
export function encodeMetadata(meta: Omit<DbnMetadata, 'symbol_cstr_len'> & { symbol_cstr_len?: number }): Uint8Array {
  const version = meta.version;
  if (version < 1 || version > DBN_MAX_VERSION) throw new RangeError(`encodeMetadata: version ${version} not in 1..${DBN_MAX_VERSION}`);
  const cstrLen = version === 1 ? V1_SYMBOL_CSTR_LEN : (meta.symbol_cstr_len ?? SYMBOL_CSTR_LEN);
  const intervals = meta.mappings.reduce((n, m) => n + m.intervals.length, 0);
  const varLen =
    4 +
    3 * 4 +
    (meta.symbols.length + meta.partial.length + meta.not_found.length) * cstrLen +
    4 +
    meta.mappings.length * (cstrLen + 4) +
    intervals * (8 + cstrLen);
  const bodyLen = Math.ceil((METADATA_FIXED_LEN + varLen + PRELUDE_LEN) / 8) * 8 - PRELUDE_LEN;
  const out = new Uint8Array(PRELUDE_LEN + bodyLen);
  const view = new DataView(out.buffer);
  const enc = new TextEncoder();
  let pos = 0;
  const cstr = (s: string, len: number, what: string): void => {
    const b = enc.encode(s);
    if (b.length >= len) throw new RangeError(`encodeMetadata: ${what} ${JSON.stringify(s)} longer than ${len - 1} bytes`);
    out.set(b, pos);
    pos += len;
  };
  out.set([...DBN_MAGIC, version]);
  view.setUint32(4, bodyLen, true);
  pos = PRELUDE_LEN;
  cstr(meta.dataset, METADATA_DATASET_CSTR_LEN, 'dataset');
  view.setUint16(pos, meta.schema === null ? NULL_SCHEMA : SCHEMA_IDS[meta.schema], true);
  view.setBigUint64(pos + 2, meta.start, true);
  view.setBigUint64(pos + 10, meta.end ?? UNDEF_TIMESTAMP, true);
  view.setBigUint64(pos + 18, meta.limit, true);
  pos += 26;
  if (version === 1) {
    view.setBigUint64(pos, UNDEF_TIMESTAMP, true);
    pos += 8;
  }
  out[pos++] = meta.stype_in === null ? NULL_STYPE : stypeId(meta.stype_in);
  out[pos++] = stypeId(meta.stype_out);
  out[pos++] = meta.ts_out ? 1 : 0;
  if (version >= 2) view.setUint16(pos, cstrLen, true);
  pos = PRELUDE_LEN + METADATA_FIXED_LEN + 4; // schema_definition_length stays 0
  const list = (xs: string[], what: string): void => {
    view.setUint32(pos, xs.length, true);
    pos += 4;
    xs.forEach((s, i) => cstr(s, cstrLen, `${what}[${i}]`));
  };
  list(meta.symbols, 'symbols');
  list(meta.partial, 'partial');
  list(meta.not_found, 'not_found');
  view.setUint32(pos, meta.mappings.length, true);
  pos += 4;
  for (const m of meta.mappings) {
    cstr(m.raw_symbol, cstrLen, 'raw_symbol');
    view.setUint32(pos, m.intervals.length, true);
    pos += 4;
    for (const iv of m.intervals) {
      view.setUint32(pos, Number(iv.start_date.replaceAll('-', '')), true);
      view.setUint32(pos + 4, Number(iv.end_date.replaceAll('-', '')), true);
      pos += 8;
      cstr(iv.symbol, cstrLen, 'mapping symbol');
    }
  }
  return out;
}

function stypeId(name: string): number {
  const id = (STYPE_NAMES as readonly string[]).indexOf(name);
  if (id < 0) throw new RangeError(`encodeMetadata: unknown stype ${JSON.stringify(name)}`);
  return id;
}
