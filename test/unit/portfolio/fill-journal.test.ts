// FillJournal: an engine thread that dies at any point of booking a report, followed by a new
// thread over the same shared memory, leaves the portfolio, the risk state, the fill stream and
// the report ring exactly as one thread that never died would (each fill booked and published
// once). The live engine's use of it is tested in simulation-crash-mid-fill.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ASK, BID, ER_FEE, ER_FILL, ER_ID, ER_PRICE, ER_QTY, ER_SIDE, ER_STRIDE, ER_TYPE } from '../../../src/core/events.ts';
import { RecordRing, type RingMemory } from '../../../src/core/ring.ts';
import { Portfolio } from '../../../src/portfolio/portfolio.ts';
import { FillJournal, type Recovery } from '../../../src/runtime/fill-journal.ts';

const MAX_LOTS = 64;
const RISK_FIELDS = 4;
const FILL_STRIDE = 4; // id, side, qty, position after the fill

// Buys and sells that open, add to, reduce and flip the position (several FIFO lots).
const REPORTS = [
  [BID, 100, 2],
  [BID, 101, 1],
  [ASK, 103, 1],
  [ASK, 99, 4],
  [BID, 98, 1],
  [ASK, 102, 2],
  [BID, 97, 4],
] as const;

interface Memory {
  portfolio: SharedArrayBuffer;
  risk: SharedArrayBuffer;
  counters: SharedArrayBuffer; // fills bought, fills sold
  journal: SharedArrayBuffer;
  er: RingMemory;
  fills: RingMemory;
}

function memory(): Memory {
  const m: Memory = {
    portfolio: new SharedArrayBuffer(Portfolio.bytes(MAX_LOTS)),
    risk: new SharedArrayBuffer(RISK_FIELDS * 8),
    counters: new SharedArrayBuffer(2 * 8),
    journal: new SharedArrayBuffer(FillJournal.bytes(MAX_LOTS, RISK_FIELDS + 2)),
    er: RecordRing.memory(ER_STRIDE, 16, true),
    fills: RecordRing.memory(FILL_STRIDE, 16, true),
  };
  const er = new RecordRing(m.er); // the exchange: every report is in the ring before the engine starts
  REPORTS.forEach(([side, price, qty], id) => {
    const off = er.claim();
    er.data[off + ER_TYPE] = ER_FILL;
    er.data[off + ER_ID] = id;
    er.data[off + ER_SIDE] = side;
    er.data[off + ER_PRICE] = price;
    er.data[off + ER_QTY] = qty;
    er.data[off + ER_FEE] = 0.35 * qty;
  });
  er.publish();
  return m;
}

class Crash extends Error {}

/** Where a thread dies: at report `report`, in `step` (0: inside apply, after the portfolio booked the fill). */
interface DeathAt {
  report: number;
  step: number;
}

/**
 * One engine thread over the shared memory: recovers (and reports it, as the engine's restart
 * alert does, unless `silent`), then books reports until none is left or it dies.
 */
function runThread(m: Memory, death?: DeathAt, silent = false): Recovery {
  const portfolio = new Portfolio(100_000, 12.5, MAX_LOTS, m.portfolio);
  const risk = new Float64Array(m.risk);
  const counters = new Float64Array(m.counters);
  const er = new RecordRing(m.er);
  const fills = new RecordRing(m.fills);
  const journal = new FillJournal(m.journal, portfolio, [risk, counters]);
  const recovery = journal.recover(er, fills);
  if (!silent) journal.reported();
  while (er.available() > 0) {
    const off = er.peek();
    const id = er.data[off + ER_ID];
    const dies = (step: number) => {
      if (death?.report === id && death.step === step) throw new Crash(`died at report ${id}, step ${step}`);
    };
    const apply = () => {
      const d = er.data;
      portfolio.onFill(d[off + ER_SIDE], d[off + ER_PRICE], d[off + ER_QTY], d[off + ER_FEE]);
      risk[0]++; // stands for the risk state a booking changes (the equity references)
      risk[1] = portfolio.position;
      counters[d[off + ER_SIDE] === BID ? 0 : 1]++;
      dies(0);
      const f = fills.claim();
      fills.data.set([id, d[off + ER_SIDE], d[off + ER_QTY], portfolio.position], f);
    };
    try {
      journal.book(er, fills, apply, dies);
    } catch (e) {
      if (e instanceof Crash) return recovery;
      throw e;
    }
  }
  return recovery;
}

/** The fill stream as the main thread reads it. */
function stream(m: Memory): number[][] {
  const r = new RecordRing(m.fills);
  const out: number[][] = [];
  for (; r.available() > 0; r.advance()) out.push(Array.from(r.data.subarray(r.peek(), r.peek() + FILL_STRIDE)));
  return out;
}

function outcome(m: Memory) {
  const p = new Portfolio(100_000, 12.5, MAX_LOTS, m.portfolio);
  return {
    position: p.position,
    realized: p.realizedPnl,
    fees: p.feesPaid,
    fills: p.fills,
    volume: p.volume,
    trades: p.trades,
    average: p.averagePrice(),
    risk: Array.from(new Float64Array(m.risk)),
    counters: Array.from(new Float64Array(m.counters)),
    reportsLeft: new RecordRing(m.er).available(),
    stream: stream(m),
  };
}

const clean = memory();
assert.is(runThread(clean), 'clean');
const reference = outcome(clean);

test('without a crash, every report is booked and its fill published once', () => {
  assert.is(reference.reportsLeft, 0);
  assert.equal(
    reference.stream.map((f) => f[0]),
    REPORTS.map((_, i) => i),
  );
  const signed = reference.stream.reduce((a, [, side, qty]) => a + (side === BID ? qty : -qty), 0);
  assert.is(reference.position, signed);
  assert.is(reference.position, 1);
  assert.equal(reference.counters, [4, 3]);
  assert.ok(reference.trades.count > 0, 'the reports close lots');
});

const expected: Record<number, Recovery> = { 0: 'rolled back', 1: 'rolled back', 2: 'completed', 3: 'completed' };
for (let report = 0; report < REPORTS.length; report++) {
  for (let step = 0; step <= 3; step++) {
    test(`a thread that dies at report ${report}, step ${step}: the next one ends exactly where one thread would`, () => {
      const m = memory();
      runThread(m, { report, step });
      assert.is(runThread(m), expected[step]);
      assert.equal(outcome(m), reference);
    });
  }
}

test('a thread that dies after recovering from its predecessor is recovered from in turn', () => {
  const m = memory();
  runThread(m, { report: 3, step: 2 });
  runThread(m, { report: 4, step: 0 });
  assert.is(runThread(m), 'rolled back');
  assert.equal(outcome(m), reference);
});

/** A thread that recovers and is terminated before it reports (before its restart alert). */
function recoverOnly(m: Memory): Recovery {
  const journal = new FillJournal(m.journal, new Portfolio(100_000, 12.5, MAX_LOTS, m.portfolio), [new Float64Array(m.risk), new Float64Array(m.counters)]);
  return journal.recover(new RecordRing(m.er), new RecordRing(m.fills));
}

test('a recovery stays unreported until a thread reports it: one terminated first passes it on', () => {
  const m = memory();
  runThread(m, { report: 2, step: 1 });
  assert.is(recoverOnly(m), 'rolled back');
  assert.is(runThread(m), 'rolled back', 'the next thread reports what the terminated one did');
  assert.equal(outcome(m), reference);
  assert.is(recoverOnly(m), 'clean', 'reported once');
});

test.run();
