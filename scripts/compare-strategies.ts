// The strategy comparison (docs/strategy-comparison.md): the built-in strategies, with and
// without the model where it applies, and a strategy that never trades, per root. Parameters
// are chosen with the sweep tooling (src/sweep: planSweep, runSweep, rankOrder) on tuning
// sessions; the figures are those of OTHER sessions (other seeds and other days), each a
// one-day backtest run as `node dist/engine.js --backtest` runs it (runBacktest on the pool).
//
//   npm run build && npm run compare-strategies -- --out data/strategy-comparison --doc docs/strategy-comparison.md
//
// Writes OUT/strategy-comparison.json (everything, full precision: every tuning point, every
// held-out session), OUT/strategy-comparison.csv (one line per row, full precision) and
// OUT/strategy-comparison.md (the rounded tables); --doc FILE puts those tables into FILE
// between its `<!-- comparison:start -->` and `<!-- comparison:end -->` lines.

import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { Piscina } from 'piscina';
import { createBacktestPool } from '../src/backtest/run.ts';
import { modelForRequest, type ResolvedRequest, validateBacktestRequest } from '../src/backtest/request.ts';
import { withTimeWindow } from '../src/cli/time-window.ts';
import { loadConfig } from '../src/config/load.ts';
import type { EngineConfig } from '../src/config/schema.ts';
import { packageRoot } from '../src/core/paths.ts';
import { parseDate } from '../src/market/calendar.ts';
import { setUpStrategies } from '../src/strategy/setup.ts';
import { parseGrid, type SweepValue } from '../src/sweep/grid.ts';
import { type PlannedPoint, planSweep } from '../src/sweep/plan.ts';
import { runSweep, type SweepPointResult } from '../src/sweep/runner.ts';
import { rankOrder } from '../src/wire/sweep-summary.ts';
import { VERSION } from '../src/version.ts';
import { csv, markdownTable, overallTable, type Row, type SessionFigures, summarize } from './compare-strategies/summary.ts';

const NO_TRADING_FILE = join(packageRoot(), 'scripts', 'compare-strategies', 'no-trading.ts');

/** A row kind: a strategy, with or without the model, and the grid its parameters are chosen on. */
interface Variant {
  name: string;
  strategy: string;
  useML: boolean;
  /** Sweep axes (`--sweep` syntax); null: no tuning (the shipped config's values, or none to set). */
  grid: string[] | null;
  /** Held out on the first seed and day only: a row whose figures are 0 by construction, run once per root as the check that nothing else trades. */
  once?: boolean;
}

// Small on purpose (4 points each): the machine is shared. The values bracket each default.
const MM_GRID = ['params.skew_factor=0.5,2', 'params.vol_spread_factor=0.5,2'];
const VARIANTS: readonly Variant[] = [
  { name: 'market_maker (shipped, no model)', strategy: 'market_maker', useML: false, grid: null },
  { name: 'market_maker', strategy: 'market_maker', useML: false, grid: MM_GRID },
  { name: 'market_maker + model', strategy: 'market_maker', useML: true, grid: MM_GRID },
  { name: 'glft', strategy: 'glft', useML: false, grid: ['params.gamma=0.05,0.5', 'params.levels=1,3'] },
  { name: 'grid', strategy: 'grid', useML: false, grid: ['params.spacing=2,4', 'params.skew=0.1,0.5'] },
  { name: 'no_trading', strategy: 'no_trading', useML: false, grid: null, once: true },
];
const STRATEGIES = [...new Set(VARIANTS.map((v) => v.strategy))];

const DEFAULTS = {
  roots: 'ES,NQ,CL,GC,MES',
  'tune-seeds': '1,2',
  'tune-dates': '2024-01-08',
  'tune-to': '11:30',
  seeds: '11,12,13,14,15',
  dates: '2024-02-05,2024-02-06,2024-02-07,2024-02-08,2024-02-09',
};

