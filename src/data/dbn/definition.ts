// Instrument definitions (rtype 0x13). Their layout differs between DBN versions; this module
// reads the fields the replay needs and leaves the rest (the reader skips by length anyway).
import type { RecordHeader } from './records.ts';

export interface InstrumentDefMsg {
  hd: RecordHeader;
  ts_recv: bigint;
}

export function decodeDefinition(hd: RecordHeader, v: DataView, p: number, _length: number, _version: number): InstrumentDefMsg {
  return { hd, ts_recv: v.getBigUint64(p + 16, true) };
}
