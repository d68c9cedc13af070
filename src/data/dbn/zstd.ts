// zstd adapters. Node 20's zlib has no zstd, so:
// - decompression runs the reference C zstd compiled to WASM, as shipped by zstddec (maintained,
//   MIT, no native build, no network: the WASM is inlined). It decodes 5.5-8x faster than fzstd
//   (pure JS) on our files (bench/dbn-decode.ts; docs/performance-archive.md, "Round two: DBN replay").
//   We call its ZSTD_decompressStream export ourselves rather than its decodeStreaming()
//   generator, which ignores zstd's error codes (a corrupt frame ends as "incomplete" at best)
//   and copies every block into a fresh array: here each block is decoded into one WASM buffer
//   that the caller copies from, so decoding allocates nothing per block.
// - compression uses @hpcc-js/wasm-zstd (the reference C zstd compiled to WASM, maintained,
//   no native build), whose streaming compressor writes one frame across many chunks.
import { Zstd } from '@hpcc-js/wasm-zstd';
import { ZSTDDecoder } from 'zstddec/stream';

/** The exports of zstddec's WASM module this adapter drives (wasm32: pointers and size_t are i32). */
interface ZstdWasm {
  memory: { readonly buffer: ArrayBuffer };
  malloc(size: number): number;
  free(ptr: number): void;
  ZSTD_createDCtx(): number;
  ZSTD_freeDCtx(dctx: number): number;
  ZSTD_DStreamOutSize(): number;
  ZSTD_decompressStream(dctx: number, output: number, input: number): number;
}

/** zstddec loads its module asynchronously; readers open synchronously, so it loads with this module. */
const wasm: ZstdWasm = await (async () => {
  let exports: ZstdWasm | null = null;
  // init() hands the instantiated module to _init (part of zstddec's typed API): keep its exports.
  class Capture extends ZSTDDecoder {
    override _init(result: Parameters<ZSTDDecoder['_init']>[0]): void {
      exports = (result as { instance: { exports: unknown } }).instance.exports as ZstdWasm;
      super._init(result);
    }
  }
  await new Capture().init();
  const e = exports as ZstdWasm | null;
  if (e === null || typeof e.ZSTD_decompressStream !== 'function' || !(e.memory?.buffer instanceof ArrayBuffer)) {
    throw new Error('zstddec: its WASM module does not export ZSTD_decompressStream/memory (changed zstddec version?)');
  }
  return e;
})();

/** True when `bytes` starts a zstd frame or a skippable frame (RFC 8878 magic numbers). */
export function isZstd(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  if (bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd) return true;
  return (bytes[0] & 0xf0) === 0x50 && bytes[1] === 0x2a && bytes[2] === 0x4d && bytes[3] === 0x18;
}

/** Names of the zstd error codes (zstd_errors.h) a damaged file can produce. */
const ZSTD_ERRORS: Record<number, string> = {
  10: 'unknown frame descriptor (prefix_unknown)',
  12: 'unsupported version',
  14: 'unsupported frame parameter',
  16: 'frame requires too much memory for decoding',
  20: 'data corruption detected',
  22: 'checksum mismatch',
  32: 'dictionary required',
  64: 'allocation error',
};

