// Reads a market source (the generator, a DBN replay) to its end, event by event: the loop of
// every consumer that measures a stream outside a backtest (the facts command, calibration).

import { EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, EV_TS } from '../core/events.ts';
import { RecordRing } from '../core/ring.ts';
import type { MarketSource } from './source.ts';
import { MboFromL2 } from './dbn-export/mbo-from-l2.ts';
import { MarketGenerator } from './generator.ts';

/** One event; `tag` is the generator's modify tag (modify-tags.ts), 0 for other sources. */
export type EventSink = (ts: number, kind: number, side: number, price: number, qty: number, tag: number) => void;

const BATCH = 4096;

/**
 * Calls `sink` with every event of `source` until it is done. A MarketGenerator also says which
 * events are modifies (its tags), for consumers that rebuild its orders (MboFromL2).
 */
export function eachEvent(source: MarketSource | MarketGenerator, sink: EventSink): void {
  const ring = RecordRing.allocate(EV_STRIDE, 2 * BATCH, false);
  const tags = new Uint8Array(BATCH);
  const tagged = source instanceof MarketGenerator;
  while (!source.done) {
    ring.release();
    const n = source instanceof MarketGenerator ? source.generate(ring, BATCH, tags) : source.generate(ring, BATCH);
    const d = ring.data;
    for (let i = 0; i < n; i++) {
      const off = ring.peek();
      sink(d[off + EV_TS], d[off + EV_KIND], d[off + EV_SIDE], d[off + EV_PRICE], d[off + EV_QTY], tagged ? tags[i] : 0);
      ring.advance();
    }
  }
}

/**
 * Every event of a generator, and its orders as the MBO records its DBN export writes (MboFromL2):
 * `onRecord` gets each record's time, action (char code) and size, after `onEvent` got its event.
 */
export function eachEventAndRecord(gen: MarketGenerator, onEvent: EventSink, onRecord: (ts: number, action: number, size: number) => void): void {
  let ts = 0;
  const mbo = new MboFromL2((action, _side, _id, _price, size) => onRecord(ts, action, size));
  eachEvent(gen, (t, kind, side, price, qty, tag) => {
    ts = t;
    onEvent(t, kind, side, price, qty, tag);
    mbo.apply(kind, side, price, qty, tag);
  });
}
