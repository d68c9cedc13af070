import { EV_STRIDE } from '../../src/core/events.ts';
import { RecordRing } from '../../src/core/ring.ts';
import type { MarketSource } from '../../src/market/source.ts';

/** Every event the source yields, as numbers (a ring of 1024 drained after each call, up to maxCalls calls). */
export function drain(src: MarketSource, maxCalls = Infinity): number[] {
  const ring = RecordRing.allocate(EV_STRIDE, 1024, false);
  const out: number[] = [];
  for (let calls = 0; !src.done && calls < maxCalls; calls++) {
    const n = src.generate(ring, 1024);
    for (let k = 0; k < n; k++) {
      out.push(...ring.data.subarray(ring.peek(), ring.peek() + EV_STRIDE));
      ring.advance();
    }
    ring.release();
  }
  return out;
}
