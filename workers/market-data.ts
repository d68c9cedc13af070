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
import type { LatencyModel } from '../src/exchange/latency.ts';
import type { SimExchange } from '../src/exchange/sim-exchange.ts';
import { buildExchange, seededLatency } from '../src/exchange/venue.ts';
import { MarketGenerator } from '../src/market/generator.ts';
import type { ContractSpec } from '../src/market/instruments.ts';
import { L3Tape } from '../src/exchange/l3-fifo-queue.ts';
import { DbnMarketSource } from '../src/market/replay/dbn-source.ts';
import { type MarketSource, TAPE_CAPACITY } from '../src/market/source.ts';
import type { ReplayPlan } from '../src/market/replay/dataset.ts';
import { liveReplayPlan } from '../src/runtime/live-source.ts';
import { CB_GEN, CB_GEN_ACK, CB_HB_MD, CB_MD_STALLS, CB_STOP, CB_WAKE_MD, CB_WAKE_OB, EV_WALL, wake, type SymbolMemory } from '../src/runtime/layout.ts';
import { checkStallFault } from '../src/runtime/layout.ts';
import { executionParams, latencyParams } from '../src/config/derive.ts';
import { simClock, specOf, spinFor, type WorkerInit } from '../src/runtime/worker-config.ts';
import type { SimClock } from '../src/runtime/clock.ts';
import { setThreadTimerSlack, WORKER_TIMER_SLACK_NS } from '../src/runtime/timer-slack.ts';
import { wallMs } from '../src/runtime/wall-clock.ts';

const init = workerData as WorkerInit;
setThreadTimerSlack(WORKER_TIMER_SLACK_NS);
const cfg = init.config;
const ctl = new Int32Array(init.layout.control);
const clock = simClock(init);
const SNAPSHOT_LEVELS = 200;
// Market events go to the engine this far (wall time) ahead of the exchange time: more than this
// thread's timed waits overshoot (~25 µs; ms when the machine is busy), so the engine has each
// event before it is due and can be awake when it is.
const LOOKAHEAD_MS = 2;
const lookaheadNs = LOOKAHEAD_MS * 1e6 * clock.speed;

/** The market's own ring (events generated, not yet published) and how many events one call generates. */
const LOCAL_RING_RECORDS = 1 << 14;
const GENERATE_BATCH = 4096;

class Feed {
  readonly mem: SymbolMemory;
  readonly md: RecordRing;
  readonly om: RecordRing;
  readonly exchange: SimExchange;
  readonly local = RecordRing.allocate(EV_STRIDE, LOCAL_RING_RECORDS, false);
  private gen: MarketSource | null = null;
  /** Recorded sessions replayed instead of the generator ([simulation] source = "replay"). */
  private readonly plan: ReplayPlan | null;
  /** Order priorities of MBO replay for l3_fifo, by sequence of the local ring. */
  private readonly tape: L3Tape | null;
  /** The symbol's contract spec (its [market] profile file read once, not at every session). */
  private readonly spec: ContractSpec;
  private readonly mdLatency: LatencyModel;
  private readonly mdLink = new FifoLink();
  /** Events of `local` published to the engine but not yet executed by the exchange. */
  private ahead = 0;
  /** The exchange's copy of the event it executes (engine time, offset included). */
  private readonly event = new Float64Array(EV_STRIDE);
  session = -1;
  private offset = 0;
  private readonly prices = new Float64Array(SNAPSHOT_LEVELS);
  private readonly sizes = new Float64Array(SNAPSHOT_LEVELS);

  constructor(
    mem: SymbolMemory,
    private readonly clock: SimClock,
  ) {
    this.mem = mem;
    this.md = new RecordRing(mem.md);
    this.om = new RecordRing(mem.om);
    const seed = cfg.simulation.seed;
    this.spec = specOf(mem.root, init.config);
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
    this.gen = this.plan
      ? this.recorded(k, startNs - this.offset, endNs - this.offset)
      : new MarketGenerator(this.spec, this.clock.date(k), cfg.simulation.seed, {
          sessionStartNs: startNs - this.offset,
          sessionEndNs: endNs - this.offset,
          activity: cfg.simulation.activity,
        });
    this.local.advance(this.local.available());
    this.local.release();
    this.ahead = 0;
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
        gen.generate(local, local.free() < GENERATE_BATCH ? local.free() : GENERATE_BATCH);
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
    // The events published ahead went to the old engine (the new one skips everything before its
    // reset): publish them again after the snapshot, which is the book before them.
    this.ahead = 0;
  }

