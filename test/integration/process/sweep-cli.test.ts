// The sweep CLI as users run it: node dist/engine.js --sweep KEY=VALUES ... --out FILE.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir, writeConfig } from '../../helpers/cli.ts';

const SHORT = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "09:50"
`);
const DAY = ['--config', SHORT, '--start', '2024-01-02', '--end', '2024-01-02'];

test('the same sweep gives byte-identical --out and table; points in grid order; a point equals the single backtest', () => {
  const dir = tempDir();
  const args = (out: string) => ['--sweep', 'spread_multiplier=1,1.5', '--sweep', 'skew_factor=0.5', ...DAY, '--out', join(dir, out)];
  const a = runCli(args('a.json'));
  const b = runCli(args('b.json'));
  assert.is(a.code, 0, a.stderr);
  assert.is(b.code, 0, b.stderr);
  const text = readFileSync(join(dir, 'a.json'), 'utf8');
  assert.is(text, readFileSync(join(dir, 'b.json'), 'utf8'));
  assert.is(a.stdout, b.stdout);
  assert.match(
    a.stdout,
    /^Sweep: 2 points, ranked by total P&L; 1 of 2 points never traded \(no fill: listed last, unranked\)\n\s+rank\s+spread_multiplier\s+skew_factor\s+P&L\s+Sharpe/,
  );
  const doc = JSON.parse(text);
  assert.equal(
    doc.points.map((p: { params: unknown }) => p.params),
    [
      { spread_multiplier: 1, skew_factor: 0.5 },
      { spread_multiplier: 1.5, skew_factor: 0.5 },
    ],
  );
  // spread_multiplier 1 and skew_factor 0.5 are the config defaults: the point is the plain backtest.
  const single = runCli(['--backtest', '--json', ...DAY]);
  assert.is(single.code, 0, single.stderr);
  const r = JSON.parse(single.stdout);
  const p = doc.points[0].result;
  for (const k of ['total_pnl', 'sharpe_ratio', 'max_drawdown_pct', 'total_fills', 'fees', 'markouts', 'sessions']) assert.equal(p[k], r[k], k);
  assert.ok(p.total_fills > 0, 'the default point trades');
  assert.is.not(doc.points[1].result.total_fills, p.total_fills, 'a wider spread changes the fills');
});

test('the table: untraded points listed last and unranked; kill-switch trips shown; CSV rank empty for them', () => {
  const dir = tempDir();
  // spread_multiplier 1.5 never fills on the synthetic market; a 0.01 % drawdown limit trips at once.
  const args = (out: string) => ['--sweep', 'spread_multiplier=1.5,1', '--sweep', 'max_drawdown_pct=0.0001,0.5', ...DAY, '--out', join(dir, out)];
  const r = runCli(args('t.csv'));
  assert.is(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^Sweep: 4 points, ranked by total P&L; 2 of 4 points never traded \(no fill: listed last, unranked\); 1 stopped by the kill switch\n/,
  );
  const rows = r.stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/));
  assert.is(rows[0].at(-1), 'switch', 'the last column is "kill switch"');
  // rank, the two parameters, P&L, Sharpe, max DD %, fills, ...
  const FILLS = 6;
  const body = rows.slice(1);
  assert.equal(
    body.map((c) => c[0]),
    ['1', '2', '-', '-'],
    'the two traded points ranked, then the two that never traded',
  );
  assert.equal(
    body.slice(2).map((c) => c[1]),
    ['1.5', '1.5'],
  );
  assert.ok(body.slice(2).every((c) => c[FILLS] === '0'));
  assert.ok(body.slice(0, 2).every((c) => Number(c[FILLS]) > 0));
  const tripped = body.filter((c) => c.at(-1) === 'TRIPPED');
  assert.is(tripped.length, 1);
  assert.equal(tripped[0].slice(1, 3), ['1', '0.0001']);
  const csv = readFileSync(join(dir, 't.csv'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => l.split(','));
  const rank = csv[0].indexOf('rank');
  assert.equal(
    csv.slice(1).map((c) => [c[0], c[rank]]),
    [
      ['1.5', ''],
      ['1.5', ''],
      ['1', csv.slice(1)[2][rank]],
      ['1', csv.slice(1)[3][rank]],
    ],
  );
  assert.equal(
    csv
      .slice(3)
      .map((c) => c[rank])
      .sort(),
    ['1', '2'],
  );
});

test('--out FILE.csv: one row per point in grid order, numbers as in the JSON', () => {
  const dir = tempDir();
  const args = (out: string) => ['--sweep', 'skew_factor=0:1:0.5', ...DAY, '--out', join(dir, out)];
  assert.is(runCli(args('s.csv')).code, 0);
  assert.is(runCli(args('s.json')).code, 0);
  const lines = readFileSync(join(dir, 's.csv'), 'utf8').trimEnd().split('\n');
  const head = lines[0].split(',');
  assert.equal(head.slice(0, 8), ['skew_factor', 'rank', 'sessions', 'total_pnl', 'sharpe_ratio', 'max_drawdown_pct', 'total_fills', 'fees']);
  const doc = JSON.parse(readFileSync(join(dir, 's.json'), 'utf8'));
  assert.is(lines.length, 4);
  lines.slice(1).forEach((line, i) => {
    const cells = line.split(',');
    assert.is(Number(cells[0]), [0, 0.5, 1][i]);
    assert.is(cells[head.indexOf('total_pnl')], String(doc.points[i].result.total_pnl));
    assert.is(cells[head.indexOf('markout_1s_ticks')], String(doc.points[i].result.markouts['1s'].avg_ticks ?? ''));
  });
  const ranks = lines
    .slice(1)
    .map((l) => Number(l.split(',')[1]))
    .sort();
  assert.equal(ranks, [1, 2, 3]);
});

test('--holdout-days: ranks on the earlier sessions, runs the best on the later ones', () => {
  const dir = tempDir();
  const out = join(dir, 'h.json');
  const r = runCli([
    '--sweep',
    'spread_multiplier=1,3',
    '--config',
    SHORT,
    '--start',
    '2024-01-02',
    '--end',
    '2024-01-03',
    '--holdout-days',
    '1',
    '--out',
    out,
  ]);
  assert.is(r.code, 0, r.stderr);
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  assert.is(doc.points[0].result.sessions, 1);
  assert.is(doc.holdout.rank_end_date, '2024-01-02');
  assert.is(doc.holdout.start_date, '2024-01-03');
  assert.is(doc.holdout.points.length, 2);
  assert.equal(
    doc.holdout.points.map((p: { rank: number }) => p.rank),
    [1, 2],
  );
  const best = doc.holdout.points[0];
  assert.equal(best.params, doc.points[best.grid_index].params);
  // spread_multiplier 3 never trades: it follows the point that traded, whatever their P&L.
  assert.equal(
    doc.holdout.points.map((p: { params: { spread_multiplier: number } }) => p.params.spread_multiplier),
    [1, 3],
  );
  assert.ok(doc.points[best.grid_index].result.total_fills > 0 && doc.points[doc.holdout.points[1].grid_index].result.total_fills === 0);
  assert.match(r.stdout, /Holdout 2024-01-03\.\.2024-01-03 \(ranked on 2024-01-02\.\.2024-01-02\)/);
});

test('usage errors exit 2 before anything runs and name the key and value', () => {
  const bad = runCli(['--sweep', 'spread_multiplier=1,0', ...DAY]);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /error: --sweep spread_multiplier: expected a number > 0, got 0/);
  const unknown = runCli(['--sweep', 'spread=1', ...DAY]);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown sweep key "spread"/);
  const hold = runCli(['--sweep', 'skew_factor=1', ...DAY, '--holdout-days', '1']);
  assert.is(hold.code, 2);
  assert.match(hold.stderr, /--holdout-days: 1 holdout days leave no session to rank on/);
  const noSweep = runCli(['--backtest', '--out', 'x.json']);
  assert.is(noSweep.code, 2);
  assert.match(noSweep.stderr, /--out only applies with --sweep/);
  const ext = runCli(['--sweep', 'skew_factor=1', '--out', 'x.txt']);
  assert.is(ext.code, 2);
  assert.match(ext.stderr, /--out "x.txt": expected a file name ending in .json or .csv/);
});

test.run();