/** A zstd failure: `truncated` when the input ended inside a frame, else corrupt data (zstd's `code`). */
export class ZstdDecodeError extends Error {
  constructor(
    readonly truncated: boolean,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

// ZSTD_inBuffer { src, size, pos } and ZSTD_outBuffer { dst, size, pos }: three i32 each.
const BUF_STRUCT = 12;

// Decoders not closed (a reader dropped on an error path) free their WASM memory when collected.
const leaked = new FinalizationRegistry<number[]>((ptrs) => freeAll(ptrs));
function freeAll([dctx, ...ptrs]: number[]): void {
  wasm.ZSTD_freeDCtx(dctx);
  for (const p of ptrs) wasm.free(p);
}

/**
 * Incremental decompressor: push compressed chunks; each decoded block goes to `onData` as a
 * view of WASM memory, valid only during the call (copy what you keep). Concatenated and
 * skippable frames are handled by zstd. close() frees the WASM memory.
 */
export class ZstdStreamDecoder {
  private readonly onData: (block: Uint8Array) => void;
  private readonly dctx: number;
  private readonly io: number; // ZSTD_inBuffer, then ZSTD_outBuffer
  private readonly out: number;
  private readonly outSize: number;
  private inPtr = 0;
  private inSize = 0;
  /** zstd's last return: 0 when a frame has just been fully decoded and flushed. */
  private last = 0;
  private closed = false;

  constructor(onData: (block: Uint8Array) => void) {
    this.onData = onData;
    this.dctx = wasm.ZSTD_createDCtx();
    this.outSize = wasm.ZSTD_DStreamOutSize();
    this.out = wasm.malloc(this.outSize);
    this.io = wasm.malloc(2 * BUF_STRUCT);
    if (this.dctx === 0 || this.out === 0 || this.io === 0) throw new Error('zstd: cannot allocate a decoder in WASM memory');
    leaked.register(this, [this.dctx, this.out, this.io], this);
  }

  /** Throws a ZstdDecodeError on corrupt input or, when `final`, input that ends inside a frame. */
  push(chunk: Uint8Array, final: boolean): void {
    if (this.closed) throw new Error('zstd: push() after close()');
    if (chunk.length > 0) this.decode(chunk);
    if (final && this.last !== 0) throw new ZstdDecodeError(true, 0, 'input ends inside a zstd frame');
  }

  /** Frees the WASM memory (idempotent). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    leaked.unregister(this);
    freeAll(this.inPtr === 0 ? [this.dctx, this.out, this.io] : [this.dctx, this.out, this.io, this.inPtr]);
  }

  private decode(chunk: Uint8Array): void {
    if (chunk.length > this.inSize) {
      if (this.inPtr !== 0) wasm.free(this.inPtr);
      this.inPtr = wasm.malloc(chunk.length);
      if (this.inPtr === 0) throw new Error('zstd: cannot allocate the input buffer in WASM memory');
      this.inSize = chunk.length;
    }
    const inBuf = this.io;
    const outBuf = this.io + BUF_STRUCT;
    let mem = new Int32Array(wasm.memory.buffer);
    new Uint8Array(wasm.memory.buffer).set(chunk, this.inPtr);
    mem[inBuf >> 2] = this.inPtr;
    mem[(inBuf >> 2) + 1] = chunk.length;
    mem[(inBuf >> 2) + 2] = 0;
    for (;;) {
      mem[outBuf >> 2] = this.out;
      mem[(outBuf >> 2) + 1] = this.outSize;
      mem[(outBuf >> 2) + 2] = 0;
      const consumed = mem[(inBuf >> 2) + 2];
      const ret = wasm.ZSTD_decompressStream(this.dctx, outBuf, inBuf);
      // decoding may grow the memory, which detaches the old views
      if (mem.buffer !== wasm.memory.buffer) mem = new Int32Array(wasm.memory.buffer);
      if (ret < 0 && ret >= -120) {
        const code = -ret;
        throw new ZstdDecodeError(false, code, ZSTD_ERRORS[code] ?? `zstd error ${code}`);
      }
      this.last = ret;
      const produced = mem[(outBuf >> 2) + 2];
      if (produced > 0) this.onData(new Uint8Array(mem.buffer, this.out, produced));
      const pos = mem[(inBuf >> 2) + 2];
      // more input to decode, or a full output buffer (zstd may hold more of the block)
      if (pos >= chunk.length && produced < this.outSize) return;
      if (pos === consumed && produced === 0) throw new ZstdDecodeError(false, 0, 'zstd made no progress');
    }
  }
}

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
