// Feeds a calibration meter from a source: recorded DBN data (MBO or MBP-10, replayed as a
// backtest replays it, one trade date after another) or a synthetic session (tests).

import type { MarketSource } from '../source.ts';
import { eachEvent, eachEventAndRecord } from '../each-event.ts';
import { MarketGenerator } from '../generator.ts';
import type { ContractSpec } from '../instruments.ts';
import { planReplay } from '../replay/dataset.ts';
import { DbnMarketSource } from '../replay/dbn-source.ts';
import { CalibrationMeter } from './measure.ts';

export interface DataWindow {
  /** A root or month-coded symbol among the data's contracts (default: the first). */
  symbol?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  /** Clip each trade date's window to [fromNs, toNs) (ns after New York midnight), when given. */
  fromNs?: number | null;
  toNs?: number | null;
}

function drain(source: MarketSource, meter: CalibrationMeter): void {
  eachEvent(source, (ts, kind, side, price, qty) => meter.onEvent(ts, kind, side, price, qty));
}

/** Measures each trade date of a DBN file or directory; returns the meter and the data's contract. */
export function measureDbn(path: string, w: DataWindow = {}): { meter: CalibrationMeter; contract: ContractSpec; dates: string[]; schema: string } {
  const plan = planReplay(path, { symbol: w.symbol, startDate: w.startDate, endDate: w.endDate, perOrder: false });
  const meter = new CalibrationMeter();
  const dates: string[] = [];
  for (const s of plan.sessions) {
    const startNs = Math.max(s.sessionStartNs, w.fromNs ?? -Infinity);
    const endNs = Math.min(s.sessionEndNs, w.toNs ?? Infinity);
    if (!(endNs > startNs)) continue;
    const source = new DbnMarketSource(s.replay, startNs, endNs);
    meter.startSession(s.date, startNs, endNs, plan.schema === 'mbo', plan.schema === 'mbo');
    if (plan.schema === 'mbo') source.onRecord = (ts, action, size) => meter.onRecord(ts, action, size);
    try {
      drain(source, meter);
    } finally {
      source.close();
    }
    meter.endSession();
    dates.push(s.date);
  }
  if (dates.length === 0) throw new Error(`${path}: no trade date with data in the window`);
  return { meter, contract: plan.contract, dates, schema: plan.schema };
}

/**
 * Measures a synthetic session of `spec` (its profile as profileFor gives it) straight from the
 * generator, with its orders as MboFromL2 turns them into the MBO records the export writes (the
 * records recorded MBO data brings: new-order sizes, modifies).
 */
export function measureSynthetic(
  spec: ContractSpec,
  date: string,
  seed: number,
  startNs: number,
  endNs: number,
  meter = new CalibrationMeter(),
): CalibrationMeter {
  const gen = new MarketGenerator(spec, date, seed, { sessionStartNs: startNs, sessionEndNs: endNs });
  meter.startSession(date, startNs, endNs, true, true);
  eachEventAndRecord(
    gen,
    (t, kind, side, price, qty) => meter.onEvent(t, kind, side, price, qty),
    (t, action, size) => meter.onRecord(t, action, size),
  );
  meter.endSession();
  return meter;
}
