// `engine --inspect FILE [--limit N]`: the metadata as one JSON line, then one JSON line per
// record, named as in Databento's record layouts (hd.rtype, levels[i].bid_px, ...). 64-bit
// integers (timestamps, order ids, prices in 1e-9 units) are printed as decimal strings, since a
// JS number cannot hold them; action and side as characters. As Databento's own JSON: the
// metadata's `limit` is null when none was set (0 in the file), and a trade record (MBP-0) has
// no `levels` key. --pretty: prices as decimal numbers and timestamps as ISO 8601 UTC with
// nanoseconds (src/data/dbn/pretty.ts). Exit 1 with the DbnError (file, byte offset, record
// index) on bad input: the lines printed before it are then not the whole file.
import { writeSync } from 'node:fs';
import { DbnError, DbnReader, dbnJson } from '../data/dbn/index.ts';
import type { DbnRecord, MbpMsg } from '../data/dbn/records.ts';
import { prettyDbn } from '../data/dbn/pretty.ts';

export function inspectCommand(file: string, limit: number | undefined, pretty = false): number {
  const json = pretty ? (v: unknown) => dbnJson(prettyDbn(v)) : dbnJson;
  let reader: DbnReader;
  try {
    reader = DbnReader.open(file);
  } catch (e) {
    return fail(e);
  }
  const meta = reader.metadata;
  const out: string[] = [json({ ...meta, limit: meta.limit === 0n ? null : meta.limit })];
  const flush = (): void => {
    writeSync(1, `${out.join('\n')}\n`);
    out.length = 0;
  };
  let shown = 0;
  try {
    for (const record of reader.records()) {
      if (limit !== undefined && shown >= limit) break;
      out.push(json(asDatabento(record)));
      shown++;
      if (out.length >= 1000) flush();
    }
    flush();
    return 0;
  } catch (e) {
    flush();
    return fail(e);
  } finally {
    reader.close();
  }
}

/** A trade record (MBP-0) without its empty `levels` (Databento's JSON has none there). */
function asDatabento(record: DbnRecord): DbnRecord | Omit<MbpMsg, 'levels'> {
  if (!('levels' in record) || record.levels.length > 0) return record;
  const { levels: _none, ...trade } = record;
  return trade;
}

function fail(e: unknown): number {
  if (!(e instanceof DbnError)) throw e;
  process.stderr.write(`error: ${e.message}\n`);
  return 1;
}
