// "Latest value" slot shared between threads (feature vector, prediction, state snapshot):
// a seqlock. The single writer bumps the version to odd, writes with plain stores, bumps it to
// even. A reader copies the payload and retries while the version was odd or changed under it,
// so it never sees a torn record and never blocks the writer.

export interface SeqlockMemory {
  ctl: SharedArrayBuffer | ArrayBuffer; // Int32 [version]
  data: SharedArrayBuffer | ArrayBuffer; // Float64 payload
}

export class Seqlock {
  readonly data: Float64Array;
  readonly ctl: Int32Array;

  constructor(mem: SeqlockMemory) {
    this.data = new Float64Array(mem.data);
    this.ctl = new Int32Array(mem.ctl);
  }

  static memory(fields: number, shared = true): SeqlockMemory {
    const Buf = shared ? SharedArrayBuffer : ArrayBuffer;
    return { ctl: new Buf(8), data: new Buf(fields * 8) };
  }

  get version(): number {
    return Atomics.load(this.ctl, 0);
  }

  beginWrite(): void {
    Atomics.add(this.ctl, 0, 1);
  }

  /** Publishes the write and wakes readers blocked in waitForChange(). */
  endWrite(): void {
    this.endWriteQuiet();
    this.wakeReaders();
  }

  /** Publishes the write without waking blocked readers: the writer calls wakeReaders() later. */
  endWriteQuiet(): void {
    Atomics.add(this.ctl, 0, 1);
  }

  /** Wakes readers blocked in waitForChange(). */
  wakeReaders(): void {
    Atomics.notify(this.ctl, 0);
  }

  /** Copies a consistent payload into `out`; returns the version read (even). */
  read(out: Float64Array): number {
    for (;;) {
      const v1 = Atomics.load(this.ctl, 0);
      if (v1 & 1) continue;
      out.set(this.data.subarray(0, out.length));
      if (Atomics.load(this.ctl, 0) === v1) return v1;
    }
  }

  /** Blocks until the version differs from `seen` or the timeout passes (worker threads only). */
  waitForChange(seen: number, timeoutMs: number): void {
    Atomics.wait(this.ctl, 0, seen, timeoutMs);
  }
}
