// Parquet export of a column table with hyparquet-writer: pure JavaScript, no dependencies,
// no native or WASM build, maintained (2025-26 releases), runs on Node 20. int64 columns are
// written as INT64 (exact nanosecond timestamps), doubles as DOUBLE; nulls are Parquet nulls.

import { parquetWriteBuffer } from 'hyparquet-writer';
import type { Column } from './fill-table.ts';

const PARQUET_TYPE = { string: 'STRING', int64: 'INT64', double: 'DOUBLE' } as const;

export function toParquet(cols: Column[]): Uint8Array {
  const buf = parquetWriteBuffer({
    columnData: cols.map((c) => ({ name: c.name, data: c.values, type: PARQUET_TYPE[c.kind] })),
  });
  return new Uint8Array(buf);
}
