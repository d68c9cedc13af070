// With the profile's continuousPath the synthetic market is one price path across days: each
// session opens where the daily path says and closes at the path's close, the next one opens at
// that close plus the overnight gap, a window of a day sees the same efficient price as the
// whole session, and a session's result is the same run alone or in a multi-day run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EV_STRIDE } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest, type SessionExecutor } from '../../../src/backtest/run.ts';
import { runSession } from '../../../src/backtest/session.ts';
import type { EngineConfig } from '../../../src/config/schema.ts';
import { dailyPath } from '../../../src/market/daily-path.ts';
import { MarketGenerator } from '../../../src/market/generator.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { profileFor } from '../../../src/market/profiles.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const ES = contractForRoot('ES');
const H = 3600e9;
const ON = { continuousPath: true };
const path = dailyPath(ES, profileFor(ES, ON), 42);

/** Runs a window of a day to its end; the first and last mid of its book and the efficient price at the end. */
function window(date: string, startNs: number, endNs: number, profile = ON): { open: number; close: number; v: number } {
  const gen = new MarketGenerator(ES, date, 42, { sessionStartNs: startNs, sessionEndNs: endNs, profile });
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 14, false);
  const open = gen.startPriceTicks + 0.5; // the opening book's touch: startPriceTicks / + 1
  while (!gen.done) {
    ring.advance(gen.generate(ring, 4096));
    ring.release();
  }
  return { open, close: gen.book.mid(), v: gen.efficientPrice };
}

test('sessions open at the path, close at it, and the next opens at that close plus the overnight gap', () => {
  const dates = ['2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05', '2024-01-08'];
  let prevClose = Number.NaN;
  for (const date of dates) {
    const i = path.dayIndex(date);
    const open = window(date, 9.5 * H, 9.5 * H + 60e9).open;
    const close = window(date, 16 * H - 60e9, 16 * H).close;
    assert.ok(Math.abs(open - path.openTicks[i]) <= 1, `${date}: opens at ${open} ticks, the path at ${path.openTicks[i]}`);
    assert.ok(Math.abs(close - path.closeTicks[i]) <= 4, `${date}: closes at ${close} ticks, the path at ${path.closeTicks[i]}`);
    if (prevClose === prevClose) {
      const gapTicks = path.openTicks[i] - path.closeTicks[i - 1];
      assert.ok(Math.abs(open - prevClose - gapTicks) <= 5, `${date}: ${open - prevClose} ticks from the last close, the gap is ${gapTicks}`);
    }
    prevClose = close;
  }
});

test("a window of the day sees the whole session's efficient price; without the flag it opens anywhere in the range", () => {
  const date = '2024-03-15';
  const whole = window(date, 9.5 * H, 11.5 * H);
  const part = window(date, 11 * H, 11.5 * H);
  assert.is(part.v, whole.v, 'the efficient price at 11:30');
  const at11 = window(date, 9.5 * H, 11 * H).v;
  assert.ok(Math.abs(part.open - at11) <= 1, `the window opens at ${part.open} ticks, the whole session's efficient price at 11:00 is ${at11}`);
  const off = window(date, 9.5 * H, 9.5 * H + 1e9, { continuousPath: false });
  const i = path.dayIndex(date);
  assert.ok(Math.abs(off.open - path.openTicks[i]) > 4, 'the default market does not follow the path');
});

/** Sessions with the continuous path (the executor builds each session's generator with it). */
const continuousExecutor: SessionExecutor = {
  parallel: true,
  threads: 2,
  run: async (spec) =>
    runSession(spec, {
      source: new MarketGenerator(ES, spec.date, spec.seed, {
        sessionStartNs: spec.sessionStartNs,
        sessionEndNs: spec.sessionEndNs,
        activity: spec.activity,
        profile: ON,
      }),
    }),
};

function config(): EngineConfig {
  const c = shippedConfigNoModel();
  c.simulation.session_start = '15:57';
  c.simulation.session_end = '16:00';
  return c;
}

async function run(startDate: string, endDate: string) {
  const c = config();
  const v = validateBacktestRequest({ symbol: 'ES', startDate, endDate, seed: 42 }, c);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return (await runBacktest(v.request, c, { executor: continuousExecutor })).result;
}

test('a backtest: each session closes at the path, and a session alone equals the same session in a multi-day run', async () => {
  const multi = await run('2024-01-02', '2024-01-04');
  const alone = await run('2024-01-03', '2024-01-03');
  assert.is(multi.session_results.length, 3);
  for (const s of multi.session_results) {
    const i = path.dayIndex(s.date);
    assert.ok(s.open_mid !== null && s.close_mid !== null, s.date);
    assert.ok(
      Math.abs((s.close_mid as number) / ES.tickSize - path.closeTicks[i]) <= 4,
      `${s.date}: close_mid ${s.close_mid}, path ${path.closeTicks[i] * ES.tickSize}`,
    );
    assert.is(s.close_mid, s.final_mid);
  }
  assert.equal(alone.session_results[0], multi.session_results[1]);
});

test.run();
