// The benchmark suite (issue #7):  npm run bench  [-- --quick] [-- --only NAME[,NAME]] [-- --json]
//
//   --quick        everything shorter (smaller streams, shorter runs): the smoke run of npm test
//   --only NAMES   comma-separated sections: book, components, tick-to-trade, allocation,
//                  throughput, strategies, replay, cross-thread, http, memory, journal
//   --json         the results as JSON on stdout (the table goes to stderr)
//   --markdown     print the table as Markdown (for docs/performance.md)
//   --out FILE     where to write the results (default: bench/results.json for a full run of
//                  every section; nothing for --quick or --only unless given)
//
// The measured code runs bundled (dist/bench/run.js, built by bench/build.mjs), like the engine
// ships: under tsx, imported constants become getter calls and hot loops slow down by up to
// ~40%. Started from source (node --import tsx bench/run.ts), this file builds the bundle and
// runs it instead. The worker bundles (dist/workers, dist/engine.js) come from npm run build.

import { quoteParamsOf } from '../src/strategy/builtin/market-maker.ts';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/core/paths.ts';
import { benchAllocation } from './allocation.ts';
import { benchBook } from './book.ts';
import { benchComponents } from './components.ts';
import { benchCrossThread } from './cross-thread.ts';
import { startEngineProcess, type EngineProcess } from './engine-process.ts';
import { benchHttp } from './http.ts';
import { benchJournal } from './journal.ts';
import { benchMemory, RssSampler } from './memory.ts';
import { markdownTable, renderTable, tableRows, type Results, type Sections } from './report.ts';
import { benchConfig, benchRequest, recordBookStream, recordSession, type BookStream, type Recording } from './stream.ts';
import { benchReplay } from './replay.ts';
import { benchStrategies } from './strategies.ts';
import { benchThroughput } from './throughput.ts';
import { benchTickToTrade } from './tick-to-trade.ts';
import { loadavg, machine, note } from './util.ts';

export const SECTIONS = [
  'book',
  'components',
  'tick-to-trade',
  'allocation',
  'throughput',
  'strategies',
  'replay',
  'cross-thread',
  'http',
  'memory',
  'journal',
] as const;
export type SectionName = (typeof SECTIONS)[number];

interface Options {
  quick: boolean;
  only: SectionName[];
  json: boolean;
  markdown: boolean;
  out: string | null;
}

const USAGE = `usage: npm run bench -- [--quick] [--only ${SECTIONS.join(',')}] [--json] [--markdown] [--out FILE]\n`;

