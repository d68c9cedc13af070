// `npm run facts`: the stylized-facts table of a source (docs/market-facts.md).
//   npm run facts                                   synthetic ES, 2024-03-15, seed 42, 09:30-16:00
//   npm run facts -- --data DIR_OR_FILE [--vs synthetic] [--json]
// Flag errors name the flag and exit 2; a source that cannot be read exits 1.

import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseClock, parseDate } from '../calendar.ts';
import { contractForRoot, ROOT_RE, SYMBOL_RE } from '../instruments.ts';
import { withSelectedProfile } from '../profile-file.ts';
import { NEUTRAL_FLOW } from '../profiles.ts';
import type { MarketProfile } from '../market-profile.ts';
import { dbnFacts, type SessionFacts, syntheticFacts } from './facts.ts';
import { type FactsColumn, factsJson, factsTable } from './table.ts';

export const FACTS_USAGE = `usage: npm run facts -- [--data PATH] [--vs synthetic|PATH] [--symbol ES] [--date YYYY-MM-DD]
                        [--seed N] [--seeds A-B] [--from HH:MM] [--to HH:MM] [--flow neutral | --profile FILE] [--json]
  --data PATH     a DBN file or directory (MBO or MBP-10); default: the synthetic market
  --vs SOURCE     a second source side by side: synthetic, or a DBN path
  --symbol S      synthetic: the contract root (default ES); data: a root or contract among its symbols
  --date D        synthetic: the session date (default 2024-03-15); data: only this trade date
  --seed N        synthetic: the seed (default 42)
  --seeds A-B     synthetic: also run seeds A..B and show their range in brackets
  --from, --to    the window, New York time (synthetic default 09:30-16:00; data: the whole trade date)
  --flow F        synthetic: the order-flow structure, realistic (default) or neutral (NEUTRAL_FLOW)
  --profile FILE  synthetic: a market profile file (npm run calibrate; docs/calibration.md) for its root
  --json          full precision JSON instead of the table`;

const SYNTHETIC_DATE = '2024-03-15';

class FlagError extends Error {}

interface Source {
  flag: '--data' | '--vs';
  /** null: the synthetic market. */
  path: string | null;
}

