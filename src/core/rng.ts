// Seeded pseudo-random numbers for everything stochastic in the simulation (market flow,
// latency jitter). sfc32: fast, 128-bit state, passes PractRand. The platform's unseeded
// generator is never used in the engine, so a run is reproducible from its seed.

/** 32-bit FNV-1a over a string, then mixed with a numeric seed: derives per-session seeds. */
export function hashSeed(text: string, seed: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= seed >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class Rng {
  // The four state words in an Int32Array: as number fields, values beyond V8's 31-bit small
  // integers were stored in heap-number boxes, and each draw cost several times its arithmetic.
  private readonly st = new Int32Array(4);
  private spare = 0;
  private hasSpare = false;

  constructor(seed: number) {
    const st = this.st;
    st[0] = 0x9e3779b9;
    st[1] = 0x243f6a88;
    st[2] = 0xb7e15162;
    st[3] = seed | 0;
    for (let i = 0; i < 16; i++) this.nextU32(); // decorrelate nearby seeds
  }

  nextU32(): number {
    const st = this.st;
    const a = st[0],
      b = st[1],
      c = st[2],
      d = st[3];
    const t = (((a + b) | 0) + d) | 0;
    st[3] = d + 1;
    st[0] = b ^ (b >>> 9);
    st[1] = c + (c << 3);
    st[2] = ((c << 21) | (c >>> 11)) + t;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform in (0, 1]: safe for logarithms. */
  nextOpen(): number {
    return (this.nextU32() + 1) / 4294967296;
  }

  /** Integer uniform in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /**
   * out[i] = int(n) + add for every i, the same draws as that many int(n) calls, with the state
   * in registers across the loop (the latency model's jitter blocks). The step is nextU32()'s,
   * written out here because a call per draw kept the state in memory; test/unit/core/rng.test.ts checks
   * that both give the same numbers.
   */
  fillInt(out: Int32Array, n: number, add: number): void {
    const st = this.st;
    let a = st[0],
      b = st[1],
      c = st[2],
      d = st[3];
    // (t / 2^32) * n and t * (n / 2^32) are the same product rounded once (a power of two scales
    // exactly), and for it (>= 0) `| 0` is Math.floor modulo 2^32, which the int32 store applies
    // anyway: the same values as int(n) + add, in fewer instructions.
    const scale = n / 4294967296;
    const len = out.length;
    for (let i = 0; i < len; i++) {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (((c << 21) | (c >>> 11)) + t) | 0;
      out[i] = (((t >>> 0) * scale) | 0) + add;
    }
    st[0] = a;
    st[1] = b;
    st[2] = c;
    st[3] = d;
  }

  /** Exponential with mean 1. */
  exp(): number {
    return -Math.log(this.nextOpen());
  }

  /** Standard normal (Box-Muller; the second value is kept for the next call). */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    const r = Math.sqrt(-2 * Math.log(this.nextOpen()));
    const th = 2 * Math.PI * this.next();
    this.spare = r * Math.sin(th);
    this.hasSpare = true;
    return r * Math.cos(th);
  }

  /** Geometric on {1, 2, ...} with the given mean (>= 1). */
  geometric(mean: number): number {
    if (mean <= 1) return 1;
    const p = 1 / mean;
    return 1 + Math.floor(Math.log(this.nextOpen()) / Math.log(1 - p));
  }
}
