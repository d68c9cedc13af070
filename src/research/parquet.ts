// Parquet export of a column table with hyparquet-writer: pure JavaScript, no dependencies,
// no native or WASM build, maintained (2025-26 releases), runs on Node 20. The schema is written
// out so readers get typed columns: int64 as INT64, doubles as DOUBLE, nulls as Parquet nulls,
// `timestamp_ns` as INT64 TIMESTAMP(NANOS, UTC) (pandas: datetime64[ns, UTC], exact) and `date`
// as INT32 DATE (days since the epoch). The CSV of the same table keeps the integers and the
// YYYY-MM-DD text. `metadata` goes to the file's key-value metadata (strings).

import { parquetWriteBuffer } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';
import type { Column, ColumnKind } from './fill-table.ts';

const DAY_MS = 86_400_000;

function element(name: string, kind: ColumnKind): SchemaElement {
  const repetition_type = 'OPTIONAL';
  switch (kind) {
    case 'string':
      return { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type };
    case 'int64':
      return { name, type: 'INT64', repetition_type };
    case 'double':
      return { name, type: 'DOUBLE', repetition_type };
    case 'timestamp_ns':
      return { name, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' }, repetition_type };
    case 'date':
      return { name, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' }, repetition_type };
  }
}

/** A column's values as the physical type stores them (a date: whole days since 1970-01-01). */
function physical(c: Column): Column['values'] {
  if (c.kind !== 'date') return c.values;
  return c.values.map((v) => (v === null ? null : Date.parse(`${v as string}T00:00:00Z`) / DAY_MS));
}

export function toParquet(cols: Column[], metadata: Record<string, string> = {}): Uint8Array {
  const schema: SchemaElement[] = [{ name: 'root', num_children: cols.length }, ...cols.map((c) => element(c.name, c.kind))];
  const buf = parquetWriteBuffer({
    schema,
    columnData: cols.map((c) => ({ name: c.name, data: physical(c) })),
    // No list at all when empty: an empty one is written with an element type readers refuse.
    kvMetadata: Object.keys(metadata).length ? Object.entries(metadata).map(([key, value]) => ({ key, value })) : undefined,
  });
  return new Uint8Array(buf);
}