function parse(argv: string[]): Options | string {
  const o: Options = { quick: false, only: [...SECTIONS], json: false, markdown: false, out: null };
  let outGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--json') o.json = true;
    else if (a === '--markdown') o.markdown = true;
    else if (a === '--only' || a.startsWith('--only=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!v) return '--only needs a section name';
      const names = v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      for (const n of names) if (!(SECTIONS as readonly string[]).includes(n)) return `unknown section '${n}' (known: ${SECTIONS.join(', ')})`;
      o.only = names as SectionName[];
    } else if (a === '--out' || a.startsWith('--out=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!v) return '--out needs a file';
      o.out = v;
      outGiven = true;
    } else if (a === '--help' || a === '-h') return '';
    else return `unknown option '${a}'`;
  }
  if (!outGiven && !o.quick && o.only.length === SECTIONS.length) o.out = join(packageRoot(), 'bench', 'results.json');
  return o;
}

/** Sizes and durations of a full run and of --quick. */
function plan(quick: boolean) {
  return quick
    ? {
        bookUpdates: 200_000,
        bookRounds: 3,
        sessionEvents: 1_000_000,
        componentRounds: 3,
        componentEvents: 200_000,
        strategyCalls: 1_000_000,
        inferenceCalls: 100_000,
        t2tEvents: 300_000,
        allocEvents: 1_000_000,
        tpRounds: 1,
        tpRoundsML: 1,
        strategyRounds: 1,
        poolEndDate: '2024-01-03',
        poolSessionEnd: '09:40',
        crossSeconds: 4,
        crossWarmup: 1.5,
        httpDuration: 1,
        httpPairs: 2,
        httpControlPairs: 1,
        sseWindow: 2,
        sseClients: 100,
        memoryAgeS: 20,
      }
    : {
        bookUpdates: 2_000_000,
        bookRounds: 5,
        sessionEvents: 100_000_000, // the whole session
        componentRounds: 5,
        componentEvents: 2_000_000,
        strategyCalls: 5_000_000,
        inferenceCalls: 1_000_000,
        t2tEvents: 100_000_000, // the whole session
        allocEvents: 1_000_000,
        tpRounds: 3,
        tpRoundsML: 2,
        strategyRounds: 3,
        poolEndDate: '2024-01-11', // 8 business days
        poolSessionEnd: undefined as string | undefined,
        crossSeconds: 20,
        crossWarmup: 3,
        httpDuration: 1,
        httpPairs: 12,
        httpControlPairs: 6,
        sseWindow: 10,
        sseClients: 1000,
        memoryAgeS: 180,
      };
}

export async function runSuite(o: Options): Promise<Results> {
  const p = plan(o.quick);
  const t0 = performance.now();
  const m = machine();
  note(`${o.quick ? 'quick' : 'full'} run of ${o.only.join(', ')} on ${m.cpuModel} (${m.cores} cores), Node ${m.node}, load ${m.loadavgAtStart.join(' ')}`);
  const config = benchConfig();
  const plain = benchRequest(config, { useML: false });
  const withML = benchRequest(config, { useML: true });
  const spec = plain.specs[0];
  const specML = withML.specs[0];
  const want = (n: SectionName) => o.only.includes(n);

  let bookStream: BookStream | null = null;
  let session: Recording | null = null;
  const needSession = want('tick-to-trade') || want('allocation') || want('throughput') || want('strategies');
  // The throughput section times ccxt's book on this stream after each of its pipeline rounds.
  if (want('book') || want('components') || want('throughput')) {
    note(`recording the order-book stream (${p.bookUpdates.toLocaleString('en-US')} updates)`);
    bookStream = recordBookStream(spec, p.bookUpdates);
  }
  if (needSession) {
    note('recording the session');
    session = recordSession(spec, p.sessionEvents);
    note(`recorded ${session.count.toLocaleString('en-US')} events`);
  }

  const sections: Sections = {};
  const info: Results['sectionInfo'] = {};
  let engine: EngineProcess | null = null;
  let sampler: RssSampler | null = null;
  const section = async (name: SectionName, fn: () => Promise<unknown> | unknown) => {
    if (!want(name)) return;
    note(`${name} ...`);
    const before = loadavg();
    const s0 = performance.now();
    try {
      (sections as Record<string, unknown>)[name] = await fn();
      info[name] = { seconds: (performance.now() - s0) / 1000, loadavgBefore: before, loadavgAfter: loadavg() };
    } catch (e) {
      info[name] = {
        seconds: (performance.now() - s0) / 1000,
        loadavgBefore: before,
        loadavgAfter: loadavg(),
        error: e instanceof Error ? (e.stack ?? e.message) : String(e),
      };
      note(`${name} FAILED: ${info[name].error}`);
    }
    note(`${name} done in ${info[name].seconds.toFixed(1)} s`);
  };

  try {
    await section('book', () => benchBook(bookStream!, { rounds: p.bookRounds }));
    await section('components', () =>
      benchComponents(bookStream!, quoteParamsOf(spec.strategy.params), {
        rounds: p.componentRounds,
        events: p.componentEvents,
        strategyCalls: p.strategyCalls,
        inferenceCalls: p.inferenceCalls,
      }),
    );
    await section('tick-to-trade', () => benchTickToTrade(specML, session!, { events: p.t2tEvents }));
    await section('allocation', () => benchAllocation(spec, specML, session!, { events: p.allocEvents }));
    await section('throughput', () =>
      benchThroughput(config, spec, specML, session!, {
        rounds: p.tpRounds,
        roundsML: p.tpRoundsML,
        endDate: p.poolEndDate,
        sessionEnd: p.poolSessionEnd,
        maxWorkers: m.cores,
        profile: true,
        peerStream: bookStream!,
      }),
    );
    await section('strategies', () => benchStrategies(config, session!, { rounds: p.strategyRounds }));
    session = null;
    bookStream = null;
    await section('replay', () => benchReplay(o.quick));
    await section('cross-thread', () => benchCrossThread(config, { seconds: p.crossSeconds, warmupSeconds: p.crossWarmup, speed: 4 }));
    if (want('http') || want('memory')) {
      note('starting the engine process');
      engine = await startEngineProcess();
      sampler = new RssSampler(engine, 5);
    }
    await section('http', () =>
      benchHttp(engine!, {
        durationS: p.httpDuration,
        pairs: p.httpPairs,
        controlPairs: p.httpControlPairs,
        connections: 10,
        sseClients: p.sseClients,
        sseWindowS: p.sseWindow,
        profile: true,
      }),
    );
    await section('memory', () => benchMemory(engine!, sampler!, { ageS: p.memoryAgeS, servedHttp: want('http') }));
    await section('journal', () => benchJournal(o.quick ? { runs: 500, floodS: 2, concurrency: 2 } : { runs: 10_000, floodS: 15, concurrency: 4 }));
  } finally {
    sampler?.stop();
    if (engine) await engine.stop();
  }

  const results: Results = {
    suite: 'futures-mm-engine benchmark suite (issue #7)',
    mode: o.quick ? 'quick' : 'full',
    machine: m,
    loadavgAtEnd: loadavg(),
    durationS: (performance.now() - t0) / 1000,
    sections,
    sectionInfo: info,
    table: tableRows(sections),
  };
  return results; // full precision: only the table for people rounds
}

async function main(): Promise<number> {
  const o = parse(process.argv.slice(2));
  if (typeof o === 'string') {
    process.stderr.write(o ? `error: ${o}\n${USAGE}` : USAGE);
    return o ? 2 : 0;
  }
  const r = await runSuite(o);
  const table = `${o.markdown ? markdownTable(r.table) : renderTable(r.table)}\n\nmachine: ${r.machine.cpuModel}, ${r.machine.cores} cores, Node ${r.machine.node}; load average ${r.machine.loadavgAtStart.join(' ')} at start, ${r.loadavgAtEnd.join(' ')} at end; ${r.mode} run took ${r.durationS.toFixed(0)} s\n`;
  if (o.json) {
    process.stderr.write(`\n${table}`);
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  } else process.stdout.write(`\n${table}`);
  if (o.out) {
    writeFileSync(o.out, `${JSON.stringify(r, null, 2)}\n`);
    note(`results written to ${o.out}`);
  }
  return Object.values(r.sectionInfo).some((x) => x.error) ? 1 : 0;
}

const self = fileURLToPath(import.meta.url);
if (process.argv[1] && (process.argv[1] === self || process.argv[1] === self.replace(/\.ts$/, ''))) {
  if (self.endsWith('.ts')) {
    // From source: bundle, then run the bundle (honest figures need bundled code).
    const root = packageRoot();
    execFileSync(process.execPath, [join(root, 'bench', 'build.mjs')], { stdio: 'inherit' });
    if (!existsSync(join(root, 'dist', 'workers', 'backtest.js'))) process.stderr.write('[bench] dist/workers is missing: run npm run build first\n');
    const r = spawnSync(process.execPath, ['--expose-gc', join(root, 'dist', 'bench', 'run.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exitCode = r.status ?? 1;
  } else {
    main().then(
      (code) => {
        process.exitCode = code;
        setTimeout(() => process.exit(code), 200).unref();
      },
      (err) => {
        process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
        process.exit(1);
      },
    );
  }
}
