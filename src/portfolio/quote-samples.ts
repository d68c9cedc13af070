// Our quotes sampled at a fixed interval of exchange time (the report's price chart): the
// working bid and ask (ticks, NaN when a side has none), the book mid and our position. A recording aid for
// backtests only, off in the live engine (it would grow for as long as the engine runs).
// Sampling is rare next to market events, so the arrays may grow without touching the hot path.

export const QUOTE_SAMPLE_NS = 1e9;
const FIELDS = 5; // t, bid, ask, mid, position

export interface QuoteSeries {
  times: Float64Array; // engine ns (session clock)
  bid: Float64Array; // ticks
  ask: Float64Array;
  mid: Float64Array;
}

export class QuoteSamples {
  length = 0;
  private data = new Float64Array(FIELDS * 1024);

  push(t: number, bid: number, ask: number, mid: number, position: number): void {
    if ((this.length + 1) * FIELDS > this.data.length) {
      const d = new Float64Array(this.data.length * 2);
      d.set(this.data);
      this.data = d;
    }
    const o = this.length++ * FIELDS;
    this.data[o] = t;
    this.data[o + 1] = bid;
    this.data[o + 2] = ask;
    this.data[o + 3] = mid;
    this.data[o + 4] = position;
  }

  private column(k: number): Float64Array {
    return Float64Array.from({ length: this.length }, (_, i) => this.data[i * FIELDS + k]);
  }

  /** Compact columns (for transfer out of a worker). */
  series(): QuoteSeries {
    return { times: this.column(0), bid: this.column(1), ask: this.column(2), mid: this.column(3) };
  }

  /** Our position (contracts) at each sample (--quotes). */
  positions(): Float64Array {
    return this.column(4);
  }
}
