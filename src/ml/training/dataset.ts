// Labelled training data from synthetic sessions.
//
// One session = MarketGenerator(root, date, seed) over [startNs, endNs), its events applied in
// order to a DenseBook and the engine's FeatureExtractor (default options, exactly as in the
// Trader). On a regular grid of market time t_k = startNs + warmup + k * interval the sample is
//   x_k = the feature vector after every event with EV_TS < t_k (what a model sees at t_k)
//   y_k = mid(t_k + horizon) - mid(t_k), ticks (mid = the extractor's mid at those instants)
// Grid points whose t_k + horizon is past the session end have no label and are dropped. The
// warm-up skips the opening snapshot and lets the decayed features (volatility, VPIN, depth)
// leave their initial values. Exchange time is used, not the engine's receive time: the 50 us
// market-data latency is negligible against a 1 s horizon.

import { createHash } from 'node:crypto';
import { FEATURE_COUNT, FeatureExtractor } from '../../book/features.ts';
import { DenseBook } from '../../book/dense-book.ts';
import * as ev from '../../core/events.ts';
import { RecordRing } from '../../core/ring.ts';
import { MarketGenerator } from '../../market/generator.ts';
import { contractForRoot } from '../../market/instruments.ts';
import type { Predictor } from '../inference/predictor.ts';

export interface SessionRef {
  root: string;
  date: string; // YYYY-MM-DD
  seed: number;
  startNs: number; // ns after New York midnight
  endNs: number;
}

export interface SampleOptions {
  sampleIntervalNs: number;
  horizonNs: number;
  warmupNs: number;
  activity: number;
}

export interface Dataset {
  /** Samples. */
  n: number;
  /** n x FEATURE_COUNT, row-major. */
  x: Float64Array;
  /** Labels: mid move over the horizon, ticks. */
  y: Float64Array;
  /** Samples per session, in order. */
  perSession: { ref: SessionRef; samples: number; events: number }[];
}

const BATCH = 4096;
// Local copies of the record layout: tsx may turn imported bindings into getter calls.
const EV_STRIDE = ev.EV_STRIDE;
const EV_TS = ev.EV_TS;
const EV_KIND = ev.EV_KIND;
const EV_SIDE = ev.EV_SIDE;
const EV_PRICE = ev.EV_PRICE;
const EV_QTY = ev.EV_QTY;

/** The labelled samples of one session. */
export function sessionSamples(ref: SessionRef, o: SampleOptions): Dataset {
  if (o.horizonNs % o.sampleIntervalNs !== 0) throw new Error('horizonNs must be a multiple of sampleIntervalNs');
  const ahead = o.horizonNs / o.sampleIntervalNs;
  const first = ref.startNs + o.warmupNs;
  const grid = Math.floor((ref.endNs - 1 - first) / o.sampleIntervalNs) + 1; // grid points < endNs
  if (grid <= ahead) throw new Error(`session ${ref.date} ${ref.startNs}..${ref.endNs} is too short for the warm-up and the horizon`);
  const feats = new Float64Array(grid * FEATURE_COUNT);
  const mids = new Float64Array(grid);

  const gen = new MarketGenerator(contractForRoot(ref.root), ref.date, ref.seed, {
    sessionStartNs: ref.startNs,
    sessionEndNs: ref.endNs,
    activity: o.activity,
  });
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 13, false);
  const book = new DenseBook(4096);
  const fx = new FeatureExtractor();
  const D = ring.data;
  let k = 0;
  let next = first;
  let events = 0;
  while (k < grid) {
    const n = gen.generate(ring, BATCH);
    if (n === 0) break; // session over: the rest of the grid holds the last state
    for (let j = 0; j < n; j++) {
      const off = ring.peek();
      const ts = D[off + EV_TS];
      while (ts >= next && k < grid) {
        feats.set(fx.values, k * FEATURE_COUNT);
        mids[k] = fx.mid;
        k++;
        next = first + k * o.sampleIntervalNs;
      }
      book.apply(D[off + EV_KIND], D[off + EV_SIDE], D[off + EV_PRICE], D[off + EV_QTY]);
      fx.onEvent(book.bestBid, book.bestAsk, book, D, off);
      ring.advance();
    }
    ring.release();
    events += n;
  }
  for (; k < grid; k++) {
    feats.set(fx.values, k * FEATURE_COUNT);
    mids[k] = fx.mid;
  }
  const m = grid - ahead;
  const y = new Float64Array(m);
  for (let i = 0; i < m; i++) y[i] = mids[i + ahead] - mids[i];
  return { n: m, x: feats.slice(0, m * FEATURE_COUNT), y, perSession: [{ ref, samples: m, events }] };
}

/** The samples of several sessions, concatenated in the given order. */
export function buildDataset(refs: SessionRef[], o: SampleOptions, onSession?: (ref: SessionRef, d: Dataset) => void): Dataset {
  const parts = refs.map((r) => {
    const d = sessionSamples(r, o);
    onSession?.(r, d);
    return d;
  });
  const n = parts.reduce((a, p) => a + p.n, 0);
  const x = new Float64Array(n * FEATURE_COUNT);
  const y = new Float64Array(n);
  let at = 0;
  for (const p of parts) {
    x.set(p.x, at * FEATURE_COUNT);
    y.set(p.y, at);
    at += p.n;
  }
  return { n, x, y, perSession: parts.flatMap((p) => p.perSession) };
}

/** The predictions of `p` for every sample of `d`, through the Predictor interface the engine uses. */
export function predictDataset(p: Predictor, d: Dataset): Float64Array {
  const out = new Float64Array(d.n);
  const row = new Float64Array(FEATURE_COUNT);
  for (let i = 0; i < d.n; i++) {
    for (let f = 0; f < FEATURE_COUNT; f++) row[f] = d.x[i * FEATURE_COUNT + f];
    out[i] = p.predict(row);
  }
  return out;
}

/** SHA-256 of the samples (features and labels, as stored float64 bytes): the data's identity. */
export function datasetDigest(d: Dataset): string {
  return createHash('sha256')
    .update(new Uint8Array(d.x.buffer, d.x.byteOffset, d.x.byteLength))
    .update(new Uint8Array(d.y.buffer, d.y.byteOffset, d.y.byteLength))
    .digest('hex');
}
