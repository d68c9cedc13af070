// Sessions come from the data: one per CME trade date the records hold (a Globex evening belongs
// to the next date), windowed by the data, filtered by --start/--end and optionally clipped to
// regular hours; test/integration/sessions/dbn-replay-trade-dates.test.ts has files cut at 00:00 UTC as Databento's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { sessionMidnightUnixNs } from '../../../src/market/dbn-time.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { planReplay } from '../../../src/market/replay/dataset.ts';
import { tradeDateOf } from '../../../src/market/replay/replay-spec.ts';

const dir = mkdtempSync(join(tmpdir(), 'dbn-replay-dataset-'));
const H = 3600e9;
const M = 60e9;
const at = (h: number, m = 0) => h * H + m * M;
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('the trade date of a record: it rolls at the daily close, 16:00 Chicago (17:00 New York)', () => {
  const midnight = sessionMidnightUnixNs('2024-03-05');
  assert.is(tradeDateOf(midnight + BigInt(at(9, 30))), '2024-03-05');
  assert.is(tradeDateOf(midnight + BigInt(at(16, 59))), '2024-03-05');
  assert.is(tradeDateOf(midnight + BigInt(at(17))), '2024-03-06'); // 17:00 New York: the pre-open of the next date
  assert.is(tradeDateOf(midnight - BigInt(at(5))), '2024-03-05'); // 19:00 the evening before
  // A weekend's and a holiday's trading belong to the next trade date.
  assert.is(tradeDateOf(sessionMidnightUnixNs('2024-03-08') + BigInt(at(17))), '2024-03-11'); // Friday evening
  assert.is(tradeDateOf(sessionMidnightUnixNs('2024-03-10') + BigInt(at(18))), '2024-03-11'); // Sunday's open
  assert.is(tradeDateOf(sessionMidnightUnixNs('2023-12-25') + BigInt(at(18))), '2023-12-26'); // Christmas evening
});

test('a directory of daily files: one session each, in date order, filtered and clipped', async () => {
  const days = join(dir, 'es');
  mkdirSync(days);
  // 2024-03-06 from 09:00 to 09:40, 2024-03-05 from 09:20 to 09:50 (written in reverse name order)
  for (const [date, from, to] of [['2024-03-06', at(9), at(9, 40)], ['2024-03-05', at(9, 20), at(9, 50)]] as const) {
    await exportSynthetic(join(days, `glbx-${date}.mbo.dbn.zst`), [{ date, rawSymbol: 'ESH4', spec: contractForRoot('ES'), seed: 1, sessionStartNs: from, sessionEndNs: to, activity: 0.05 }], {
      schema: 'mbo',
      marketDataLatencyNs: 50_000,
      maxEventsPerSession: 200,
    });
  }
  const all = planReplay(days);
  assert.is(all.root, 'ES');
  assert.is(all.schema, 'mbo');
  assert.equal(all.sessions.map((s) => [s.date, s.sessionStartNs, s.sessionEndNs, s.replay.symbol]), [
    ['2024-03-05', at(9, 20), at(9, 50), 'ESH4'],
    ['2024-03-06', at(9), at(9, 40), 'ESH4'],
  ]);
  assert.equal(planReplay(days, { startDate: '2024-03-06' }).sessions.map((s) => s.date), ['2024-03-06']);
  assert.equal(planReplay(days, { endDate: '2024-03-05' }).sessions.map((s) => s.date), ['2024-03-05']);
  const rth = planReplay(days, { regularHoursOnly: true });
  assert.equal(rth.sessions.map((s) => [s.sessionStartNs, s.sessionEndNs]), [[at(9, 30), at(9, 50)], [at(9, 30), at(9, 40)]]);
  assert.throws(() => planReplay(days, { symbol: 'NQ' }), /no NQ in the file \(it holds ESH4\)/);
});

test.run();
