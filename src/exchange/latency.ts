// Latency model of the simulated link between the engine and the exchange.
//
// Three one-way legs, each = base + seeded jitter:
//   orderEntry()  engine -> exchange: when an order message reaches the matching engine;
//   marketData()  exchange -> engine: when a market-data event reaches the engine;
//   response()    exchange -> engine: when an execution report (ack, fill, cancel) reaches the engine.
// Jitter is an integer drawn uniformly from [-jitterNs, +jitterNs] by the seeded Rng, so the same
// seed gives the same latencies. A sample is an integer number of nanoseconds and is clamped at
// zero, so it is never negative in total even when jitterNs > base. With jitterNs = 0 every sample
// is exactly the base and no random number is drawn. No allocation per sample.

import type { Rng } from '../core/rng.ts';

export interface LatencyParams {
  /** Engine -> exchange order entry latency, ns. */
  orderLatencyNs: number;
  /** Exchange -> engine market-data latency, ns. */
  marketDataLatencyNs: number;
  /** Exchange -> engine execution-report latency, ns. */
  responseLatencyNs: number;
  /** Half-width of the uniform jitter added to every leg, ns. */
  jitterNs: number;
}

/** What the simulator needs from a latency model (hftbacktest style: one small interface). */
export interface Latency {
  orderEntry(): number;
  marketData(): number;
  response(): number;
}

function checkNs(name: string, v: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new Error(`latency ${name} must be a finite number >= 0 ns, got ${v}`);
  }
  return Math.round(v);
}

export class LatencyModel implements Latency {
  readonly orderLatencyNs: number;
  readonly marketDataLatencyNs: number;
  readonly responseLatencyNs: number;
  readonly jitterNs: number;
  private readonly span: number; // 2 * jitterNs + 1 possible jitter values
  private readonly rng: Rng;
  // Jitter is drawn in blocks: a draw returns a double from a call V8 may not inline, which
  // would allocate once per sample. The model owns its Rng, so the sequence is unchanged.
  private readonly block = new Int32Array(1024);
  private next = 1024;

  constructor(p: LatencyParams, rng: Rng) {
    this.orderLatencyNs = checkNs('orderLatencyNs', p.orderLatencyNs);
    this.marketDataLatencyNs = checkNs('marketDataLatencyNs', p.marketDataLatencyNs);
    this.responseLatencyNs = checkNs('responseLatencyNs', p.responseLatencyNs);
    this.jitterNs = checkNs('jitterNs', p.jitterNs);
    this.span = 2 * this.jitterNs + 1;
    this.rng = rng;
  }

  /** Time for an order message to reach the exchange, ns. */
  orderEntry(): number {
    return this.sample(this.orderLatencyNs);
  }

  /** Time for a market-data event to reach the engine, ns. */
  marketData(): number {
    return this.sample(this.marketDataLatencyNs);
  }

  /** Time for an execution report to reach the engine, ns. */
  response(): number {
    return this.sample(this.responseLatencyNs);
  }

  private sample(base: number): number {
    if (this.jitterNs === 0) return base;
    if (this.next === this.block.length) this.refill();
    const v = base + this.block[this.next++];
    return v < 0 ? 0 : v;
  }

  private refill(): void {
    const b = this.block;
    for (let i = 0; i < b.length; i++) b[i] = this.rng.int(this.span) - this.jitterNs;
    this.next = 0;
  }
}
