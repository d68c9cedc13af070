// A MarketSource over a recorded stream of market events (runSession's hooks.source): replays
// the same events as often as wanted, so a benchmark measures the engine pipeline without the
// cost of generating the market, and every run sees exactly the same input.
//
// The recording is a Float64Array of EV_STRIDE records (EV_TS, EV_KIND, EV_SIDE, EV_PRICE,
// EV_QTY, EV_RECV), e.g. filled by recordMarket() from a MarketGenerator. generate() copies up
// to maxEvents records into the ring (RecordRing.append: one TypedArray.set per contiguous run)
// and publishes them, as MarketGenerator.generate does.

import { EV_STRIDE } from '../core/events.ts';
import type { RecordRing } from '../core/ring.ts';
import type { MarketSource } from './source.ts';

export class ReplaySource implements MarketSource {
  readonly events: Float64Array;
  readonly count: number;
  private pos = 0;

  /** `events` holds `count` records of EV_STRIDE doubles (default: all of it). */
  constructor(events: Float64Array, count = Math.floor(events.length / EV_STRIDE)) {
    if (!Number.isInteger(count) || count < 0 || count * EV_STRIDE > events.length) {
      throw new Error(`replay: ${count} records do not fit a buffer of ${events.length} doubles (stride ${EV_STRIDE})`);
    }
    this.events = events;
    this.count = count;
  }

  get done(): boolean {
    return this.pos >= this.count;
  }

  /** Records replayed so far. */
  get position(): number {
    return this.pos;
  }

  /** Starts the replay over (a new session over the same recording). */
  rewind(): void {
    this.pos = 0;
  }

  /** Copies up to maxEvents records into `ring` (the caller guarantees the room) and publishes them. */
  generate(ring: RecordRing, maxEvents: number): number {
    if (ring.stride !== EV_STRIDE) throw new Error(`market ring stride ${ring.stride} != EV_STRIDE ${EV_STRIDE}`);
    let n = this.count - this.pos;
    if (n > maxEvents) n = maxEvents;
    if (n <= 0) return 0;
    ring.append(this.events, this.pos * EV_STRIDE, n);
    this.pos += n;
    ring.publish();
    return n;
  }
}

/**
 * Records the market stream of `source` (e.g. a MarketGenerator) into one Float64Array of
 * EV_STRIDE records: at most `maxEvents` events, fewer if the source ends first.
 */
export function recordMarket(source: MarketSource, ring: RecordRing, maxEvents: number): { events: Float64Array; count: number } {
  let out = new Float64Array(Math.min(maxEvents, 1 << 20) * EV_STRIDE);
  let count = 0;
  while (count < maxEvents && !source.done) {
    const room = ring.free();
    const n = source.generate(ring, Math.min(room, maxEvents - count));
    for (let k = 0; k < n; k++) {
      if ((count + 1) * EV_STRIDE > out.length) {
        const bigger = new Float64Array(Math.min(maxEvents * EV_STRIDE, out.length * 2));
        bigger.set(out);
        out = bigger;
      }
      const off = ring.peek();
      out.set(ring.data.subarray(off, off + EV_STRIDE), count * EV_STRIDE);
      ring.advance();
      count++;
    }
    ring.release();
  }
  return { events: count * EV_STRIDE === out.length ? out : out.slice(0, count * EV_STRIDE), count };
}
