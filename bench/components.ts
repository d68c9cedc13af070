// The pieces of the per-event path, ns per call:
// - feature extraction: FeatureExtractor.onEvent after DenseBook.apply, over the recorded stream.
//   Features need the book state of each event, so the loop is book + features; the book-only
//   loop over the same events is timed alongside and subtracted (both figures are reported);
// - model inference: bench/inference.ts (benchInference: best of its rounds, its own definition);
// - strategy decision: MarketMaker.decide over a pool of realistic inputs (touch and volatility
//   taken from the stream, positions and signals drawn from the seeded Rng).
// Every loop feeds a checksum that is reported, so no work can be optimised away.

import { pathToFileURL } from 'node:url';
import { DenseBook } from '../src/book/dense-book.ts';
import { FeatureExtractor } from '../src/book/features.ts';
import { EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE } from '../src/core/events.ts';
import { Rng } from '../src/core/rng.ts';
import { IN_SIGMA, IN_SIGNAL, MarketMaker, type QuoteParams } from '../src/strategy/market-maker.ts';
import type { InferenceBench } from './inference.ts';
import type { Recording } from './stream.ts';
import { loadavg, median, nowNs } from './util.ts';

const STRIDE = EV_STRIDE;
const K_KIND = EV_KIND;
const K_SIDE = EV_SIDE;
const K_PRICE = EV_PRICE;
const K_QTY = EV_QTY;

export interface ComponentsBench {
  features: { nsPerCall: number; bookPlusFeaturesNs: number; bookOnlyNs: number; events: number; rounds: number; checksum: number };
  inference: {
    nsPerCall: number;
    kernel: string;
    scalar: InferenceBench['scalar'];
    multiplyAdds: number;
    calls: number;
    modelVersion: string;
    checksum: number;
    method: string;
  };
  strategy: { nsPerCall: number; calls: number; rounds: number; checksum: number };
  loadavg: number[];
}

function bookOnly(e: Float64Array, n: number): number {
  const book = new DenseBook(4096);
  for (let i = 0, o = 0; i < n; i++, o += STRIDE) book.apply(e[o + K_KIND], e[o + K_SIDE], e[o + K_PRICE], e[o + K_QTY]);
  return book.bestBid + book.bestAsk;
}

function bookAndFeatures(e: Float64Array, n: number, sink: Float64Array): void {
  const book = new DenseBook(4096);
  const fx = new FeatureExtractor();
  for (let i = 0, o = 0; i < n; i++, o += STRIDE) {
    book.apply(e[o + K_KIND], e[o + K_SIDE], e[o + K_PRICE], e[o + K_QTY]);
    fx.onEvent(book.bestBid, book.bestAsk, book, e, o);
  }
  const v = fx.values;
  sink[0] += v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7] + v[8];
}

/** Inputs of decide(): bestBid, bestAsk, sigma, position, signal, reduceOnly (0/1), per row. */
function strategyInputs(rec: Recording, rows: number): Float64Array {
  const book = new DenseBook(4096);
  const fx = new FeatureExtractor();
  const rng = new Rng(11);
  const out = new Float64Array(rows * 6);
  const e = rec.events;
  const step = Math.max(1, Math.floor(rec.count / rows));
  let r = 0;
  for (let i = 0, o = 0; i < rec.count && r < rows; i++, o += STRIDE) {
    book.apply(e[o + K_KIND], e[o + K_SIDE], e[o + K_PRICE], e[o + K_QTY]);
    fx.onEvent(book.bestBid, book.bestAsk, book, e, o);
    if (i % step === step - 1 && book.hasTwoSides()) {
      const b = r * 6;
      out[b] = book.bestBid;
      out[b + 1] = book.bestAsk;
      out[b + 2] = fx.volatility;
      out[b + 3] = rng.int(41) - 20;
      out[b + 4] = 0.5 * rng.normal();
      out[b + 5] = rng.int(50) === 0 ? 1 : 0;
      r++;
    }
  }
  if (r < rows) throw new Error(`strategy inputs: only ${r} of ${rows} rows`);
  return out;
}

