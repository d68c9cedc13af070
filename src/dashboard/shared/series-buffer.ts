// A bounded time series for the live charts: one point per time bin (a later value in the same
// bin replaces the earlier one), at most `cap` points (the oldest are dropped in batches of a
// quarter, so trimming is rare), reset when time goes backwards (the engine restarted or a new
// session began). `epoch` changes on every reset or trim, telling a chart to reload the data;
// otherwise the chart only appends what is new.

export class BinnedSeries {
  readonly t: number[] = [];
  readonly v: number[] = [];
  /** Bumped on reset and trim (chart must reload everything). */
  epoch = 0;
  /** Bumped on every change. */
  revision = 0;

  constructor(readonly cap: number) {}

  get length(): number {
    return this.t.length;
  }

  get lastTime(): number | null {
    return this.t.length ? this.t[this.t.length - 1] : null;
  }

  get lastValue(): number | null {
    return this.v.length ? this.v[this.v.length - 1] : null;
  }

  /** Adds a value at bin `t` (integer seconds); same bin replaces, an earlier bin resets the series. */
  push(t: number, v: number): void {
    if (!Number.isFinite(t) || !Number.isFinite(v)) return;
    const n = this.t.length;
    if (n > 0) {
      const last = this.t[n - 1];
      if (t === last) {
        if (this.v[n - 1] !== v) {
          this.v[n - 1] = v;
          this.revision++;
        }
        return;
      }
      if (t < last) this.clear();
    }
    this.t.push(t);
    this.v.push(v);
    if (this.t.length > this.cap + (this.cap >> 2)) {
      const drop = this.t.length - this.cap;
      this.t.splice(0, drop);
      this.v.splice(0, drop);
      this.epoch++;
    }
    this.revision++;
  }

  clear(): void {
    this.t.length = 0;
    this.v.length = 0;
    this.epoch++;
    this.revision++;
  }
}
