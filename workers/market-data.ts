// Market-data worker (simulation mode): for every symbol, the synthetic market (MarketGenerator)
// and our simulated exchange (SimExchange), paced to the wall clock. Market events are released
// when the simulated clock reaches their time, matched against our resting orders, stamped with
// their receive time (market-data latency) and published on the md ring; order messages from the
// engine are executed when the clock reaches their arrival time (order-entry latency).

import { workerData } from 'node:worker_threads';
import { EV_KIND, EV_PRICE, EV_QTY, EV_RECV, EV_SIDE, EV_STRIDE, EV_TS, MD_ADD, MD_RESET, OM_TS, ASK, BID } from '../src/core/events.ts';
import { RecordRing } from '../src/core/ring.ts';
import { hashSeed } from '../src/core/rng.ts';
import { FifoLink } from '../src/exchange/fifo-link.ts';
import type { Latency } from '../src/exchange/latency.ts';
import type { SimExchange } from '../src/exchange/sim-exchange.ts';
import { buildExchange, seededLatency } from '../src/exchange/venue.ts';
import { MarketGenerator } from '../src/market/generator.ts';
import type { MarketSource } from '../src/backtest/session.ts';
import { L3Tape } from '../src/exchange/l3-fifo-queue.ts';
import { DbnMarketSource, TAPE_CAPACITY } from '../src/market/replay/dbn-source.ts';
import type { ReplayPlan } from '../src/market/replay/dataset.ts';
import { liveReplayPlan } from '../src/runtime/live-source.ts';
import { C_GEN, C_GEN_ACK, C_HB_MD, C_MD_STALLS, C_STOP, C_WAKE_MD, C_WAKE_OB, EV_WALL, wake, type SymbolMemory } from '../src/runtime/layout.ts';
import { checkStallFault } from '../src/runtime/layout.ts';
import { executionParams, latencyParams } from '../src/config/derive.ts';
import { simClock, specOf, spinFor, type WorkerInit } from '../src/runtime/worker-config.ts';
import type { SimClock } from '../src/runtime/clock.ts';

const init = workerData as WorkerInit;
const cfg = init.config;
const ctl = new Int32Array(init.layout.control);
const clock = simClock(init);
const SNAPSHOT_LEVELS = 200;

class Feed {
  readonly mem: SymbolMemory;
  readonly md: RecordRing;
  readonly om: RecordRing;
  readonly exchange: SimExchange;
  readonly local = RecordRing.allocate(EV_STRIDE, 1 << 14, false);
  private gen: MarketSource | null = null;
  /** Recorded sessions replayed instead of the generator ([simulation] source = "replay"). */
  private readonly plan: ReplayPlan | null;
  /** Order priorities of MBO replay for l3_fifo, by sequence of the local ring. */
  private readonly tape: L3Tape | null;
  private readonly mdLatency: Latency;
  private readonly mdLink = new FifoLink();
  session = -1;
  private offset = 0;
  private readonly prices = new Float64Array(SNAPSHOT_LEVELS);
  private readonly sizes = new Float64Array(SNAPSHOT_LEVELS);

  constructor(mem: SymbolMemory, private readonly clock: SimClock) {
    this.mem = mem;
    this.md = new RecordRing(mem.md);
    this.om = new RecordRing(mem.om);
    const seed = cfg.simulation.seed;
    this.mdLatency = seededLatency(latencyParams(cfg), hashSeed(`live-md|${mem.symbol}`, seed));
    this.plan = liveReplayPlan(cfg, mem.symbol);
    this.tape = this.plan?.sessions[0]?.replay.perOrder ? new L3Tape(TAPE_CAPACITY) : null;
    this.exchange = buildExchange(executionParams(cfg, mem.root), new RecordRing(mem.er), hashSeed(`live-exchange|${mem.symbol}`, seed), this.tape);
  }

  /** Starts session k: our orders expire, a fresh market opens, the engine is told to reset. */
  roll(k: number, now: number, wall: number): void {
    this.exchange.cancelAll(now);
    this.exchange.reset();
    const { startNs, endNs } = this.clock.sessionBounds(k);
    this.offset = this.clock.dayOffsetNs(k);
    this.gen?.close?.();
    this.gen = this.plan ? this.recorded(k, startNs - this.offset, endNs - this.offset) : new MarketGenerator(specOf(this.mem.root), this.clock.date(k), cfg.simulation.seed, {
      sessionStartNs: startNs - this.offset,
      sessionEndNs: endNs - this.offset,
      activity: cfg.simulation.activity,
    });
    this.local.advance(this.local.available());
    this.local.release();
    this.session = k;
    this.push(startNs, MD_RESET, 0, k, 0, wall);
    this.md.publish();
  }

  /**
   * Simulated session k replays recorded session k (cycling through the data's days): its records
   * between the simulated open and close by New York time of day, within the recorded window.
   */
  private recorded(k: number, openNs: number, closeNs: number): DbnMarketSource {
    const s = this.plan!.sessions[k % this.plan!.sessions.length];
    const from = Math.max(openNs, s.sessionStartNs);
    const to = Math.min(closeNs, s.sessionEndNs);
    return new DbnMarketSource(s.replay, from, to > from ? to : from, this.tape);
  }