function decideLoop(mm: MarketMaker, inp: Float64Array, rows: number, calls: number, sink: Float64Array): void {
  const mask = rows - 1;
  let acc = 0;
  for (let c = 0; c < calls; c++) {
    const b = (c & mask) * 6;
    mm.inputs[IN_SIGMA] = inp[b + 2];
    mm.inputs[IN_SIGNAL] = inp[b + 4];
    mm.decide(inp[b], inp[b + 1], inp[b + 3], inp[b + 5] === 1);
    acc += mm.bidPrice + mm.askPrice;
  }
  sink[0] += acc;
}

/** bench/inference.ts, loaded so that its "run as a script" check sees a different file. */
async function loadInference(): Promise<typeof import('./inference.ts')> {
  // Bundled (dist/bench/run.js): inference.ts is its own bundle next to this one; importing it
  // from here would inline it, and its import.meta.url check would then fire in our bundle.
  const bundled = import.meta.url.endsWith('.js');
  const url = bundled ? new URL('./inference.js', import.meta.url).href : pathToFileURL(new URL('./inference.ts', import.meta.url).pathname).href;
  return (await import(url)) as typeof import('./inference.ts');
}

export async function benchComponents(
  rec: Recording,
  quote: QuoteParams,
  o: { rounds: number; events: number; strategyCalls: number; inferenceCalls: number },
): Promise<ComponentsBench> {
  const n = Math.min(o.events, rec.count);
  const e = rec.events;
  const sink = new Float64Array(1);

  // Features: book + features and book alone, interleaved rounds.
  bookAndFeatures(e, Math.min(n, 200_000), sink); // warm-up
  bookOnly(e, Math.min(n, 200_000));
  const both: number[] = [];
  const alone: number[] = [];
  let bookSum = 0;
  for (let r = 0; r < o.rounds; r++) {
    let t0 = nowNs();
    bookAndFeatures(e, n, sink);
    both.push(Number(nowNs() - t0) / n);
    t0 = nowNs();
    bookSum += bookOnly(e, n);
    alone.push(Number(nowNs() - t0) / n);
  }
  const featureChecksum = sink[0] + bookSum;

  // Strategy decision.
  const ROWS = 4096;
  const inp = strategyInputs(rec, ROWS);
  const mm = new MarketMaker({ ...quote });
  sink[0] = 0;
  decideLoop(mm, inp, ROWS, 200_000, sink); // warm-up
  const dec: number[] = [];
  for (let r = 0; r < o.rounds; r++) {
    const t0 = nowNs();
    decideLoop(mm, inp, ROWS, o.strategyCalls, sink);
    dec.push(Number(nowNs() - t0) / o.strategyCalls);
  }
  const strategyChecksum = sink[0];

  // Model inference: the existing benchmark, as it defines itself.
  const { benchInference } = await loadInference();
  const inf: InferenceBench = benchInference({ calls: o.inferenceCalls, rounds: o.rounds });

  const bf = median(both);
  const bo = median(alone);
  return {
    features: { nsPerCall: bf - bo, bookPlusFeaturesNs: bf, bookOnlyNs: bo, events: n, rounds: o.rounds, checksum: featureChecksum },
    inference: {
      nsPerCall: inf.nsPerCall,
      kernel: inf.kernel,
      scalar: inf.scalar,
      multiplyAdds: inf.multiplyAdds,
      calls: inf.calls,
      modelVersion: inf.modelVersion,
      checksum: inf.checksum,
      method: 'bench/inference.ts: best of rounds, engine path and scalar peer interleaved',
    },
    strategy: { nsPerCall: median(dec), calls: o.strategyCalls, rounds: o.rounds, checksum: strategyChecksum },
    loadavg: loadavg(),
  };
}
