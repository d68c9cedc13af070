// Reads a market source (the generator, a DBN replay) to its end, event by event: the loop of
// every consumer that measures a stream outside a backtest (the facts command, calibration).

import { EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, EV_TS } from '../core/events.ts';
import { RecordRing } from '../core/ring.ts';
import type { MarketSource } from '../backtest/session.ts';

export type EventSink = (ts: number, kind: number, side: number, price: number, qty: number) => void;

/** Calls `sink` with every event of `source` until it is done. */
export function eachEvent(source: MarketSource, sink: EventSink): void {
  const ring = RecordRing.allocate(EV_STRIDE, 8192, false);
  while (!source.done) {
    ring.release();
    const n = source.generate(ring, 4096);
    const d = ring.data;
    for (let i = 0; i < n; i++) {
      const off = ring.peek();
      sink(d[off + EV_TS], d[off + EV_KIND], d[off + EV_SIDE], d[off + EV_PRICE], d[off + EV_QTY]);
      ring.advance();
    }
  }
}
