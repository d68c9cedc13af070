// The header every DBN record starts with (Databento's RecordHeader), decoded: the record kinds
// (records.ts, definition.ts) each hold one.

export interface RecordHeader {
  /** Record length in 4-byte units, as stored. */
  length: number;
  rtype: number;
  publisher_id: number;
  instrument_id: number;
  ts_event: bigint;
}
