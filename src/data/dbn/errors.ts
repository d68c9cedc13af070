// One error type for every bad input, so callers can tell a bad file from a bug. The message
// always names the file and where: the byte offset in the DBN stream (after decompression for
// .zst files) and, for records, the 0-based record index.

export type DbnErrorKind = 'io' | 'magic' | 'version' | 'schema' | 'metadata' | 'truncated' | 'corrupt' | 'order' | 'zstd' | 'symbol';

export interface DbnErrorWhere {
  file: string;
  /** Byte offset in the decoded DBN stream (metadata prelude = 0). */
  offset?: number;
  /** 0-based index of the record, counting every record (skipped ones too). */
  record?: number;
}

export class DbnError extends Error {
  override readonly name = 'DbnError';
  readonly kind: DbnErrorKind;
  readonly file: string;
  readonly offset: number | undefined;
  readonly record: number | undefined;
  /** What went wrong, without the file and the place (the message has them). */
  readonly detail: string;

  constructor(kind: DbnErrorKind, where: DbnErrorWhere, detail: string) {
    const at = [where.record === undefined ? '' : `record ${where.record}`, where.offset === undefined ? '' : `byte offset ${where.offset}`]
      .filter(Boolean)
      .join(', ');
    super(`${where.file}${at ? ` (${at})` : ''}: ${detail}`);
    this.kind = kind;
    this.file = where.file;
    this.offset = where.offset;
    this.record = where.record;
    this.detail = detail;
  }
}
