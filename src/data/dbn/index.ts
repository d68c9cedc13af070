// Databento Binary Encoding (DBN) reader and writer: the module's entry point.
//
// Reading (versions 1 to 3, plain or zstd detected by magic, streaming in constant memory):
//
//   const reader = DbnReader.open('glbx-mdp3-20240102.mbo.dbn.zst');
//   reader.metadata              // DbnMetadata: dataset, schema, start/end (bigint ns), symbols, mappings
//   // Fast face (engine): one reused DbnCursor, fields as numbers, nothing allocated per record.
//   for (let c = reader.next(); c !== null; c = reader.next()) {
//     if (c.rtype === RTYPE.MBO) book.apply(c.orderId, c.price, c.size, c.action, c.side, c.tsRecvRel);
//   }
//   // Exact face (inspect, tests): plain objects named as Databento names them, 64-bit as bigint.
//   for (const r of reader.records()) if (isMbo(r)) console.log(r.order_id, r.price);
//   reader.close();
//
// Cursor: price/bidPx(i)/askPx(i) in 1e-9 units (NaN = UNDEF_PRICE), action/side as char codes,
// tsEventRel/tsRecvRel in ns relative to cursor.setTimeBase(ns) (default metadata.start); the
// cursor is valid until the next next(). Records are checked to be in ts_recv order (DBN sorts
// MBO/MBP/trades by ts_recv, not ts_event); any bad input throws a DbnError naming the file and
// the byte offset (in the decoded stream) or the record index.
//
// Writing: DbnWriter.toFile(path, metadata) / toBytes(metadata), then write(record) (exact) or
// writeMbo/writeMbp (numbers, reused structs), then close(); zstd by default.
// Time: sessionNsToUnixNs(date, ns) turns the engine's clock (ns after New York midnight of the
// session date) into DBN's (ns since the epoch, bigint); unixNsToSessionNs inverts it.
export * from './constants.ts';
export { DbnCursor } from './cursor.ts';
export type { InstrumentDefMsg } from './definition.ts';
export { DbnError, type DbnErrorKind } from './errors.ts';
export { type DbnMetadata, decodeMetadata, decodePrelude, encodeMetadata, type MappingInterval, type SymbolMapping } from './metadata.ts';
export { DbnReader, type DbnReadOptions } from './reader.ts';
export { type BidAskPair, type DbnRecord, decodeRecord, isDefinition, isMbo, isMbp, type MboMsg, type MbpMsg } from './records.ts';
export type { RecordHeader } from './record-header.ts';
export { dbnJson } from './json.ts';
export { DbnWriter, type DbnWriteOptions, type MboFields, type MbpFields, newMboFields, newMbpFields } from './writer.ts';
export { isZstd } from './zstd.ts';
