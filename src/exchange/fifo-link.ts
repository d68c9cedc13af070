// A FIFO link (one TCP session, one multicast channel): a message never arrives before the one
// sent before it on the same link, whatever its own latency sample. The single definition of that
// rule for every link of both drivers: market data, order entry and execution reports.

export class FifoLink {
  // The last arrival lives in a typed array (hot-path rule 4).
  private readonly last = new Float64Array([-Infinity]);

  /** Clamps the arrival time t[i] (send time + latency) to the link's order, and records it. */
  arrive(t: Float64Array, i: number): void {
    if (t[i] < this.last[0]) t[i] = this.last[0];
    else this.last[0] = t[i];
  }

  /** Forgets the previous arrival (a new session on a fresh connection). */
  reset(): void {
    this.last[0] = -Infinity;
  }
}
