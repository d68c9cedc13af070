// `--sweep ... --data PATH`: the sweep replays the recorded data (before, --data was dropped and
// the sweep ran the synthetic market): each point equals the single `--backtest --data` run with
// those parameters, figure for figure.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { ensureBuilt } from '../../helpers/build.ts';
import { runCli, writeConfig } from '../../helpers/cli.ts';

const DATA = join(import.meta.dirname, '../../fixtures', 'dbn', 'test_data.mbo.v3.dbn.zst');
const CONFIG = writeConfig('[strategy]\nskew_factor = 0.5\n[backtest]\npool_size = 1\n');

test.before(() => ensureBuilt());

test('a sweep over --data: the point with the configured values equals the --backtest --data run', () => {
  const single = runCli(['--backtest', '--json', '--config', CONFIG, '--data', DATA]);
  assert.is(single.code, 0, single.stderr);
  const r = JSON.parse(single.stdout);
  assert.is(r.data_source.startsWith('dbn '), true, r.data_source);
  const sweep = runCli(['--sweep', 'skew_factor=0.5,1', '--json', '--config', CONFIG, '--data', DATA]);
  assert.is(sweep.code, 0, sweep.stderr);
  const doc = JSON.parse(sweep.stdout);
  const p = doc.points[0].result;
  assert.equal(
    [p.sessions, p.total_pnl, p.sharpe_ratio, p.max_drawdown_pct, p.total_fills, p.fees],
    [r.sessions, r.total_pnl, r.sharpe_ratio, r.max_drawdown_pct, r.total_fills, r.fees],
  );
});

test('a sweep over a --data path that does not exist: exit 2 naming --data', () => {
  const r = runCli(['--sweep', 'skew_factor=0', '--config', CONFIG, '--data', '/nonexistent/x.dbn.zst']);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /error: --data: market data \/nonexistent\/x\.dbn\.zst: no such file or directory/);
});

test.run();
