// npm run compare-signals: the same sessions backtested with no signal, the MLP and a baseline.
// The harness is the ordinary backtest (the MLP row equals runBacktest with useML), a baseline
// really drives the quotes, and the markdown table has a row per signal.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { defaultConfig } from '../../../src/config/schema.ts';
import { compareSignals, signalsTable } from '../../../src/ml/training/compare-signals.ts';

const config = defaultConfig();
config.simulation.session_start = '09:30';
config.simulation.session_end = '09:50';
const opts = { symbol: 'ES', startDate: '2024-01-03', endDate: '2024-01-03', seeds: [7], config };

test('none, mlp and ofi on one short session: the MLP row is the useML backtest; the signals move the quotes', async () => {
  const rows = await compareSignals({ ...opts, signals: ['none', 'mlp', 'ofi'] });
  assert.equal(
    rows.map((r) => r.signal),
    ['none', 'mlp', 'ofi'],
  );
  const [none, mlp, ofi] = rows.map((r) => r.runs[0]);
  assert.is(none.predictions, 0);
  assert.ok(mlp.predictions > 50_000 && ofi.predictions === mlp.predictions, `predictions ${mlp.predictions} / ${ofi.predictions}`);
  assert.is(none.events_processed, ofi.events_processed, 'the same market');
  assert.is.not(ofi.orders_sent, none.orders_sent, 'the OFI signal moves the quotes');
  assert.is.not(ofi.orders_sent, mlp.orders_sent, 'and differently from the MLP');

  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-03', seed: 7, useML: true }, config);
  assert.ok(v.ok);
  if (!v.ok) return;
  const direct = (await runBacktest(v.request, config)).result;
  assert.is(mlp.total_pnl, direct.total_pnl);
  assert.is(mlp.total_fills, direct.total_fills);

  const table = signalsTable(rows, opts, 'test config').split('\n');
  assert.is(table[0], 'ES 2024-01-03..2024-01-03, seeds 7, config test config');
  assert.ok(table[2].startsWith('| signal | P&L seed 7 | total P&L | fills | fees | markouts'), table[2]);
  assert.is(table.filter((l) => l.startsWith('| ')).length, 4, 'header + 3 signals');
  assert.ok(
    table.some((l) => l.startsWith('| ofi | ')),
    table.join('\n'),
  );
});

async function rejects(p: Promise<unknown>, re: RegExp): Promise<void> {
  try {
    await p;
  } catch (e) {
    assert.match(String(e), re);
    return;
  }
  assert.unreachable('expected a rejection');
}

test('a bad request fails naming the field', async () => {
  await rejects(compareSignals({ ...opts, symbol: 'XX', signals: ['none'] }), /symbol: unknown contract 'XX'/);
  await rejects(compareSignals({ ...opts, endDate: '2024-01-01', signals: ['none'] }), /endDate: endDate 2024-01-01 is before startDate/);
});

test.run();
