// Synthetic sessions as DBN: runs the market generator for each session and writes its events as
// MBO records (every order, via MboFromL2) or MBP-10 records (the top 10 levels after each event).
// Event order and timestamps are kept exactly: ts_event = EV_TS converted by sessionNsToUnixNs,
// ts_recv = ts_event + the market-data latency (its base, no jitter: DBN files are sorted by
// ts_recv, and the direct run's jitter comes from a stream it shares with order entry, so it
// cannot be known without the strategy; a replay stamps EV_RECV the way the direct run does).
import { rmSync } from 'node:fs';
import { DenseBook, NO_PRICE } from '../../book/dense-book.ts';
import { ASK, BID, EV_KIND, EV_PRICE, EV_QTY, EV_SIDE, EV_STRIDE, EV_TS, MD_TRADE } from '../../core/events.ts';
import { RecordRing } from '../../core/ring.ts';
import { hashSeed } from '../../core/rng.ts';
import { GENERATOR_BOOK_CAPACITY, MarketGenerator } from '../generator.ts';
import type { ContractSpec } from '../instruments.ts';
import type { MarketProfile } from '../market-profile.ts';
import { FLAGS } from '../../data/dbn/constants.ts';
import type { DbnMetadata, SymbolMapping } from '../../data/dbn/metadata.ts';
import { MboFromL2 } from './mbo-from-l2.ts';
import { sessionMidnightUnixNs, sessionNsToUnixNs } from '../dbn-time.ts';
import { DbnWriter, newMboFields, newMbpFields } from '../../data/dbn/writer.ts';

/** One session to export, as the backtest's SessionSpec describes it. */
export interface ExportSession {
  date: string;
  /** The contract traded that day, e.g. ESH24 (contractSymbol of the contract calendar). */
  rawSymbol: string;
  spec: ContractSpec;
  seed: number;
  sessionStartNs: number;
  sessionEndNs: number;
  activity: number;
  /** Overrides of the root's market profile (GeneratorOptions.profile), e.g. REALISTIC_FLOW. */
  profile?: Partial<MarketProfile>;
}

export interface ExportOptions {
  schema: 'mbo' | 'mbp-10';
  /** ns added to ts_event for ts_recv (the configured market-data latency). */
  marketDataLatencyNs: number;
  /** Dataset code in the metadata (default SYNTH.GLBX). */
  dataset?: string;
  /** Stop each session after this many L2 events (tests; default: the whole session). */
  maxEventsPerSession?: number;
  /** Called with every L2 event written (tests compare books along the way). */
  onEvent?: (tsNs: number, kind: number, side: number, price: number, qty: number) => void;
}

export interface ExportSummary {
  sessions: number;
  events: number;
  records: number;
}

/** A stable instrument id per raw symbol (the same contract gets the same id in every export). */
export function syntheticInstrumentId(rawSymbol: string): number {
  return hashSeed(`dbn-instrument|${rawSymbol}`, 0) & 0x7fffffff || 1;
}

/** Price units of 1e-9 per tick, an exact integer for every contract (0.25 -> 250000000). */
export function nanosPerTick(spec: ContractSpec): number {
  return Math.round(spec.tickSize * 1e9);
}

