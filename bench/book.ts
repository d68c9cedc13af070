// Order book update: ns per update of our DenseBook against the two books a TypeScript trader
// would otherwise reach for, replaying one fixed ES-like stream recorded from MarketGenerator:
// - ccxt's OrderBook (a sorted array per side with a Float64Array price index, bisect + shift);
//   fed as ccxt's own exchange handlers feed it: bids/asks.storeArray([price, absoluteSize]),
//   a fresh 2-element array per update because storeArray keeps the array it is given;
// - tardis-dev's OrderBook (a red-black tree per side, bintrees); fed one book_change per update
//   with one { price, amount } level (reused: its insert copies the level);
// - DenseBook.apply(kind, side, price, qty): the change itself, as the engine receives it.
// All three read the same Float64Array; timing covers the whole replay loop (reading the record
// included). A checksum of the best bid/ask and the top-15 prices and sizes of both sides, taken
// at 8 checkpoints of an untimed pass and after every timed round, proves the three books agree.

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
const STRIDE = EV_STRIDE;
const K_KIND = EV_KIND;
const K_SIDE = EV_SIDE;
const K_PRICE = EV_PRICE;
const K_QTY = EV_QTY;
const SIDE_BID = BID;

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

function denseReplay(book: DenseBook, e: Float64Array, from: number, to: number): void {
  for (let i = from, o = from * STRIDE; i < to; i++, o += STRIDE) book.apply(e[o + K_KIND], e[o + K_SIDE], e[o + K_PRICE], e[o + K_QTY]);
}

/** The floor: the same loop reading the same fields and doing nothing else (one accumulator per field). */
function readFloor(e: Float64Array, sizes: Float64Array, from: number, to: number): number {
  let a = 0, b = 0, c = 0, d = 0, z = 0;
  for (let i = from, o = from * STRIDE; i < to; i++, o += STRIDE) {
    a += e[o + K_KIND];
    b += e[o + K_SIDE];
    c += e[o + K_PRICE];
    d += e[o + K_QTY];
    z += sizes[i];
  }
  return a + b + c + d + z;
}

function denseTop(book: DenseBook): Top {
  const bp = new Float64Array(TOP), bs = new Float64Array(TOP), ap = new Float64Array(TOP), as = new Float64Array(TOP);
  const nb = book.levels(SIDE_BID, TOP, bp, bs);
  const na = book.levels(1 - SIDE_BID, TOP, ap, as);
  const bids: number[] = [], asks: number[] = [];
  for (let i = 0; i < nb; i++) bids.push(bp[i], bs[i]);
  for (let i = 0; i < na; i++) asks.push(ap[i], as[i]);
  return { bestBid: book.bestBid === NO_PRICE ? -1 : book.bestBid, bestAsk: book.bestAsk === NO_PRICE ? -1 : book.bestAsk, bids, asks };
}

function ccxtReplay(book: CcxtBook, e: Float64Array, sizes: Float64Array, from: number, to: number): void {
  const bids = book.bids, asks = book.asks;
  for (let i = from, o = from * STRIDE; i < to; i++, o += STRIDE) {
    if (e[o + K_SIDE] === SIDE_BID) bids.storeArray([e[o + K_PRICE], sizes[i]]);
    else asks.storeArray([e[o + K_PRICE], sizes[i]]);
  }
}

function ccxtTop(book: CcxtBook): Top {
  const bids: number[] = [], asks: number[] = [];
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

function tardisReplay(f: TardisFeed, e: Float64Array, sizes: Float64Array, from: number, to: number): void {
  const book = f.book, level = f.level, onBid = f.onBid, onAsk = f.onAsk;
  for (let i = from, o = from * STRIDE; i < to; i++, o += STRIDE) {
    level.price = e[o + K_PRICE];
    level.amount = sizes[i];
    book.update(e[o + K_SIDE] === SIDE_BID ? onBid : onAsk);
  }
}

function tardisTop(book: TardisOrderBook): Top {
  const bids: number[] = [], asks: number[] = [];
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
  finalState: { bestBid: number; bestAsk: number; checksum: string };
  ratios: { ccxtOverOurs: number; tardisOverOurs: number };
  loadavg: number[];
}

export async function benchBook(stream: BookStream, o: { rounds: number }): Promise<BookBench> {
  const { OrderBook: CcxtOrderBook, version: ccxtVersion } = await loadCcxtOrderBook();
  const e = stream.events;
  const sizes = stream.sizes;
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
      replay: (s, a, b) => denseReplay(s as DenseBook, e, a, b),
      top: (s) => denseTop(s as DenseBook),
    },
    {
      name: `ccxt ${ccxtVersion} OrderBook`,
      description: 'bids/asks.storeArray([price, size]): sorted arrays + Float64Array index, bisect and shift',
      fresh: () => new CcxtOrderBook({}),
      replay: (s, a, b) => ccxtReplay(s as CcxtBook, e, sizes, a, b),
      top: (s) => ccxtTop(s as CcxtBook),
    },
    {
      name: `tardis-dev ${tardisVersion()} OrderBook`,
      description: 'update(book_change with one level): red-black trees (bintrees)',
      fresh: () => tardisFeed(),
      replay: (s, a, b) => tardisReplay(s as TardisFeed, e, sizes, a, b),
      top: (s) => tardisTop((s as TardisFeed).book),
    },
  ];

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
  let floorSum = readFloor(e, sizes, 0, n);
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
    floorSum += readFloor(e, sizes, 0, n);
    floor.push(Number(nowNs() - t0) / n);
  }
  if (!Number.isFinite(floorSum)) throw new Error('read floor checksum');

  const results: BookImplResult[] = impls.map((impl, k) => ({
    name: impl.name,
    description: impl.description,
    nsPerUpdate: median(times[k]),
    minNsPerUpdate: Math.min(...times[k]),
    rounds: times[k],
    checksum: [...finals[k]].join(','),
    checkpoints: checkpoints[k],
  }));
  const ref = results[0];
  const checksumsEqual =
    results.every((x) => x.checksum === ref.checksum && finals[results.indexOf(x)].size === 1) &&
    results.every((x) => x.checkpoints.join() === ref.checkpoints.join()) &&
    ref.checkpoints[CHECKS - 1] === ref.checksum;
  const ft = finalTop as unknown as Top;
  return {
    updates: n,
    stream: `${n.toLocaleString('en-US')} updates of an ES session (MarketGenerator, seed 42), integer ticks`,
    rounds: o.rounds,
    implementations: results,
    checksumsEqual,
    readFloorNs: median(floor),
    finalState: { bestBid: ft.bestBid, bestAsk: ft.bestAsk, checksum: ref.checksum },
    ratios: { ccxtOverOurs: results[1].nsPerUpdate / ref.nsPerUpdate, tardisOverOurs: results[2].nsPerUpdate / ref.nsPerUpdate },
    loadavg: loadavg(),
  };
}