  private push(ts: number, kind: number, side: number, price: number, qty: number, wall: number): void {
    let off = this.md.claim();
    while (off < 0) {
      Atomics.add(ctl, CB_MD_STALLS, 1);
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
   * Publishes market events to the engine up to `lookaheadNs` ahead of `now` (the engine still
   * acts on each only at its receive time), then executes every order message and market event
   * due by `now`, in time order. Returns the engine time at which this feed next has work
   * (Infinity when none).
   */
  pump(now: number, lookaheadNs: number): number {
    const gen = this.gen;
    if (!gen) return Infinity;
    const nextPublish = this.publishAhead(gen, now, lookaheadNs);
    const local = this.local;
    const om = this.om;
    const ev = this.event;
    for (;;) {
      const tOm = om.available() > 0 ? om.data[om.peek() + OM_TS] : Infinity;
      // Only published events reach the exchange: the engine's copy always goes out first.
      const tEv = this.ahead > 0 ? local.data[local.peek() + EV_TS] + this.offset : Infinity;
      if (tOm <= tEv) {
        if (tOm > now) return tOm < nextPublish ? tOm : nextPublish;
        this.exchange.onOrderMessage(om.data, om.peek());
        om.advance();
        om.release();
      } else {
        if (tEv > now) return tEv < nextPublish ? tEv : nextPublish;
        const src = local.peek();
        const L = local.data;
        ev[EV_TS] = tEv;
        ev[EV_KIND] = L[src + EV_KIND];
        ev[EV_SIDE] = L[src + EV_SIDE];
        ev[EV_PRICE] = L[src + EV_PRICE];
        ev[EV_QTY] = L[src + EV_QTY];
        if (this.tape !== null) this.tape.cur = local.readSeq;
        this.exchange.onMarketEvent(ev, 0);
        local.advance();
        this.ahead--;
      }
    }
  }

  /**
   * Copies the market's next events, stamped with their receive time, onto the md ring: every
   * event due at the exchange by `now`, and the following ones up to `now + lookaheadNs` while
   * the ring is at most half full. Returns when it next needs to run: once the first event not
   * yet published is within half the lookahead (so publishing goes in batches), or `now` when
   * a full ring held back an event already due (back-pressure, counted: the market waits
   * rather than drop L2 updates).
   */
  private publishAhead(gen: MarketSource, now: number, lookaheadNs: number): number {
    const local = this.local;
    const md = this.md;
    const first = md.writeSeq;
    let room = md.free() - (md.capacity >> 1);
    let next = Infinity;
    for (;;) {
      if (this.ahead === local.available()) {
        if (gen.done) break;
        local.release();
        gen.generate(local, local.free() < GENERATE_BATCH ? local.free() : GENERATE_BATCH);
        if (this.ahead === local.available()) break;
      }
      const src = local.peekAt(this.ahead);
      const L = local.data;
      const ts = L[src + EV_TS] + this.offset;
      if (ts > now + lookaheadNs) {
        next = ts - lookaheadNs / 2;
        break;
      }
      if (ts > now && room <= 0) {
        next = ts; // the ring is half full: publish it when it is due
        break;
      }
      const off = md.claim();
      if (off < 0) {
        Atomics.add(ctl, CB_MD_STALLS, 1);
        next = now;
        break;
      }
      room--;
      const d = md.data;
      d[off + EV_TS] = ts;
      d[off + EV_KIND] = L[src + EV_KIND];
      d[off + EV_SIDE] = L[src + EV_SIDE];
      d[off + EV_PRICE] = L[src + EV_PRICE];
      d[off + EV_QTY] = L[src + EV_QTY];
      d[off + EV_RECV] = ts + this.mdLatency.marketData(d, off + EV_TS);
      this.mdLink.arrive(d, off + EV_RECV);
      this.ahead++;
    }
    if (md.writeSeq !== first) this.publishFrom(first);
    return next;
  }

  /** Stamps the records from sequence `first` on with the wall time, publishes them, wakes the engine. */
  private publishFrom(first: number): void {
    const md = this.md;
    const wall = wallMs();
    for (let s = first; s !== md.writeSeq; s = (s + 1) | 0) md.data[(s & md.mask) * md.stride + EV_WALL] = wall;
    md.publish();
    wake(ctl, CB_WAKE_OB);
  }
}

const feeds = init.layout.symbols.map((m) => new Feed(m, clock));
let served = Atomics.load(ctl, CB_GEN_ACK);

while (Atomics.load(ctl, CB_STOP) === 0) {
  Atomics.add(ctl, CB_HB_MD, 1);
  checkStallFault(ctl, 'market-data');
  // Read before looking at the rings: an order sent after this read makes the wait return at once.
  const seen = Atomics.load(ctl, CB_WAKE_MD);
  const wall = wallMs();
  const now = clock.nowNs(wall);
  const k = clock.sessionIndex(wall);
  const gen = Atomics.load(ctl, CB_GEN);
  if (gen !== served) {
    for (const f of feeds) if (f.session >= 0) f.resync(now, wall);
    served = gen;
    Atomics.store(ctl, CB_GEN_ACK, gen);
    wake(ctl, CB_WAKE_OB);
  }
  let next = Infinity;
  for (const f of feeds) {
    if (f.session !== k) {
      const first = f.session < 0;
      f.roll(k, clock.sessionBounds(k).startNs, wall);
      if (first && init.restarts > 0) f.fastForward(now);
    }
    const t = f.pump(now, lookaheadNs);
    if (t < next) next = t;
  }
  // Sleep until the next item is due or an order message wakes us. No spinning here: the events
  // the engine waits for are published ahead of their receive time, so this thread's wake-up
  // latency is not on the tick-to-trade path, and on two cores the engine thread is the only
  // one that spins.
  const waitMs = next === Infinity ? 5 : (next - now) / 1e6 / clock.speed;
  if (waitMs > 0) Atomics.wait(ctl, CB_WAKE_MD, seen, Math.min(5, waitMs));
}
Atomics.store(ctl, CB_GEN_ACK, served);