/** Metadata of an export: v3, stype raw_symbol -> instrument_id, one mapping per contract. */
export function exportMetadata(sessions: readonly ExportSession[], schema: 'mbo' | 'mbp-10', dataset = 'SYNTH.GLBX'): DbnMetadata {
  if (sessions.length === 0) throw new Error('export: no session to export');
  const mappings: SymbolMapping[] = [];
  for (const s of sessions) {
    const next = nextDay(s.date);
    let m = mappings.find((x) => x.raw_symbol === s.rawSymbol);
    if (!m) mappings.push((m = { raw_symbol: s.rawSymbol, intervals: [] }));
    const last = m.intervals[m.intervals.length - 1];
    // Intervals are [start_date, end_date) in UTC days; consecutive sessions extend one interval.
    if (last && last.end_date >= s.date) last.end_date = next;
    else m.intervals.push({ start_date: s.date, end_date: next, symbol: String(syntheticInstrumentId(s.rawSymbol)) });
  }
  const first = sessions[0];
  const last = sessions[sessions.length - 1];
  return {
    version: 3,
    dataset,
    schema,
    start: sessionNsToUnixNs(first.date, first.sessionStartNs),
    end: sessionNsToUnixNs(last.date, last.sessionEndNs),
    limit: 0n,
    stype_in: 'raw_symbol',
    stype_out: 'instrument_id',
    ts_out: false,
    symbol_cstr_len: 71,
    symbols: mappings.map((m) => m.raw_symbol),
    partial: [],
    not_found: [],
    mappings,
  };
}

function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** Writes the sessions (in order) to `path` as zstd DBN; on failure no file is left behind. */
export async function exportSynthetic(path: string, sessions: readonly ExportSession[], options: ExportOptions): Promise<ExportSummary> {
  const writer = await DbnWriter.toFile(path, exportMetadata(sessions, options.schema, options.dataset));
  try {
    const summary = writeSessions(writer, sessions, options);
    writer.close();
    return summary;
  } catch (e) {
    // A partial file would read as a complete (shorter) export: remove it.
    writer.close();
    rmSync(path, { force: true });
    throw e;
  }
}

/** Writes the sessions' records to an open writer (exportSynthetic; tests use an in-memory writer). */
export function writeSessions(writer: DbnWriter, sessions: readonly ExportSession[], options: ExportOptions): ExportSummary {
  const latency = options.marketDataLatencyNs;
  if (!Number.isSafeInteger(latency) || latency < 0 || latency > 0x7fffffff)
    throw new RangeError(`export: market-data latency ${latency} ns is not an integer in 0..2^31-1`);
  const mbo = newMboFields();
  const mbp = newMbpFields(10);
  const prices = new Float64Array(10);
  const sizes = new Float64Array(10);
  let events = 0;
  let ts = 0;
  let sequence = 0;
  let instrumentId = 0;
  let tickNanos = 0;
  const mapper = new MboFromL2((action, side, orderId, priceTicks, size, flags) => {
    mbo.tsEventRel = ts;
    mbo.tsRecvRel = ts + latency;
    mbo.action = action;
    mbo.side = side;
    mbo.orderId = orderId;
    mbo.price = priceTicks * tickNanos;
    mbo.size = size;
    mbo.flags = flags;
    mbo.sequence = sequence;
    if (options.schema === 'mbo') writer.writeMbo(mbo);
  });
  const book = new DenseBook(GENERATOR_BOOK_CAPACITY);
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 12, false);
  const tags = new Uint8Array(1 << 12); // which events are order modifies: M records
  const writeMbp = (kind: number, side: number, price: number, qty: number): void => {
    mbp.tsEventRel = ts;
    mbp.tsRecvRel = ts + latency;
    mbp.sequence = sequence;
    mbp.flags = FLAGS.F_LAST;
    mbp.action = kind === MD_TRADE ? 0x54 : kind === 1 ? 0x41 : 0x43;
    // A trade's side is the aggressor's (the opposite of the resting side whose level changed).
    mbp.side = kind === MD_TRADE ? (side === BID ? 0x41 : 0x42) : side === BID ? 0x42 : 0x41;
    mbp.price = price * tickNanos;
    mbp.size = qty;
    mbp.depth = levelIndex(book, side, price);
    fillLevels(book, mapper, BID, prices, sizes, mbp.bidPx, mbp.bidSz, mbp.bidCt, tickNanos);
    fillLevels(book, mapper, ASK, prices, sizes, mbp.askPx, mbp.askSz, mbp.askCt, tickNanos);
    writer.writeMbp(mbp);
  };

  for (const s of sessions) {
    const gen = new MarketGenerator(s.spec, s.date, s.seed, {
      sessionStartNs: s.sessionStartNs,
      sessionEndNs: s.sessionEndNs,
      activity: s.activity,
      profile: s.profile,
    });
    writer.setTimeBase(sessionMidnightUnixNs(s.date));
    instrumentId = syntheticInstrumentId(s.rawSymbol);
    mbo.instrumentId = mbp.instrumentId = instrumentId;
    mbo.tsInDelta = mbp.tsInDelta = latency;
    tickNanos = nanosPerTick(s.spec);
    mapper.clear();
    book.clear();
    sequence = 0;
    let cleared = false;
    const limit = options.maxEventsPerSession ?? Infinity;
    let n = 0;
    while (!gen.done && n < limit) {
      const got = gen.generate(ring, Math.min(ring.free(), limit - n), tags);
      const d = ring.data;
      for (let k = 0; k < got; k++) {
        const off = ring.peek();
        ts = d[off + EV_TS];
        const kind = d[off + EV_KIND];
        const side = d[off + EV_SIDE];
        const price = d[off + EV_PRICE];
        const qty = d[off + EV_QTY];
        if (!cleared) {
          // Each session starts from an empty book: R (clear book) at its first event's time.
          writeClear(writer, options.schema, mbo, mbp, ts, latency);
          cleared = true;
        }
        sequence++;
        book.apply(kind, side, price, qty);
        mapper.apply(kind, side, price, qty, tags[k]);
        if (options.schema === 'mbp-10') writeMbp(kind, side, price, qty);
        options.onEvent?.(ts, kind, side, price, qty);
        ring.advance();
      }
      ring.release();
      n += got;
    }
    events += n;
  }
  return { sessions: sessions.length, events, records: writer.count };
}