function flagValues(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      data: { type: 'string' },
      vs: { type: 'string' },
      symbol: { type: 'string' },
      date: { type: 'string' },
      seed: { type: 'string' },
      seeds: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      flow: { type: 'string' },
      profile: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (positionals.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(positionals[0])}: every value follows its flag`);
  return values;
}

function clockFlag(flag: string, v: string | undefined): number | null {
  if (v === undefined) return null;
  const ns = parseClock(v);
  if (ns === null) throw new FlagError(`${flag} ${JSON.stringify(v)}: expected a time HH:MM (New York, 24-hour), e.g. 09:45`);
  return ns;
}

function seedFlag(flag: string, v: string): number {
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new FlagError(`${flag} ${JSON.stringify(v)}: expected a non-negative integer`);
  return Number(v);
}

/** Runs the command; returns its exit code. */
export function runFactsCommand(argv: string[], out: (s: string) => void, err: (s: string) => void): number {
  let columns: FactsColumn[];
  let json = false;
  try {
    const a = flagValues(argv);
    if (a.help) {
      out(`${FACTS_USAGE}\n`);
      return 0;
    }
    json = a.json === true;
    if (a.date !== undefined && parseDate(a.date) === null)
      throw new FlagError(`--date ${JSON.stringify(a.date)}: expected a calendar date YYYY-MM-DD, e.g. 2024-03-15`);
    if (a.symbol !== undefined && !ROOT_RE.test(a.symbol) && !SYMBOL_RE.test(a.symbol))
      throw new FlagError(`--symbol ${JSON.stringify(a.symbol)}: expected a contract root (ES) or a month-coded contract (ESH4)`);
    const seed = a.seed === undefined ? 42 : seedFlag('--seed', a.seed);
    const seeds: number[] = [];
    if (a.seeds !== undefined) {
      const m = /^(\d+)-(\d+)$/.exec(a.seeds);
      if (!m || Number(m[2]) < Number(m[1])) throw new FlagError(`--seeds ${JSON.stringify(a.seeds)}: expected a range A-B of seeds with A <= B, e.g. 1-7`);
      for (let s = seedFlag('--seeds', m[1]); s <= Number(m[2]); s++) seeds.push(s);
    }
    const fromNs = clockFlag('--from', a.from);
    const toNs = clockFlag('--to', a.to);
    if (fromNs !== null && toNs !== null && toNs <= fromNs)
      throw new FlagError(`--to ${a.to} is not after --from ${a.from}: expected a window of at least one minute`);
    if (a.flow !== undefined && a.flow !== 'neutral' && a.flow !== 'realistic')
      throw new FlagError(`--flow ${JSON.stringify(a.flow)}: expected neutral or realistic`);
    const flowProfile = a.flow === 'neutral' ? NEUTRAL_FLOW : undefined;
    const sources: Source[] = [{ flag: '--data', path: a.data ?? null }];
    if (a.vs !== undefined) sources.push({ flag: '--vs', path: a.vs === 'synthetic' ? null : a.vs });
    for (const s of sources)
      if (s.path !== null && !existsSync(s.path))
        throw new FlagError(
          `${s.flag} ${JSON.stringify(s.path)}: no such file or directory (expected a DBN file or a directory of ` +
            `them${s.flag === '--vs' ? ', or synthetic' : ''})`,
        );
    if (seeds.length > 0 && sources.every((s) => s.path !== null)) throw new FlagError('--seeds: only for the synthetic market (no source is synthetic)');
    // The synthetic market's root: a month-coded --symbol is its root's market.
    const root = a.symbol === undefined ? 'ES' : (SYMBOL_RE.exec(a.symbol)?.[1] ?? a.symbol);
    if (sources.some((s) => s.path === null)) {
      try {
        contractForRoot(root);
      } catch (e) {
        throw new FlagError(`--symbol ${JSON.stringify(a.symbol)}: ${(e as Error).message}`);
      }
    }
    // A profile file: its complete profile as the overrides of the root's own.
    if (a.profile !== undefined && a.flow !== undefined) throw new FlagError('--profile and --flow: give one (a profile file carries its own flow fields)');
    let profile: Partial<MarketProfile> | undefined = flowProfile;
    if (a.profile !== undefined) {
      if (sources.every((s) => s.path !== null)) throw new FlagError('--profile: only for the synthetic market (no source is synthetic)');
      try {
        profile = withSelectedProfile({}, a.profile)[root]?.profile;
      } catch (e) {
        throw new FlagError(`--profile ${JSON.stringify(a.profile)}: ${(e as Error).message}`);
      }
      if (profile === undefined)
        throw new FlagError(`--profile ${JSON.stringify(a.profile)}: not a profile of ${root} (the synthetic market's root; --symbol names another)`);
    }
    const synth = (s: number): SessionFacts => {
      const f = syntheticFacts({
        root,
        profile,
        date: a.date ?? SYNTHETIC_DATE,
        seed: s,
        startNs: fromNs ?? parseClock('09:30')!,
        endNs: toNs ?? parseClock('16:00')!,
      });
      if (flowProfile) f.source += ' neutral flow';
      return f;
    };
    columns = [];
    for (const s of sources) {
      if (s.path === null) columns.push({ session: synth(seed), ...(seeds.length > 0 ? { seedRuns: seeds.map(synth) } : {}) });
      else {
        let sessions: SessionFacts[];
        try {
          sessions = dbnFacts(s.path, { symbol: a.symbol ?? null, startDate: a.date ?? null, endDate: a.date ?? null, fromNs, toNs });
        } catch (e) {
          err(`error: ${s.flag}: ${(e as Error).message}\n`);
          return 1;
        }
        for (const session of sessions) columns.push({ session });
      }
    }
  } catch (e) {
    if (e instanceof FlagError || (e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      err(`${FACTS_USAGE}\n${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }
  out(json ? factsJson(columns) : factsTable(columns));
  return 0;
}
