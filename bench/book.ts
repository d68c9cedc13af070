// Order book update: ns per update of our DenseBook against the two books a TypeScript trader
// would otherwise reach for, replaying one fixed ES-like stream recorded from MarketGenerator:
// - ccxt's OrderBook (a sorted array per side with a Float64Array price index, bisect + shift);
//   fed as ccxt's own exchange handlers feed it: bids/asks.storeArray([price, absoluteSize]),
//   a fresh 2-element array per update because storeArray keeps the array it is given;
// - tardis-dev's OrderBook (a red-black tree per side, bintrees); fed one book_change per update
//   with one { price, amount } level (reused: its insert copies the level);
// - DenseBook.apply(kind, side, price, qty): the change itself, as the engine receives it.
// All three read the same stream, one Int32Array of 5-field records (kind, side, price, qty,
// size after: all exact integers), through the same loop shape; timing covers the whole replay
// loop (reading the record included). Our book is also timed on the engine's own float64
// records (EV_STRIDE), the input it gets in the pipeline today. A checksum of the best bid/ask
// and the top-15 prices and sizes of both sides, taken at 8 checkpoints of an untimed pass and
// after every timed round, proves the books agree.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OrderBook as TardisOrderBook, type BookChange } from 'tardis-dev';
import { DenseBook, NO_PRICE } from '../src/book/dense-book.ts';
import { BID, EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE } from '../src/core/events.ts';
import type { BookStream } from './stream.ts';
import { fnv32, loadavg, median, nowNs } from './util.ts';

const TOP = 15;
const SIDE_BID = BID;

// The benchmark's stream: 5 int32 fields per update. Every loop below copies these offsets into
// locals before it starts: bundled, a module constant is a mutable variable, and a loop re-reads
// (and type-checks) it on every use; that was half of the old "reading the stream alone".
const R_KIND = 0;
const R_SIDE = 1;
const R_PRICE = 2;
const R_QTY = 3;
const R_SIZE = 4;
const R_STRIDE = 5;

/** The stream as int32 records; throws naming the field and update if a value is not an int32. */
function int32Records(stream: BookStream): Int32Array {
  const e = stream.events,
    n = stream.count;
  const r = new Int32Array(n * R_STRIDE);
  const put = (i: number, field: number, name: string, v: number): void => {
    if ((v | 0) !== v) throw new Error(`book stream: update ${i}: ${name} ${v} is not an int32`);
    r[i * R_STRIDE + field] = v;
  };
  for (let i = 0, o = 0; i < n; i++, o += EV_STRIDE) {
    put(i, R_KIND, 'kind', e[o + EV_KIND]);
    put(i, R_SIDE, 'side', e[o + EV_SIDE]);
    put(i, R_PRICE, 'price', e[o + EV_PRICE]);
    put(i, R_QTY, 'qty', e[o + EV_QTY]);
    put(i, R_SIZE, 'size', stream.sizes[i]);
  }
  return r;
}

interface CcxtSide extends Array<[number, number]> {
  storeArray(delta: [number, number]): void;
}
interface CcxtBook {
  bids: CcxtSide;
  asks: CcxtSide;
}
type CcxtBookCtor = new (snapshot?: object, depth?: number) => CcxtBook;

/** ccxt's OrderBook class (its package "exports" hides the subpath: load the file by URL). */
async function loadCcxtOrderBook(): Promise<{ OrderBook: CcxtBookCtor; version: string }> {
  const main = createRequire(import.meta.url).resolve('ccxt'); // .../node_modules/ccxt/dist/ccxt.cjs
  const marker = `${sep}node_modules${sep}ccxt${sep}`;
  const dir = main.slice(0, main.lastIndexOf(marker) + marker.length);
  const mod = (await import(pathToFileURL(join(dir, 'js', 'src', 'base', 'ws', 'OrderBook.js')).href)) as { OrderBook: CcxtBookCtor };
  const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  return { OrderBook: mod.OrderBook, version };
}