function writeClear(
  writer: DbnWriter,
  schema: 'mbo' | 'mbp-10',
  mbo: ReturnType<typeof newMboFields>,
  mbp: ReturnType<typeof newMbpFields>,
  ts: number,
  latency: number,
): void {
  const R = 0x52;
  const N = 0x4e;
  if (schema === 'mbo') {
    writer.writeMbo({
      ...mbo,
      tsEventRel: ts,
      tsRecvRel: ts + latency,
      action: R,
      side: N,
      orderId: 0,
      price: Number.NaN,
      size: 0,
      flags: FLAGS.F_LAST,
      sequence: 0,
    });
    return;
  }
  const empty = newMbpFields(10);
  empty.bidPx.fill(Number.NaN);
  empty.askPx.fill(Number.NaN);
  writer.writeMbp({
    ...empty,
    instrumentId: mbp.instrumentId,
    tsInDelta: latency,
    tsEventRel: ts,
    tsRecvRel: ts + latency,
    action: R,
    side: N,
    price: Number.NaN,
    flags: FLAGS.F_LAST,
  });
}

/** 0-based index of `price` among the side's non-empty levels, best first. */
function levelIndex(book: DenseBook, side: number, price: number): number {
  const best = side === BID ? book.bestBid : book.bestAsk;
  if (best === NO_PRICE) return 0;
  let n = 0;
  if (side === BID) for (let p = best; p > price; p--) n += book.size(BID, p) > 0 ? 1 : 0;
  else for (let p = best; p < price; p++) n += book.size(ASK, p) > 0 ? 1 : 0;
  return Math.min(n, 255);
}

function fillLevels(
  book: DenseBook,
  mapper: MboFromL2,
  side: number,
  prices: Float64Array,
  sizes: Float64Array,
  px: Float64Array,
  sz: Float64Array,
  ct: Float64Array,
  tickNanos: number,
): void {
  const n = book.levels(side, 10, prices, sizes);
  for (let i = 0; i < 10; i++) {
    px[i] = i < n ? prices[i] * tickNanos : Number.NaN;
    sz[i] = i < n ? sizes[i] : 0;
    ct[i] = i < n ? mapper.orderCount(side, prices[i]) : 0;
  }
}