  /**
   * After a restart of this thread: replays the (deterministic) market silently up to `now`, so
   * the exchange book is where the market is rather than back at the open.
   */
  fastForward(now: number): void {
    const gen = this.gen!;
    const local = this.local;
    for (;;) {
      if (local.available() === 0) {
        if (gen.done) return;
        local.release();
        gen.generate(local, local.free() < 4096 ? local.free() : 4096);
        continue;
      }
      const off = local.peek();
      if (local.data[off + EV_TS] + this.offset > now) return;
      if (this.tape !== null) this.tape.cur = local.readSeq;
      this.exchange.onMarketEvent(local.data, off);
      local.advance();
    }
  }

  /** For a restarted engine: its predecessor's orders are cancelled, then a full book snapshot. */
  resync(now: number, wall: number): void {
    this.exchange.cancelAll(now);
    this.om.advance(this.om.available()); // orders the dead engine sent are void
    this.om.release();
    this.push(now, MD_RESET, 0, this.session, 0, wall);
    const book = this.exchange.book;
    for (const side of [BID, ASK]) {
      const n = book.levels(side, SNAPSHOT_LEVELS, this.prices, this.sizes);
      for (let i = 0; i < n; i++) this.push(now, MD_ADD, side, this.prices[i], this.sizes[i], wall);
    }
    this.md.publish();
  }

  private push(ts: number, kind: number, side: number, price: number, qty: number, wall: number): void {
    let off = this.md.claim();
    while (off < 0) {
      Atomics.add(ctl, C_MD_STALLS, 1);
      spinFor(50);
      off = this.md.claim();
    }
    const d = this.md.data;
    d[off + EV_TS] = ts;
    d[off + EV_KIND] = kind;
    d[off + EV_SIDE] = side;
    d[off + EV_PRICE] = price;
    d[off + EV_QTY] = qty;
    d[off + EV_RECV] = ts;
    d[off + EV_WALL] = wall;
  }

  /**
   * Executes every order message and market event due by `now`, in time order.
   * Returns the engine time of the next pending item (Infinity when none).
   */
  pump(now: number, wall: number): number {
    const gen = this.gen;
    if (!gen) return Infinity;
    const local = this.local;
    const om = this.om;
    const md = this.md;
    let wrote = false;
    let next = Infinity;
    for (;;) {
      if (local.available() === 0 && !gen.done) {
        local.release();
        gen.generate(local, local.free() < 4096 ? local.free() : 4096);
      }
      const tOm = om.available() > 0 ? om.data[om.peek() + OM_TS] : Infinity;
      const tEv = local.available() > 0 ? local.data[local.peek() + EV_TS] + this.offset : Infinity;
      if (tOm <= tEv) {
        if (tOm > now) {
          next = tOm;
          break;
        }
        this.exchange.onOrderMessage(om.data, om.peek());
        om.advance();
        om.release();
        wrote = true;
      } else {
        if (tEv > now) {
          next = tEv;
          break;
        }
        const off = md.claim();
        if (off < 0) {
          // Back-pressure: the engine is behind; the market waits rather than drop L2 updates.
          Atomics.add(ctl, C_MD_STALLS, 1);
          next = now;
          break;
        }
        const src = local.peek();
        const L = local.data;
        const d = md.data;
        const ts = L[src + EV_TS] + this.offset;
        d[off + EV_TS] = ts;
        d[off + EV_KIND] = L[src + EV_KIND];
        d[off + EV_SIDE] = L[src + EV_SIDE];
        d[off + EV_PRICE] = L[src + EV_PRICE];
        d[off + EV_QTY] = L[src + EV_QTY];
        d[off + EV_RECV] = ts + this.mdLatency.marketData(d, off + EV_TS);
        this.mdLink.arrive(d, off + EV_RECV);
        d[off + EV_WALL] = wall;
        if (this.tape !== null) this.tape.cur = local.readSeq;
        this.exchange.onMarketEvent(d, off);
        local.advance();
        wrote = true;
      }
    }
    if (wrote) {
      md.publish();
      wake(ctl, C_WAKE_OB);
    }
    return next;
  }
}

const feeds = init.layout.symbols.map((m) => new Feed(m, clock));
let served = Atomics.load(ctl, C_GEN_ACK);

while (Atomics.load(ctl, C_STOP) === 0) {
  Atomics.add(ctl, C_HB_MD, 1);
  checkStallFault(ctl, 'market-data');
  const wall = performance.timeOrigin + performance.now();
  const now = clock.nowNs(wall);
  const k = clock.sessionIndex(wall);
  const gen = Atomics.load(ctl, C_GEN);
  if (gen !== served) {
    for (const f of feeds) if (f.session >= 0) f.resync(now, wall);
    served = gen;
    Atomics.store(ctl, C_GEN_ACK, gen);
    wake(ctl, C_WAKE_OB);
  }
  let next = Infinity;
  for (const f of feeds) {
    if (f.session !== k) {
      const first = f.session < 0;
      f.roll(k, clock.sessionBounds(k).startNs, wall);
      if (first && init.restarts > 0) f.fastForward(now);
    }
    const t = f.pump(now, wall);
    if (t < next) next = t;
  }
  // Sleep until the next item is due (or an order message wakes us); spin the last stretch.
  const waitMs = next === Infinity ? 5 : (next - now) / 1e6 / clock.speed;
  if (waitMs > init.spinUs / 1000) {
    const seen = Atomics.load(ctl, C_WAKE_MD);
    Atomics.wait(ctl, C_WAKE_MD, seen, Math.min(5, waitMs - init.spinUs / 1000));
  } else if (waitMs > 0) spinFor(waitMs * 1000);
}
Atomics.store(ctl, C_GEN_ACK, served);
