// Latency port of the simulated link between the engine and the exchange (LatencyModel, named as
// hftbacktest names its port: one small interface, implementations interchangeable).
//
// Three one-way legs, each asked for at the moment the message leaves:
//   orderEntry  engine -> exchange: when an order message reaches the matching engine;
//   marketData  exchange -> engine: when a market-data event reaches the engine;
//   response    exchange -> engine: when an execution report (ack, fill, cancel) reaches the engine.
// The send time is passed as `at[i]` (ns) rather than as a number (hot-path rule 3): every driver
// already holds its clock in a typed array (a record field, or the engine's clock). A model that replays a recorded latency
// series looks its value up by that time; the seeded model below ignores it.

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

/** What the simulator needs from a latency model: each leg's delay (ns, >= 0) for a message sent at at[i]. */
export interface LatencyModel {
  orderEntry(at: Float64Array, i: number): number;
  marketData(at: Float64Array, i: number): number;
  response(at: Float64Array, i: number): number;
}

/** Jitter draws per block (a constant: a typed array's length is a load and a check at each sample). */
const JITTER_BLOCK = 1024;

function checkNs(name: string, v: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new Error(`latency ${name} must be a finite number >= 0 ns, got ${v}`);
  }
  return Math.round(v);
}

/**
 * Constant base + seeded jitter per leg. Jitter is an integer drawn uniformly from
 * [-jitterNs, +jitterNs] by the seeded Rng, so the same seed gives the same latencies. A sample is
 * an integer number of nanoseconds clamped at zero, so it is never negative in total even when
 * jitterNs > base. With jitterNs = 0 every sample is exactly the base and no random number is
 * drawn. No allocation per sample.
 */
export class SeededLatency implements LatencyModel {
  // Set in the constructor and `declare`d: a plain declaration is emitted as a class field that
  // first holds undefined, and V8 then checks and untags the field on every read (every sample).
  declare readonly orderLatencyNs: number;
  declare readonly marketDataLatencyNs: number;
  declare readonly responseLatencyNs: number;
  declare readonly jitterNs: number;
  declare private readonly span: number; // 2 * jitterNs + 1 possible jitter values
  declare private readonly rng: Rng;
  // Jitter is drawn in blocks (hot-path rules 2 and 3). The model owns its Rng, so the sequence
  // is the same as drawing one at a time.
  private readonly block = new Int32Array(JITTER_BLOCK);
  private next = JITTER_BLOCK;

  constructor(p: LatencyParams, rng: Rng) {
    this.orderLatencyNs = checkNs('orderLatencyNs', p.orderLatencyNs);
    this.marketDataLatencyNs = checkNs('marketDataLatencyNs', p.marketDataLatencyNs);
    this.responseLatencyNs = checkNs('responseLatencyNs', p.responseLatencyNs);
    this.jitterNs = checkNs('jitterNs', p.jitterNs);
    // The draws are kept as int32 nanoseconds (config: latency.jitter_ns <= 1 s).
    if (this.jitterNs > 2147483647) throw new Error(`latency jitterNs must be at most 2147483647 ns, got ${this.jitterNs}`);
    this.span = 2 * this.jitterNs + 1;
    this.rng = rng;
  }

  orderEntry(_at: Float64Array, _i: number): number {
    return this.sample(this.orderLatencyNs);
  }

  marketData(_at: Float64Array, _i: number): number {
    return this.sample(this.marketDataLatencyNs);
  }

  response(_at: Float64Array, _i: number): number {
    return this.sample(this.responseLatencyNs);
  }

  private sample(base: number): number {
    if (this.jitterNs === 0) return base;
    if (this.next === JITTER_BLOCK) this.refill();
    const v = base + this.block[this.next++];
    return v < 0 ? 0 : v;
  }

  private refill(): void {
    this.rng.fillInt(this.block, this.span, -this.jitterNs);
    this.next = 0;
  }
}
