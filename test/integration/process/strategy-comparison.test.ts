// scripts/compare-strategies.ts through its CLI, on a tiny comparison (one root, one tuning and
// one held-out session, each the first 15 minutes of the day): it writes the JSON, its figures
// equal the engine's own `--backtest` of the same request, `--data` compares on a DBN export of
// the synthetic market, and bad flags exit 2 saying what was expected.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureBuilt } from '../../helpers/build.ts';
import { ROOT, runCli, tempDir, writeConfig } from '../../helpers/cli.ts';

const CONFIG = writeConfig('[backtest]\npool_size = 2\n');
const SCRIPT = join(ROOT, 'scripts', 'compare-strategies.ts');
const TINY = ['--config', CONFIG, '--tune-seeds', '1', '--tune-dates', '2024-01-08', '--tune-to', '09:45', '--seeds', '11'];

function compare(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

interface Doc {
  held_out: { seeds: number[]; dates: string[] };
  roots_with_model: string[];
  rows: {
    root: string;
    variant: string;
    chosen_by: string;
    chosen: Record<string, unknown>;
    cli: string;
    sessions: {
      seed: number;
      date: string;
      total_pnl: number;
      total_fills: number;
      fees: number;
      max_drawdown_pct: number;
      markouts: Record<string, unknown>;
      kill_switch_tripped: boolean;
    }[];
    summary: { pnl_mean: number; fills: number };
  }[];
}

const readDoc = (dir: string): Doc => JSON.parse(readFileSync(join(dir, 'strategy-comparison.json'), 'utf8'));

/** The engine CLI's --backtest of a row's held-out session, from the command the row records. */
function direct(cli: string, seed: number, date: string) {
  const args = cli.replace('SEED', String(seed)).replaceAll('DATE', date).split(' ').slice(2);
  const r = runCli(args);
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test.before(() => ensureBuilt());

let tiny = '';

test('a tiny comparison writes the JSON, and its figures equal a direct --backtest of the same request', () => {
  const out = tempDir('compare-');
  tiny = join(out, 'strategy-comparison.json');
  const r = compare([...TINY, '--to', '09:45', '--roots', 'ES', '--dates', '2024-02-05', '--strategies', 'glft,no_trading', '--out', out]);
  assert.is(r.code, 0, r.stderr);
  const doc = readDoc(out);
  assert.equal(doc.held_out, { seeds: [11], dates: ['2024-02-05'] });
  assert.equal(
    doc.rows.map((x) => [x.root, x.variant, x.chosen_by]),
    [
      ['ES', 'glft', 'tuning'],
      ['ES', 'no_trading', 'none'],
    ],
  );
  assert.match(r.stdout, /\| ES \| glft \|/);
  const csv = readFileSync(join(out, 'strategy-comparison.csv'), 'utf8').trim().split('\n');
  assert.is(csv.length, 3);
  for (const row of doc.rows) {
    const s = row.sessions[0];
    const b = direct(row.cli, s.seed, s.date);
    assert.equal(
      [s.total_pnl, s.total_fills, s.fees, s.max_drawdown_pct, s.markouts, s.kill_switch_tripped],
      [b.total_pnl, b.total_fills, b.fees, b.max_drawdown_pct, b.markouts, b.kill_switch.tripped],
      row.variant,
    );
  }
  const glft = doc.rows[0].sessions[0];
  assert.ok(glft.total_fills > 0, 'the glft session traded: the equality is not one of zeros');
  assert.equal([doc.rows[1].summary.pnl_mean, doc.rows[1].summary.fills], [0, 0]);
});

// The recorded days are replayed whole (as --backtest --data does): the parameters come from the
// tiny run's JSON (--params) rather than a tuning on whole synthetic days.
test('--data: the comparison on a DBN export of the synthetic market', () => {
  const dir = tempDir('compare-data-');
  const file = join(dir, 'es.dbn.zst');
  const ex = runCli([
    '--config',
    CONFIG,
    '--export-dbn',
    file,
    '--symbol',
    'ES',
    '--start',
    '2024-02-05',
    '--end',
    '2024-02-05',
    '--seed',
    '11',
    '--to',
    '09:45',
  ]);
  assert.is(ex.code, 0, ex.stderr);
  const out = join(dir, 'out');
  const r = compare([...TINY, '--data', file, '--params', tiny, '--strategies', 'glft', '--out', out]);
  assert.is(r.code, 0, r.stderr);
  const doc = readDoc(out);
  assert.equal(doc.held_out.dates, ['2024-02-05']);
  const row = doc.rows[0];
  const tuned = JSON.parse(readFileSync(tiny, 'utf8')).rows[0];
  assert.equal([row.root, row.variant, row.chosen], ['ES', 'glft', tuned.chosen]);
  assert.match(row.cli, /--data /);
  const s = row.sessions[0];
  const b = direct(row.cli, s.seed, s.date);
  assert.is(b.data_source.startsWith('dbn '), true, b.data_source);
  assert.equal([s.total_pnl, s.total_fills, s.fees, s.markouts], [b.total_pnl, b.total_fills, b.fees, b.markouts]);
  assert.ok(s.total_fills > 0, 'the replayed session traded');
});

test('bad flags exit 2 with a clear message', () => {
  const cases: [string[], RegExp][] = [
    [['--bogus'], /error: Unknown option '--bogus'/],
    [['--seeds', '1,x'], /error: --seeds: "x" is not a seed: expected an integer 0\.\.4294967295/],
    [['--dates', '2024-13-01'], /error: --dates: "2024-13-01" is not a date: expected YYYY-MM-DD/],
    [['--strategies', 'glft,foo'], /error: --strategies: unknown strategy "foo"/],
    [['--roots', 'ZZ'], /error: symbol: unknown contract 'ZZ'/],
    [['--tune-seeds', '11'], /error: the held-out sessions must be other seeds and other days than the tuning's: 11/],
    [['--data', '/nonexistent/x.dbn.zst'], /error: data: .*\/nonexistent\/x\.dbn\.zst/],
    [['--data', '/x.dbn', '--roots', 'ES'], /error: --data: not with --roots/],
    [['--data', '/x.dbn', '--to', '09:45'], /error: --to applies to the synthetic market: not with --data/],
    [['--params', '/nonexistent.json'], /error: --params \/nonexistent\.json: ENOENT/],
  ];
  for (const [args, want] of cases) {
    const r = compare(['--config', CONFIG, ...args]);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, want, args.join(' '));
  }
});

test.run();
