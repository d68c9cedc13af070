// Exactly-once booking of execution reports across a crash of the engine thread (simulation
// mode). Booking one report changes the shared portfolio, risk state and counters, writes the fill to the
// fills ring (the stream clients see) and releases the report from its ring. A thread terminated
// between two of those steps (a kill, a missed heartbeat) used to lose the fill from the stream
// or book it twice; the position then no longer was the sum of the fills clients had seen.
//
// So a booking is a small transaction in shared memory:
//   begin   the undo image (portfolio, risk state, counters) is saved and the journal marked open;
//   apply   the engine books the report; its fill records are written but not published;
//   commit  the journal is marked committed, with the report's sequence and the fills ring's head;
//   then    the fills are published and the report released.
// A new engine thread recovers before it reads anything: an open journal is rolled back (the
// report is still in its ring and gets booked again); a committed one has its publish and
// release redone, which is idempotent. What it did stays recorded until a thread reports it (its
// ENGINE_RESTART alert): a thread can be terminated after recovering and before it reports.

import type { RecordRing } from '../core/ring.ts';
import { Portfolio } from '../portfolio/portfolio.ts';

const STATE = 0; // EMPTY, OPEN or COMMITTED
const ER_SEQ = 1; // sequence of the report in its ring
const FILLS_HEAD = 2; // the fills ring's head once this booking's fills are published
const UNREPORTED = 3; // what the last recovery did, as an index of RECOVERIES, until reported (0)
const IMAGE = 4; // undo image: the state arrays, then the portfolio
const EMPTY = 0;
const OPEN = 1;
const COMMITTED = 2;

/** What a recovery did (recover(): the last one not yet reported). */
export type Recovery = 'clean' | 'rolled back' | 'completed';
const RECOVERIES: readonly Recovery[] = ['clean', 'rolled back', 'completed'];

export class FillJournal {
  private readonly j: Float64Array;
  private readonly portfolio: Portfolio;
  /** The other shared state a booking changes (risk state, counters), one array after another. */
  private readonly state: Float64Array[];
  private readonly portfolioUndo: Float64Array;

  /** Bytes of memory for a portfolio of `maxLots` and `stateDoubles` doubles of other state. */
  static bytes(maxLots: number, stateDoubles: number): number {
    return (IMAGE + stateDoubles + Portfolio.stateDoubles(maxLots)) * 8;
  }

  /** `memory`: FillJournal.bytes() of zeroed memory that outlives the thread (a SharedArrayBuffer). */
  constructor(memory: SharedArrayBuffer | ArrayBuffer, portfolio: Portfolio, state: Float64Array[]) {
    const doubles = state.reduce((n, a) => n + a.length, 0);
    if (memory.byteLength < (IMAGE + doubles + portfolio.stateSize) * 8) throw new Error('fill journal: memory too small');
    this.j = new Float64Array(memory);
    this.portfolio = portfolio;
    this.state = state;
    this.portfolioUndo = this.j.subarray(IMAGE + doubles);
  }

  /**
   * Books the report at the head of `er`: `apply` books it in the engine and writes its fill
   * records into `fills` without publishing them. `fault(step)` is a test hook between steps.
   */
  book(er: RecordRing, fills: RecordRing, apply: () => void, fault?: (step: number) => void): void {
    const j = this.j;
    j[STATE] = EMPTY; // the undo image is being replaced
    let at = IMAGE;
    const state = this.state;
    for (let i = 0; i < state.length; i++) {
      const a = state[i];
      for (let k = 0; k < a.length; k++) j[at++] = a[k]; // a loop: set() costs more for a few doubles
    }
    this.portfolio.saveState(this.portfolioUndo);
    j[ER_SEQ] = er.readSeq;
    j[STATE] = OPEN;
    apply();
    fault?.(1);
    j[FILLS_HEAD] = fills.writeSeq;
    j[STATE] = COMMITTED;
    fault?.(2);
    fills.publish();
    fault?.(3);
    er.advance();
    er.release();
  }

  /**
   * Finishes or undoes the booking a dead thread left; call before reading either ring. Returns
   * what the last recovery did that no thread has reported yet (see reported()).
   */
  recover(er: RecordRing, fills: RecordRing): Recovery {
    const did = this.recoverBooking(er, fills);
    if (did !== 'clean') this.j[UNREPORTED] = RECOVERIES.indexOf(did);
    return RECOVERIES[this.j[UNREPORTED]];
  }

  /** The recovery recover() returned has been reported. */
  reported(): void {
    this.j[UNREPORTED] = 0;
  }

  private recoverBooking(er: RecordRing, fills: RecordRing): Recovery {
    const j = this.j;
    if (j[STATE] === OPEN) {
      let at = IMAGE;
      for (const a of this.state) {
        a.set(j.subarray(at, at + a.length));
        at += a.length;
      }
      this.portfolio.restoreState(this.portfolioUndo);
      j[STATE] = EMPTY;
      return 'rolled back';
    }
    if (j[STATE] !== COMMITTED) return 'clean';
    let done: Recovery = 'clean';
    const unpublished = (j[FILLS_HEAD] - fills.writeSeq) | 0; // written before the commit
    if (unpublished > 0 && unpublished <= fills.capacity) {
      fills.publishThrough(j[FILLS_HEAD]);
      done = 'completed';
    }
    if (er.readSeq === j[ER_SEQ]) {
      er.advance(); // booked, not yet released
      er.release();
      done = 'completed';
    }
    return done;
  }
}