const USAGE = `usage: node --import tsx scripts/compare-strategies.ts [options]   (npm run build first: the pool runs dist/workers)
  --roots R,R,...        roots on the synthetic market (default ${DEFAULTS.roots})
  --tune-seeds N,N,...   seeds the parameters are chosen on (default ${DEFAULTS['tune-seeds']})
  --tune-dates D,D,...   days the parameters are chosen on, YYYY-MM-DD (default ${DEFAULTS['tune-dates']})
  --tune-to HH:MM        tuning sessions end at HH:MM New York time (default ${DEFAULTS['tune-to']}: the first two hours)
  --seeds N,N,...        held-out seeds the figures come from (default ${DEFAULTS.seeds}; with --data: the first only)
  --dates D,D,...        held-out days (default ${DEFAULTS.dates}); not with --data
  --data PATH            held-out sessions: every recorded day of this DBN file or directory (one root)
  --params FILE          take the chosen parameters from an earlier run's strategy-comparison.json (no tuning)
  --strategies S,S,...   only these strategies (of ${STRATEGIES.join(', ')})
  --from HH:MM --to HH:MM  a time window within each session (as the CLI's)
  --threads N            pool threads (default [backtest] pool_size, else the CPU count)
  --config PATH          engine config (default: the engine's choice)
  --out DIR              where the JSON, CSV and markdown go (default data/strategy-comparison); OUT/sessions.jsonl
                         keeps every session's figures by request, so a rerun runs only what is new
  --fresh                ignore OUT/sessions.jsonl (after an engine change that moves results)
  --doc FILE             also put the tables into FILE between <!-- comparison:start --> and <!-- comparison:end -->`;

class UsageError extends Error {}

function list(flag: string, text: string): string[] {
  const xs = text.split(',').map((s) => s.trim());
  if (xs.some((x) => x === '')) throw new UsageError(`--${flag} ${JSON.stringify(text)}: expected a comma-separated list with no empty item`);
  if (new Set(xs).size !== xs.length) throw new UsageError(`--${flag} ${text}: an item is listed twice`);
  return xs;
}

function seeds(flag: string, text: string): number[] {
  return list(flag, text).map((s) => {
    const n = Number(s);
    if (!/^\d+$/.test(s) || n > 4294967295) throw new UsageError(`--${flag}: ${JSON.stringify(s)} is not a seed: expected an integer 0..4294967295`);
    return n;
  });
}

function dates(flag: string, text: string): string[] {
  return list(flag, text).map((d) => {
    if (!parseDate(d)) throw new UsageError(`--${flag}: ${JSON.stringify(d)} is not a date: expected YYYY-MM-DD`);
    return d;
  });
}

interface Options {
  roots: string[];
  tuneSeeds: number[];
  tuneDates: string[];
  tuneTo: string;
  fresh: boolean;
  seeds: number[];
  dates: string[];
  data: string | null;
  params: string | null;
  variants: Variant[];
  from?: string;
  to?: string;
  threads: number | null;
  config?: string;
  out: string;
  doc: string | null;
}