function tardisVersion(): string {
  const require = createRequire(import.meta.url);
  try {
    return (require('tardis-dev/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** One book state as numbers: [bestBid, bestAsk, then TOP (price, size) pairs per side]. */
interface Top {
  bestBid: number;
  bestAsk: number;
  bids: number[]; // price, size, price, size, ...
  asks: number[];
}

function checksum(t: Top): string {
  const v = [t.bestBid, t.bestAsk, ...t.bids, ...t.asks];
  return fnv32(v);
}

// ---------------------------------------------------------------- the three replays

function denseReplay(book: DenseBook, r: Int32Array, from: number, to: number): void {
  const stride = R_STRIDE,
    kind = R_KIND,
    side = R_SIDE,
    price = R_PRICE,
    qty = R_QTY;
  for (let o = from * stride, end = to * stride; o < end; o += stride) book.apply(r[o + kind], r[o + side], r[o + price], r[o + qty]);
}

/** Our book on the engine's float64 records, as Trader.onMarketData feeds it (not a contender: a reference). */
function denseReplayEngineRecords(book: DenseBook, e: Float64Array, from: number, to: number): void {
  const stride = EV_STRIDE,
    kind = EV_KIND,
    side = EV_SIDE,
    price = EV_PRICE,
    qty = EV_QTY;
  for (let o = from * stride, end = to * stride; o < end; o += stride) book.apply(e[o + kind], e[o + side], e[o + price], e[o + qty]);
}

/** The floor: the same loop reading every field and doing nothing else (one accumulator per field). */
function readFloor(r: Int32Array, from: number, to: number): number {
  const stride = R_STRIDE,
    kind = R_KIND,
    side = R_SIDE,
    price = R_PRICE,
    qty = R_QTY,
    size = R_SIZE;
  let a = 0,
    b = 0,
    c = 0,
    d = 0,
    z = 0;
  for (let o = from * stride, end = to * stride; o < end; o += stride) {
    a = (a + r[o + kind]) | 0;
    b = (b + r[o + side]) | 0;
    c = (c + r[o + price]) | 0;
    d = (d + r[o + qty]) | 0;
    z = (z + r[o + size]) | 0;
  }
  return a ^ b ^ c ^ d ^ z;
}

function denseTop(book: DenseBook): Top {
  const bp = new Float64Array(TOP),
    bs = new Float64Array(TOP),
    ap = new Float64Array(TOP),
    as = new Float64Array(TOP);
  const nb = book.levels(SIDE_BID, TOP, bp, bs);
  const na = book.levels(1 - SIDE_BID, TOP, ap, as);
  const bids: number[] = [],
    asks: number[] = [];
  for (let i = 0; i < nb; i++) bids.push(bp[i], bs[i]);
  for (let i = 0; i < na; i++) asks.push(ap[i], as[i]);
  return { bestBid: book.bestBid === NO_PRICE ? -1 : book.bestBid, bestAsk: book.bestAsk === NO_PRICE ? -1 : book.bestAsk, bids, asks };
}

function ccxtReplay(book: CcxtBook, r: Int32Array, from: number, to: number): void {
  const stride = R_STRIDE,
    side = R_SIDE,
    price = R_PRICE,
    size = R_SIZE,
    bid = SIDE_BID;
  const bids = book.bids,
    asks = book.asks;
  for (let o = from * stride, end = to * stride; o < end; o += stride) {
    if (r[o + side] === bid) bids.storeArray([r[o + price], r[o + size]]);
    else asks.storeArray([r[o + price], r[o + size]]);
  }
}

function ccxtTop(book: CcxtBook): Top {
  const bids: number[] = [],
    asks: number[] = [];
  for (let i = 0; i < TOP && i < book.bids.length; i++) bids.push(book.bids[i][0], book.bids[i][1]);
  for (let i = 0; i < TOP && i < book.asks.length; i++) asks.push(book.asks[i][0], book.asks[i][1]);
  return { bestBid: book.bids.length ? book.bids[0][0] : -1, bestAsk: book.asks.length ? book.asks[0][0] : -1, bids, asks };
}

interface TardisFeed {
  book: TardisOrderBook;
  level: { price: number; amount: number };
  onBid: BookChange;
  onAsk: BookChange;
}

function tardisFeed(): TardisFeed {
  const book = new TardisOrderBook();
  const level = { price: 0, amount: 0 };
  const base = { type: 'book_change', symbol: 'ESH24', exchange: 'cme', timestamp: new Date(0), localTimestamp: new Date(0) };
  const onBid = { ...base, isSnapshot: false, bids: [level], asks: [] } as unknown as BookChange;
  const onAsk = { ...base, isSnapshot: false, bids: [], asks: [level] } as unknown as BookChange;
  // tardis ignores changes until a snapshot has been received: start from an empty snapshot.
  book.update({ ...base, isSnapshot: true, bids: [], asks: [] } as unknown as BookChange);
  return { book, level, onBid, onAsk };
}

function tardisReplay(f: TardisFeed, r: Int32Array, from: number, to: number): void {
  const stride = R_STRIDE,
    side = R_SIDE,
    price = R_PRICE,
    size = R_SIZE,
    bid = SIDE_BID;
  const book = f.book,
    level = f.level,
    onBid = f.onBid,
    onAsk = f.onAsk;
  for (let o = from * stride, end = to * stride; o < end; o += stride) {
    level.price = r[o + price];
    level.amount = r[o + size];
    book.update(r[o + side] === bid ? onBid : onAsk);
  }
}

function tardisTop(book: TardisOrderBook): Top {
  const bids: number[] = [],
    asks: number[] = [];
  let k = 0;
  for (const l of book.bids()) {
    if (k++ >= TOP) break;
    bids.push(l.price, l.amount);
  }
  k = 0;
  for (const l of book.asks()) {
    if (k++ >= TOP) break;
    asks.push(l.price, l.amount);
  }
  return { bestBid: book.bestBid()?.price ?? -1, bestAsk: book.bestAsk()?.price ?? -1, bids, asks };
}

// ---------------------------------------------------------------- the benchmark

export interface BookImplResult {
  name: string;
  description: string;
  nsPerUpdate: number; // median of the rounds
  minNsPerUpdate: number;
  rounds: number[];
  checksum: string;
  checkpoints: string[];
}

export interface BookBench {
  updates: number;
  stream: string;
  rounds: number;
  implementations: BookImplResult[];
  checksumsEqual: boolean;
  /** ns per record of a loop that only reads the stream's fields: the part no book can avoid. */
  readFloorNs: number;
  /** Our book replaying the engine's float64 records (EV_STRIDE) instead: median ns per update, and its checksums equal ours. */
  oursOnEngineRecords: { nsPerUpdate: number; rounds: number[]; checksumsEqual: boolean };
  finalState: { bestBid: number; bestAsk: number; checksum: string };
  ratios: { ccxtOverOurs: number; tardisOverOurs: number };
  loadavg: number[];
}

export async function benchBook(stream: BookStream, o: { rounds: number }): Promise<BookBench> {
  const { OrderBook: CcxtOrderBook, version: ccxtVersion } = await loadCcxtOrderBook();
  const e = stream.events;
  const records = int32Records(stream);
  const n = stream.count;
  const CHECKS = 8;

  interface Impl {
    name: string;
    description: string;
    /** Replays events [from, to) into `state`; returns the state. */
    fresh(): unknown;
    replay(state: unknown, from: number, to: number): void;
    top(state: unknown): Top;
  }
  const impls: Impl[] = [
    {
      name: 'ours (DenseBook)',
      description: 'DenseBook.apply(kind, side, price, qty): typed arrays indexed by tick, ring over the price axis',
      fresh: () => new DenseBook(4096),
      replay: (s, a, b) => denseReplay(s as DenseBook, records, a, b),
      top: (s) => denseTop(s as DenseBook),
    },
    {
      name: `ccxt ${ccxtVersion} OrderBook`,
      description: 'bids/asks.storeArray([price, size]): sorted arrays + Float64Array index, bisect and shift',
      fresh: () => new CcxtOrderBook({}),
      replay: (s, a, b) => ccxtReplay(s as CcxtBook, records, a, b),
      top: (s) => ccxtTop(s as CcxtBook),
    },
    {
      name: `tardis-dev ${tardisVersion()} OrderBook`,
      description: 'update(book_change with one level): red-black trees (bintrees)',
      fresh: () => tardisFeed(),
      replay: (s, a, b) => tardisReplay(s as TardisFeed, records, a, b),
      top: (s) => tardisTop((s as TardisFeed).book),
    },
    {
      name: 'ours (DenseBook) on the engine records',
      description: 'DenseBook.apply over the float64 EV_STRIDE records the engine receives (a reference, not a contender)',
      fresh: () => new DenseBook(4096),
      replay: (s, a, b) => denseReplayEngineRecords(s as DenseBook, e, a, b),
      top: (s) => denseTop(s as DenseBook),
    },
  ];
  const CONTENDERS = 3;

  // Untimed verification pass (also the warm-up): checksums at CHECKS points along the stream.
  const checkpoints = impls.map((impl) => {
    const s = impl.fresh();
    const sums: string[] = [];
    for (let c = 1; c <= CHECKS; c++) {
      impl.replay(s, Math.floor(((c - 1) * n) / CHECKS), Math.floor((c * n) / CHECKS));
      sums.push(checksum(impl.top(s)));
    }
    return sums;
  });

  // Timed rounds, implementations interleaved so a load change hits all of them alike.
  const times = impls.map(() => [] as number[]);
  const floor: number[] = [];
  let floorSum = readFloor(records, 0, n);
  const finals = impls.map(() => new Set<string>());
  let finalTop: Top | null = null;
  for (let r = 0; r < o.rounds; r++) {
    impls.forEach((impl, k) => {
      const s = impl.fresh();
      const t0 = nowNs();
      impl.replay(s, 0, n);
      const dt = Number(nowNs() - t0);
      times[k].push(dt / n);
      const top = impl.top(s);
      finals[k].add(checksum(top));
      if (k === 0) finalTop = top;
    });
    const t0 = nowNs();
    floorSum ^= readFloor(records, 0, n);
    floor.push(Number(nowNs() - t0) / n);
  }
  if (!Number.isInteger(floorSum)) throw new Error('read floor checksum');

  const all: BookImplResult[] = impls.map((impl, k) => ({
    name: impl.name,
    description: impl.description,
    nsPerUpdate: median(times[k]),
    minNsPerUpdate: Math.min(...times[k]),
    rounds: times[k],
    checksum: [...finals[k]].join(','),
    checkpoints: checkpoints[k],
  }));
  const ref = all[0];
  const agrees = (x: BookImplResult, k: number): boolean =>
    x.checksum === ref.checksum && finals[k].size === 1 && x.checkpoints.join() === ref.checkpoints.join();
  const results = all.slice(0, CONTENDERS);
  const checksumsEqual = results.every(agrees) && ref.checkpoints[CHECKS - 1] === ref.checksum;
  const engineRecords = all[CONTENDERS];
  const ft = finalTop as unknown as Top;
  return {
    updates: n,
    stream: `${n.toLocaleString('en-US')} updates of an ES session (MarketGenerator, seed 42), int32 records (kind, side, price in ticks, qty, size after)`,
    rounds: o.rounds,
    implementations: results,
    checksumsEqual,
    readFloorNs: median(floor),
    oursOnEngineRecords: { nsPerUpdate: engineRecords.nsPerUpdate, rounds: engineRecords.rounds, checksumsEqual: agrees(engineRecords, CONTENDERS) },
    finalState: { bestBid: ft.bestBid, bestAsk: ft.bestAsk, checksum: ref.checksum },
    ratios: { ccxtOverOurs: results[1].nsPerUpdate / ref.nsPerUpdate, tardisOverOurs: results[2].nsPerUpdate / ref.nsPerUpdate },
    loadavg: loadavg(),
  };
}

/**
 * ccxt's book as a peer timed between other measurements: each call replays the whole stream
 * into a fresh ccxt OrderBook and returns the ns per update. The throughput section's pipeline
 * thread times it after each of its rounds, so the pipeline / ccxt ratio of issue 15 compares
 * two codes measured in the same minutes on the same vCPU (the book section runs minutes
 * earlier, and this host's speed drifts by up to ±20 % in that time). Throws if a replay ends
 * in another state than the first.
 */
export async function ccxtPeer(stream: BookStream): Promise<() => number> {
  const { OrderBook } = await loadCcxtOrderBook();
  const records = int32Records(stream);
  const n = stream.count;
  let first: string | null = null;
  const once = (): number => {
    const book = new OrderBook({});
    const t0 = nowNs();
    ccxtReplay(book, records, 0, n);
    const ns = Number(nowNs() - t0) / n;
    const sum = checksum(ccxtTop(book));
    if (first === null) first = sum;
    else if (sum !== first) throw new Error(`ccxt peer: the replay ended in state ${sum}, the first in ${first}`);
    return ns;
  };
  once(); // warm-up, as the book section's verification pass
  return once;
}
