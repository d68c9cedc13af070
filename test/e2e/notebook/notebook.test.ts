// The example notebook (examples/notebooks/compare-runs.ipynb) executed as a user would, with
// Debian's jupyter-nbconvert and its kernel under /usr/bin/python3 (another python3 may come first
// on the PATH), on two short runs made here: it runs without an error, draws its charts, and its
// figures are the runs' own (fills, contracts, fees, P&L against each run's --json result).
// docs/backtests.md's pandas-only CSV snippet runs on the same exports. Like the browser tests with
// chromium, a missing Debian package fails here (.ci/run installs them), never skips.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDir, writeConfig } from '../../helpers/cli.ts';

const PY = '/usr/bin/python3';
const NBCONVERT = '/usr/bin/jupyter-nbconvert';
const NOTEBOOK = join(ROOT, 'examples', 'notebooks', 'compare-runs.ipynb');
const CONFIG = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "09:45"
`);
const dir = tempDir('notebook-');

function prerequisites(): string[] {
  const missing: string[] = [];
  if (!existsSync(NBCONVERT)) missing.push('jupyter-nbconvert');
  for (const [mod, pkg] of [
    ['ipykernel', 'python3-ipykernel'],
    ['pandas', 'python3-pandas'],
    ['matplotlib', 'python3-matplotlib'],
  ]) {
    if (spawnSync(PY, ['-c', `import ${mod}`]).status !== 0) missing.push(pkg);
  }
  return missing;
}

/** One run's exports and --json result in dir/NAME. */
function makeRun(name: string, seed: string): Record<string, any> {
  const d = join(dir, name);
  mkdirSync(d);
  const r = runCli([
    '--backtest',
    '--config',
    CONFIG,
    '--start',
    '2024-01-02',
    '--end',
    '2024-01-03',
    '--seed',
    seed,
    '--json',
    '--fills',
    join(d, 'fills.csv'),
    '--equity',
    join(d, 'equity.csv'),
  ]);
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('.ci/run installs what the notebook needs', () => {
  const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
  for (const pkg of ['jupyter-nbconvert', 'python3-ipykernel', 'python3-pandas', 'python3-matplotlib']) assert.match(ci, `need+=(${pkg})`);
});

test('the notebook runs on two short runs and reports their own figures', () => {
  const missing = prerequisites();
  assert.equal(missing, [], `install the Debian packages ${missing.join(' ')} (apt-get install; .ci/run does)`);
  const results = { A: makeRun('run-a', '1'), B: makeRun('run-b', '2') };
  const r = spawnSync(
    NBCONVERT,
    ['--to', 'notebook', '--execute', NOTEBOOK, '--output-dir', dir, '--output', 'executed.ipynb', '--ExecutePreprocessor.timeout=600'],
    {
      encoding: 'utf8',
      cwd: dir,
      env: { ...process.env, RUN_A: join(dir, 'run-a'), RUN_B: join(dir, 'run-b'), PYDEVD_DISABLE_FILE_VALIDATION: '1' },
      timeout: 900_000,
    },
  );
  assert.is(r.status, 0, r.stderr);
  const nb = JSON.parse(readFileSync(join(dir, 'executed.ipynb'), 'utf8'));
  const outputs = nb.cells.flatMap((c: { outputs?: unknown[] }) => c.outputs ?? []) as {
    output_type: string;
    text?: string | string[];
    data?: Record<string, unknown>;
  }[];
  assert.not.ok(
    outputs.some((o) => o.output_type === 'error'),
    'no cell raised',
  );
  const text = outputs.map((o) => (Array.isArray(o.text) ? o.text.join('') : (o.text ?? ''))).join('');
  assert.match(text, `python ${PY},`, 'the kernel ran under /usr/bin/python3');
  const images = outputs.filter((o) => o.data && 'image/png' in o.data).length;
  assert.ok(images >= 3, `equity/drawdown, markouts by hour and the comparison charts: ${images} images`);
  const line = text.split('\n').find((l) => l.startsWith('{"A"'));
  assert.ok(line, 'the summary line');
  const summary = JSON.parse(line!);
  for (const k of ['A', 'B'] as const) {
    const res = results[k];
    const s = summary[k];
    assert.is(s.fills, res.total_fills, `run ${k} fills`);
    assert.is(s.contracts, res.volume, `run ${k} contracts`);
    assert.ok(Math.abs(s.fees_usd - res.fees) < 1e-6, `run ${k} fees ${s.fees_usd} vs ${res.fees}`);
    assert.ok(Math.abs(s.pnl_usd - res.total_pnl) < 0.01, `run ${k} P&L ${s.pnl_usd} vs ${res.total_pnl}`);
    assert.ok(Math.abs(s.markout_1s - res.markouts['1s'].avg_ticks) < 1e-9, `run ${k} markout 1s`);
  }
});

test("docs/backtests.md's pandas-only CSV snippet runs on a run's exports", () => {
  assert.equal(prerequisites(), []);
  const readme = readFileSync(join(ROOT, 'docs/backtests.md'), 'utf8');
  const at = readme.indexOf('CSV needs pandas alone');
  assert.ok(at >= 0, 'docs/backtests.md has the CSV snippet');
  const start = readme.indexOf('```python\n', at) + '```python\n'.length;
  const snippet = readme.slice(start, readme.indexOf('```', start));
  assert.match(snippet, 'read_csv');
  assert.not.match(snippet, /parquet|polars/);
  const d = join(dir, 'run-a');
  if (!existsSync(join(d, 'fills.csv'))) makeRun('run-a', '1');
  writeFileSync(join(dir, 'snippet.py'), snippet);
  const r = spawnSync(PY, [join(dir, 'snippet.py')], { cwd: d, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, 'markout_1s');
  assert.match(r.stdout, '2024-01-02');
});

test.run();