function parseOptions(argv: string[]): Options {
  let v: ReturnType<typeof parse>['values'];
  function parse() {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        roots: { type: 'string' },
        'tune-seeds': { type: 'string' },
        'tune-dates': { type: 'string' },
        'tune-to': { type: 'string' },
        fresh: { type: 'boolean' },
        seeds: { type: 'string' },
        dates: { type: 'string' },
        data: { type: 'string' },
        params: { type: 'string' },
        strategies: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        threads: { type: 'string' },
        config: { type: 'string' },
        out: { type: 'string' },
        doc: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  }
  try {
    v = parse().values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (v.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (v.data !== undefined && (v.roots !== undefined || v.dates !== undefined)) {
    throw new UsageError(`--data: not with --${v.roots !== undefined ? 'roots' : 'dates'} (the root and the days are the data's)`);
  }
  // As the engine's --backtest: recorded days are replayed whole (export the window you want).
  if (v.data !== undefined && (v.from !== undefined || v.to !== undefined))
    throw new UsageError(`--${v.from !== undefined ? 'from' : 'to'} applies to the synthetic market: not with --data`);
  const wanted = v.strategies === undefined ? STRATEGIES : list('strategies', v.strategies);
  for (const s of wanted)
    if (!STRATEGIES.includes(s)) throw new UsageError(`--strategies: unknown strategy ${JSON.stringify(s)}: expected some of ${STRATEGIES.join(', ')}`);
  let threads: number | null = null;
  if (v.threads !== undefined) {
    threads = Number(v.threads);
    if (!/^\d+$/.test(v.threads) || threads < 1 || threads > 256) throw new UsageError(`--threads ${JSON.stringify(v.threads)}: expected an integer 1..256`);
  }
  const heldSeeds = seeds('seeds', v.seeds ?? DEFAULTS.seeds);
  return {
    roots: list('roots', (v.roots ?? DEFAULTS.roots).toUpperCase()),
    tuneSeeds: seeds('tune-seeds', v['tune-seeds'] ?? DEFAULTS['tune-seeds']),
    tuneDates: dates('tune-dates', v['tune-dates'] ?? DEFAULTS['tune-dates']),
    tuneTo: v['tune-to'] ?? DEFAULTS['tune-to'],
    fresh: v.fresh === true,
    seeds: v.data !== undefined && v.seeds === undefined ? heldSeeds.slice(0, 1) : heldSeeds,
    dates: dates('dates', v.dates ?? DEFAULTS.dates),
    data: v.data ?? null,
    params: v.params ?? null,
    variants: VARIANTS.filter((x) => wanted.includes(x.strategy)),
    from: v.from,
    to: v.to,
    threads,
    config: v.config,
    out: v.out ?? 'data/strategy-comparison',
    doc: v.doc ?? null,
  };
}

/** A request that does not validate is the user's input (a root, a date, a window): exit 2 naming it. */
function validated(body: Record<string, unknown>, config: EngineConfig, dataPath: string | null): ResolvedRequest {
  const v = validateBacktestRequest(body, config, dataPath);
  if (!v.ok) throw new UsageError(v.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  return v.request;
}

const quoteArg = (s: string) => (/^[\w./:=,+-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

/** The engine CLI command that runs one held-out session of a row (SEED, DATE filled in by the caller). */
function cliFor(opts: Options, root: string, v: Variant, chosen: Record<string, SweepValue>, seed: string, date: string): string {
  const a = ['node', 'dist/engine.js', '--backtest', '--json'];
  if (opts.config) a.push('--config', opts.config);
  if (opts.data) a.push('--data', opts.data);
  else a.push('--symbol', root);
  a.push('--start', date, '--end', date, '--seed', seed);
  if (opts.from) a.push('--from', opts.from);
  if (opts.to) a.push('--to', opts.to);
  if (v.strategy === 'no_trading') a.push('--strategy-file', relative(process.cwd(), NO_TRADING_FILE));
  a.push('--strategy', v.strategy);
  for (const [k, x] of Object.entries(chosen)) a.push('--param', `${k}=${x}`);
  a.push(v.useML ? '--use-ml' : '--no-ml'); // explicit: the shipped config turns the model on
  return a.map(quoteArg).join(' ');
}

type Figures = SweepPointResult['result'];
const keyOf = (p: PlannedPoint) => JSON.stringify(p.request);

/** Session figures by request (OUT/sessions.jsonl): what a run measured, so a rerun runs only what is new. */
class SessionStore {
  readonly known = new Map<string, Figures>();
  constructor(
    private readonly path: string,
    fresh: boolean,
  ) {
    if (fresh || !existsSync(path)) {
      writeFileSync(path, '');
      return;
    }
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (line === '') continue;
      const x = JSON.parse(line) as { key: string; result: Figures };
      this.known.set(x.key, x.result);
    }
  }
  add(key: string, result: Figures): void {
    this.known.set(key, result);
    appendFileSync(this.path, `${JSON.stringify({ key, result })}\n`);
  }
}

/**
 * Runs the points not yet in the store on the pool, `threads` at a time, each with the sweep's
 * runner (runBacktest, as --backtest runs it), storing each as it ends; returns every point's figures.
 */
async function run(what: string, points: PlannedPoint[], pool: Piscina, threads: number, store: SessionStore): Promise<Figures[]> {
  const todo = [...new Map(points.filter((p) => !store.known.has(keyOf(p))).map((p) => [keyOf(p), p])).values()];
  const t0 = Date.now();
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < todo.length) {
      const p = todo[next++];
      const [r] = await runSweep([p], { pool });
      store.add(keyOf(p), r.result);
      done++;
      if (done % 10 === 0 || done === todo.length)
        process.stderr.write(`${what}: ${done} of ${todo.length} sessions, ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    }
  };
  process.stderr.write(`${what}: ${todo.length} sessions to run (${points.length - todo.length} already measured)\n`);
  await Promise.all(Array.from({ length: Math.min(threads, todo.length) }, lane));
  return points.map((p) => store.known.get(keyOf(p))!);
}

interface Cell {
  root: string;
  variant: Variant;
  seed: number;
  date: string;
  key: string;
}

async function main(argv: string[]): Promise<number> {
  let opts: Options;
  try {
    opts = parseOptions(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  const { config: full } = loadConfig(opts.config === undefined ? {} : { path: opts.config });
  const windowed = withTimeWindow(opts, full);
  if ('error' in windowed) {
    process.stderr.write(`error: ${windowed.error}\n`);
    return 2;
  }
  const config = windowed.config;
  const tuneWindow = withTimeWindow({ from: opts.from, to: opts.tuneTo }, full);
  if ('error' in tuneWindow) {
    process.stderr.write(`error: ${tuneWindow.error.replace('--to', '--tune-to')}\n`);
    return 2;
  }
  const tuneConfig = tuneWindow.config;
  const setup = await setUpStrategies(config, [NO_TRADING_FILE]);
  if (setup) {
    process.stderr.write(`error: ${setup}\n`);
    return 2;
  }
  const threads = opts.threads ?? (config.backtest.pool_size || availableParallelism());
  let earlier: { rows: Row[] } | null = null;
  try {
    if (opts.params) earlier = JSON.parse(readFileSync(opts.params, 'utf8'));
    if (earlier && !Array.isArray(earlier.rows)) throw new Error('no "rows" array');
  } catch (e) {
    process.stderr.write(`error: --params ${opts.params}: ${(e as Error).message}: expected a strategy-comparison.json this script wrote\n`);
    return 2;
  }

  // The held-out sessions: the synthetic market's roots × seeds × dates, or the recorded days.
  let roots = opts.roots;
  let heldDates = opts.dates;
  try {
    if (opts.data) {
      const whole = validated({ useML: false, strategy: 'no_trading' }, config, opts.data);
      roots = [whole.root];
      heldDates = whole.dates;
    }
    // Every input checked before anything runs.
    for (const root of roots) validated({ symbol: root, strategy: 'no_trading', useML: false, startDate: opts.tuneDates[0] }, config, null);
    for (const d of [...opts.tuneDates, ...(opts.data ? [] : heldDates)])
      validated({ symbol: roots[0], strategy: 'no_trading', useML: false, startDate: d }, config, null);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  }
  const overlap = opts.data ? [] : opts.tuneDates.filter((d) => heldDates.includes(d));
  const seedOverlap = opts.tuneSeeds.filter((s) => opts.seeds.includes(s));
  if (overlap.length || seedOverlap.length) {
    process.stderr.write(
      `error: the held-out sessions must be other seeds and other days than the tuning's: ${[...overlap, ...seedOverlap].join(', ')} in both\n`,
    );
    return 2;
  }
  const hasModel = new Map(roots.map((r) => [r, modelForRequest(r, config).ok]));
  const rowsWanted = roots.flatMap((root) => opts.variants.filter((v) => !v.useML || hasModel.get(root)).map((variant) => ({ root, variant })));

  mkdirSync(opts.out, { recursive: true });
  const store = new SessionStore(join(opts.out, 'sessions.jsonl'), opts.fresh);
  const pool = createBacktestPool(threads);
  try {
    // 1. Tuning: every grid point of every tuned row on every tuning session (the sweep's plan).
    const tunePoints: PlannedPoint[] = [];
    const tuneOwner: { row: number; grid: number; params: Record<string, SweepValue> }[] = [];
    const chosen = new Map<number, Record<string, SweepValue>>();
    const tuning = new Map<number, { params: Record<string, SweepValue>; sessions: number; total_pnl: number; total_fills: number }[]>();
    for (const [i, { root, variant }] of rowsWanted.entries()) {
      if (!variant.grid) continue;
      if (earlier) {
        const had = earlier.rows.find((r) => r.root === root && r.variant === variant.name && r.chosen_by === 'tuning');
        if (!had) {
          process.stderr.write(`error: --params ${opts.params} has no tuned row for ${variant.name} on ${root}\n`);
          return 2;
        }
        chosen.set(i, had.chosen);
        continue;
      }
      const axes = parseGrid(variant.grid);
      if (!axes.ok) throw new Error(axes.error);
      for (const seed of opts.tuneSeeds) {
        for (const date of opts.tuneDates) {
          const plan = planSweep(
            { symbol: root, startDate: date, endDate: date, seed, strategy: variant.strategy, useML: variant.useML },
            axes.value,
            tuneConfig,
            'key',
          );
          if (!plan.ok) throw new Error(`${variant.name} on ${root}: ${plan.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
          for (const p of plan.points) {
            tunePoints.push(p);
            tuneOwner.push({ row: i, grid: p.index, params: p.params });
          }
        }
      }
    }

    // 2. The held-out cells; the untuned rows' run alongside the tuning (the pool stays full).
    const heldSeeds = opts.seeds;
    const cellsOf = (i: number): Cell[] => {
      const { root, variant } = rowsWanted[i];
      const [s, d] = variant.once ? [heldSeeds.slice(0, 1), heldDates.slice(0, 1)] : [heldSeeds, heldDates];
      return s.flatMap((seed) => d.map((date) => ({ root, variant, seed, date, key: '' })));
    };
    const requests = new Map<string, PlannedPoint>();
    const rowCells = new Map<number, Cell[]>();
    const plan = (i: number, params: Record<string, SweepValue>) => {
      const cells = cellsOf(i);
      for (const c of cells) {
        const body: Record<string, unknown> = { startDate: c.date, endDate: c.date, seed: c.seed, strategy: c.variant.strategy, useML: c.variant.useML };
        if (!opts.data) body.symbol = c.root;
        if (Object.keys(params).length) body.params = params;
        const request = validated(body, config, opts.data);
        c.key = JSON.stringify(request);
        // The same request twice (the tuning chose the shipped values) runs once.
        if (!requests.has(c.key)) requests.set(c.key, { index: requests.size, params: {}, request, config });
      }
      rowCells.set(i, cells);
    };
    const untuned = rowsWanted.map((_, i) => i).filter((i) => !rowsWanted[i].variant.grid || chosen.has(i));
    for (const i of untuned) plan(i, chosen.get(i) ?? {});
    const first = [...requests.values()];
    const firstRes = await run('tuning and untuned held-out rows', [...tunePoints, ...first], pool, threads, store);
    const results = new Map<string, Figures>();
    first.forEach((p, k) => results.set(keyOf(p), firstRes[tunePoints.length + k]));

    // 3. The tuned rows' parameters: the tuning sessions summed per grid point, ranked as a sweep ranks.
    const byRow = new Map<number, Map<number, { params: Record<string, SweepValue>; sessions: number; total_pnl: number; total_fills: number }>>();
    tuneOwner.forEach((o, k) => {
      const m = byRow.get(o.row) ?? new Map();
      byRow.set(o.row, m);
      const agg = m.get(o.grid) ?? { params: o.params, sessions: 0, total_pnl: 0, total_fills: 0 };
      const r = firstRes[k];
      agg.sessions += r.sessions;
      agg.total_pnl += r.total_pnl;
      agg.total_fills += r.total_fills;
      m.set(o.grid, agg);
    });
    for (const [i, m] of byRow) {
      const pts = [...m.entries()].sort((a, b) => a[0] - b[0]).map(([, x]) => x);
      tuning.set(i, pts);
      const best = pts[rankOrder(pts.map((p) => ({ ...p, sharpe_ratio: 0, max_drawdown_pct: 0, fees: 0, markouts: {}, kill_switch_tripped: false })))[0]];
      chosen.set(i, Object.fromEntries(Object.entries(best.params).map(([k, x]) => [k.slice('params.'.length), x])));
    }

    // 4. The tuned rows' held-out sessions.
    const before = new Set(requests.keys());
    for (const i of byRow.keys()) plan(i, chosen.get(i)!);
    const second = [...requests.entries()].filter(([k]) => !before.has(k)).map(([, p]) => p);
    const secondRes = await run('tuned held-out rows', second, pool, threads, store);
    second.forEach((p, k) => results.set(keyOf(p), secondRes[k]));

    // 5. Rows, tables, files.
    const rows: Row[] = rowsWanted.map(({ root, variant }, i) => {
      const cells = rowCells.get(i)!;
      const req = requests.get(cells[0].key)!.request;
      const c = chosen.get(i) ?? {};
      const sessions: SessionFigures[] = cells.map((cl) => ({ seed: cl.seed, date: cl.date, ...results.get(cl.key)! }));
      return {
        root,
        variant: variant.name,
        strategy: variant.strategy,
        use_ml: variant.useML,
        model_version: req.model?.version ?? null,
        chosen_by: variant.grid ? 'tuning' : variant.strategy === 'market_maker' ? 'shipped config' : 'none',
        chosen: c as Record<string, number | boolean>,
        params: req.strategy.params,
        cli: cliFor(opts, root, variant, c, 'SEED', 'DATE'),
        ...(tuning.has(i) ? { tuning: tuning.get(i) } : {}),
        sessions,
        summary: summarize(sessions),
      };
    });
    const doc = {
      generated_by: `node --import tsx scripts/compare-strategies.ts ${argv.map(quoteArg).join(' ')}`.trim(),
      engine_version: VERSION,
      market: opts.data ? `recorded: ${opts.data}` : 'synthetic',
      window: opts.from || opts.to ? { from: opts.from ?? config.simulation.session_start, to: opts.to ?? config.simulation.session_end } : null,
      tuning: earlier
        ? { from_file: opts.params }
        : {
            seeds: opts.tuneSeeds,
            dates: opts.tuneDates,
            window: { from: tuneConfig.simulation.session_start, to: tuneConfig.simulation.session_end },
            grids: Object.fromEntries(opts.variants.filter((v) => v.grid).map((v) => [v.name, v.grid])),
          },
      held_out: { seeds: heldSeeds, dates: heldDates },
      roots_with_model: roots.filter((r) => hasModel.get(r)),
      roots_without_model: roots.filter((r) => !hasModel.get(r)),
      rows,
    };
    const tables = `${markdownTable(rows)}\nPer strategy over the roots:\n\n${overallTable(rows)}`;
    writeFileSync(join(opts.out, 'strategy-comparison.json'), `${JSON.stringify(doc, null, 2)}\n`);
    writeFileSync(join(opts.out, 'strategy-comparison.csv'), csv(rows));
    writeFileSync(join(opts.out, 'strategy-comparison.md'), tables);
    if (opts.doc) {
      const text = readFileSync(opts.doc, 'utf8');
      const m = /(<!-- comparison:start -->\n)[\s\S]*?(<!-- comparison:end -->)/.exec(text);
      if (!m) {
        process.stderr.write(
          `error: --doc ${opts.doc}: no <!-- comparison:start --> ... <!-- comparison:end --> lines to put the tables between (the results are in ${opts.out})\n`,
        );
        return 2;
      }
      writeFileSync(opts.doc, text.replace(m[0], `${m[1]}\n${tables}\n${m[2]}`));
    }
    process.stdout.write(tables);
    process.stderr.write(`wrote ${join(opts.out, 'strategy-comparison.{json,csv,md}')}${opts.doc ? ` and ${opts.doc}` : ''}\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  } finally {
    await pool.destroy();
  }
}

process.exitCode = await main(process.argv.slice(2));
