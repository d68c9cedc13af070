// Equity samples: one at the session start, one per simulated minute, one at the end.
// Sampling is rare (once a minute), so the arrays may grow without touching the hot path.

export class EquityCurve {
  times: Float64Array; // engine ns (session clock)
  values: Float64Array; // USD
  length = 0;

  constructor(initialCapacity = 512) {
    this.times = new Float64Array(initialCapacity);
    this.values = new Float64Array(initialCapacity);
  }

  push(t: number, equity: number): void {
    if (this.length === this.times.length) {
      const t2 = new Float64Array(this.length * 2);
      const v2 = new Float64Array(this.length * 2);
      t2.set(this.times);
      v2.set(this.values);
      this.times = t2;
      this.values = v2;
    }
    this.times[this.length] = t;
    this.values[this.length] = equity;
    this.length++;
  }

  valuesView(): Float64Array {
    return this.values.subarray(0, this.length);
  }

  timesView(): Float64Array {
    return this.times.subarray(0, this.length);
  }

  last(): number {
    return this.length ? this.values[this.length - 1] : NaN;
  }
}
