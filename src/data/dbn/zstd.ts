// zstd adapters. Node 20's zlib has no zstd, so:
// - decompression streams through fzstd (pure JS, no WASM start-up, push-based: feed compressed
//   chunks, receive decompressed chunks; handles concatenated and skippable frames);
// - compression uses @hpcc-js/wasm-zstd (the reference C zstd compiled to WASM, maintained,
//   no native build), whose streaming compressor writes one frame across many chunks.
import { Zstd } from '@hpcc-js/wasm-zstd';
import { Decompress } from 'fzstd';

/** True when `bytes` starts a zstd frame or a skippable frame (RFC 8878 magic numbers). */
export function isZstd(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  if (bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd) return true;
  return (bytes[0] & 0xf0) === 0x50 && bytes[1] === 0x2a && bytes[2] === 0x4d && bytes[3] === 0x18;
}

/** Incremental decompressor: push compressed chunks, decompressed bytes go to `onData`. */
export class ZstdStreamDecoder {
  private readonly inner: Decompress;

  constructor(onData: (chunk: Uint8Array) => void) {
    this.inner = new Decompress((chunk) => {
      if (chunk.length) onData(chunk);
    });
  }

  /** Throws an Error (from fzstd, with a numeric `code`) on corrupt or, when `final`, truncated input. */
  push(chunk: Uint8Array, final: boolean): void {
    this.inner.push(chunk, final);
  }
}

/** fzstd's error code for input that ends inside a frame. */
export const ZSTD_UNEXPECTED_EOF = 5;

/**
 * Streaming compressor producing one zstd frame. The WASM module holds one stream state per
 * thread, so one encoder at a time: a second create() before the first end() throws.
 */
export class ZstdStreamEncoder {
  private static active = false;

  private constructor(private readonly zstd: Zstd) {}

  static async create(level = 3): Promise<ZstdStreamEncoder> {
    const zstd = await Zstd.load();
    if (ZstdStreamEncoder.active) throw new Error('ZstdStreamEncoder: another stream is open in this thread; end() it first');
    ZstdStreamEncoder.active = true;
    zstd.reset();
    zstd.setCompressionLevel(level);
    return new ZstdStreamEncoder(zstd);
  }

  /** Compressed bytes for `data` (may be empty while zstd buffers a block). */
  write(data: Uint8Array): Uint8Array {
    return this.zstd.compressChunk(data);
  }

  /** Flushes and closes the frame. */
  end(): Uint8Array {
    ZstdStreamEncoder.active = false;
    return this.zstd.compressEnd();
  }
}
