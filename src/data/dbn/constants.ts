// DBN constants as Databento defines them (dbn repository: rust/dbn/src/enums.rs, flags.rs,
// record.rs, lib.rs). Values are part of the format; names follow Databento's.

/** Highest DBN version this decoder reads (and the version the writer emits). */
export const DBN_MAX_VERSION = 3;
/** "DBN" then one version byte. */
export const DBN_MAGIC = [0x44, 0x42, 0x4e] as const;
/** Record lengths are stored in units of 4 bytes (RecordHeader::LENGTH_MULTIPLIER). */
export const LENGTH_MULTIPLIER = 4;
export const RECORD_HEADER_LEN = 16;

/** i64::MAX: "no price" (e.g. an empty book level). */
export const UNDEF_PRICE = 9223372036854775807n;
/** u64::MAX: "no timestamp" (e.g. metadata end when open-ended). */
export const UNDEF_TIMESTAMP = 18446744073709551615n;
/** Prices are integers in units of 1e-9. */
export const FIXED_PRICE_SCALE = 1_000_000_000;

/** Record types (first byte after the length): rtype in every record header. */
export const RTYPE = {
  MBP_0: 0x00, // trades
  MBP_1: 0x01, // MBP-1 and TBBO
  MBP_10: 0x0a,
  STATUS: 0x12,
  INSTRUMENT_DEF: 0x13,
  IMBALANCE: 0x14,
  ERROR: 0x15,
  SYMBOL_MAPPING: 0x16,
  SYSTEM: 0x17,
  STATISTICS: 0x18,
  MBO: 0xa0,
} as const;

/** Schema ids in the metadata header (enums.rs Schema as u16). */
export const SCHEMA_IDS = {
  mbo: 0,
  'mbp-1': 1,
  'mbp-10': 2,
  tbbo: 3,
  trades: 4,
  'ohlcv-1s': 5,
  'ohlcv-1m': 6,
  'ohlcv-1h': 7,
  'ohlcv-1d': 8,
  definition: 9,
  statistics: 10,
  status: 11,
  imbalance: 12,
  'ohlcv-eod': 13,
  'cmbp-1': 14,
  'cbbo-1s': 15,
  'cbbo-1m': 16,
  tcbbo: 17,
  'bbo-1s': 18,
  'bbo-1m': 19,
} as const;
export type SchemaName = keyof typeof SCHEMA_IDS;
/** u16::MAX in the schema field: a file mixing schemas. */
export const NULL_SCHEMA = 0xffff;
/** Schemas whose records this module decodes; any other schema is an "unsupported schema" error. */
export const SUPPORTED_SCHEMAS: readonly SchemaName[] = ['mbo', 'mbp-10', 'mbp-1', 'tbbo', 'trades', 'definition'];

/** Symbology types (enums.rs SType as u8); u8::MAX in stype_in means none. */
export const STYPE_NAMES = [
  'instrument_id',
  'raw_symbol',
  'smart',
  'continuous',
  'parent',
  'nasdaq_symbol',
  'cms_symbol',
  'isin',
  'us_code',
  'bbg_comp_id',
  'bbg_comp_ticker',
  'figi',
  'figi_ticker',
] as const;
export const NULL_STYPE = 0xff;

/** Bits of the flags byte (flags.rs). */
export const FLAGS = {
  /** Last record of an event for its instrument: the book is consistent after it. */
  F_LAST: 1 << 7,
  F_TOB: 1 << 6,
  /** Record comes from a replayed snapshot, not the live feed. */
  F_SNAPSHOT: 1 << 5,
  /** Aggregated price level, not an individual order. */
  F_MBP: 1 << 4,
  /** ts_recv is inaccurate (clock issue or reordering). */
  F_BAD_TS_RECV: 1 << 3,
  F_MAYBE_BAD_BOOK: 1 << 2,
} as const;

/** Byte lengths of the records this module lays out (identical in DBN v1, v2 and v3). */
export const RECORD_LEN = {
  MBO: 56,
  TRADE: 48,
  MBP_1: 80,
  MBP_10: 368,
  /** One BidAskPair: bid_px, ask_px (i64), bid_sz, ask_sz, bid_ct, ask_ct (u32). */
  LEVEL: 32,
} as const;

/** Metadata: fixed part after the 8-byte prelude (same length in v1, v2, v3). */
export const METADATA_FIXED_LEN = 100;
export const METADATA_DATASET_CSTR_LEN = 16;
/** v1 stores symbols in 22-byte C strings; v2+ stores the length in the header (71 by default). */
export const V1_SYMBOL_CSTR_LEN = 22;
export const SYMBOL_CSTR_LEN = 71;
