// `npm run calibrate`: fits the synthetic market's profile to recorded DBN data and writes a
// market profile file the config selects with [market] profile (docs/calibration.md).
//   npm run calibrate -- --data DIR_OR_FILE --out profile.json [--symbol ES] [--from 09:30 --to 16:00]
// Flag errors name the flag and exit 2; data that cannot be read exits 1.

import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseClock, parseDate } from '../calendar.ts';
import { ROOT_RE, SYMBOL_RE } from '../instruments.ts';
import { profileFileJson, readMarketProfile, completeProfile } from '../profile-file.ts';
import { profileFor } from '../profiles.ts';
import type { MarketProfile } from '../market-profile.ts';
import type { Calibration } from './fit.ts';
import { calibrateWithSimulation } from './refine.ts';
import { measureDbn } from './sources.ts';

export const CALIBRATE_USAGE = `usage: npm run calibrate -- --data PATH --out FILE [--symbol S] [--start D] [--end D]
                            [--from HH:MM] [--to HH:MM] [--base FILE] [--iterations N] [--seed N] [--copies N] [--json]
  --data PATH       recorded DBN data: a file or a directory of daily files (MBO; MBP-10 fits fewer parameters)
  --out FILE        the market profile file to write (JSON; select it with [market] profile = "FILE")
  --symbol S        which contract of the data: a root or a month-coded symbol (default: the first)
  --start, --end    only trade dates in this range (YYYY-MM-DD)
  --from, --to      the window of each trade date, New York time (default 09:30-16:00: the hours the synthetic market models)
  --base FILE       a profile file whose values the parameters the data cannot identify keep (default: the root's own profile)
  --iterations N    rounds of simulation correcting the biased estimators (default 3; 0: moments only)
  --seed N          first seed of those simulations (default 1)
  --copies N        simulated sessions per recorded one in each round (default 2)
  --json            the fit as JSON (values, how each was fitted, what was kept) instead of the table`;

class FlagError extends Error {}

function intFlag(flag: string, v: string | undefined, dflt: number, min: number, max: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new FlagError(`${flag} ${JSON.stringify(v)}: expected an integer in ${min}..${max}`);
  return Number(v);
}

function clockFlag(flag: string, v: string | undefined, dflt: string): number {
  const ns = parseClock(v ?? dflt);
  if (ns === null) throw new FlagError(`${flag} ${JSON.stringify(v)}: expected a time HH:MM (New York, 24-hour), e.g. 09:30`);
  return ns;
}

function dateFlag(flag: string, v: string | undefined): string | null {
  if (v === undefined) return null;
  if (parseDate(v) === null) throw new FlagError(`${flag} ${JSON.stringify(v)}: expected a calendar date YYYY-MM-DD, e.g. 2024-03-15`);
  return v;
}

/** Runs the command; returns its exit code. */
export function runCalibrateCommand(argv: string[], out: (s: string) => void, err: (s: string) => void): number {
  let a: ReturnType<typeof flags>;
  let o: { fromNs: number; toNs: number; start: string | null; end: string | null; iterations: number; seed: number; copies: number; basePath: string | null };
  try {
    a = flags(argv);
    if (a.help) {
      out(`${CALIBRATE_USAGE}\n`);
      return 0;
    }
    if (a.data === undefined) throw new FlagError('--data: required (a DBN file or a directory of them)');
    if (a.out === undefined) throw new FlagError('--out: required (the profile file to write, e.g. es-profile.json)');
    if (!existsSync(a.data)) throw new FlagError(`--data ${JSON.stringify(a.data)}: no such file or directory (expected a DBN file or a directory of them)`);
    if (a.symbol !== undefined && !ROOT_RE.test(a.symbol) && !SYMBOL_RE.test(a.symbol))
      throw new FlagError(`--symbol ${JSON.stringify(a.symbol)}: expected a contract root (ES) or a month-coded contract (ESH4)`);
    const fromNs = clockFlag('--from', a.from, '09:30');
    const toNs = clockFlag('--to', a.to, '16:00');
    if (toNs <= fromNs) throw new FlagError(`--to ${a.to ?? '16:00'} is not after --from ${a.from ?? '09:30'}: expected a window of at least one minute`);
    const start = dateFlag('--start', a.start);
    const end = dateFlag('--end', a.end);
    if (start !== null && end !== null && end < start) throw new FlagError(`--end ${end} is before --start ${start}`);
    if (a.base !== undefined && !existsSync(a.base))
      throw new FlagError(`--base ${JSON.stringify(a.base)}: no such file (expected a market profile JSON file)`);
    o = {
      fromNs,
      toNs,
      start,
      end,
      iterations: intFlag('--iterations', a.iterations, 3, 0, 20),
      seed: intFlag('--seed', a.seed, 1, 0, 2 ** 31),
      copies: intFlag('--copies', a.copies, 2, 1, 20),
      basePath: a.base ?? null,
    };
  } catch (e) {
    if (e instanceof FlagError || (e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      err(`${CALIBRATE_USAGE}\n${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }
  let c: Calibration;
  let root: string;
  let base: MarketProfile;
  let measured: ReturnType<typeof measureDbn>;
  try {
    measured = measureDbn(a.data, { symbol: a.symbol ?? null, startDate: o.start, endDate: o.end, fromNs: o.fromNs, toNs: o.toNs });
    const spec = measured.contract;
    root = spec.root;
    if (o.basePath !== null) {
      const file = readMarketProfile(o.basePath);
      if (file.root !== root) throw new Error(`--base ${o.basePath}: a profile of ${file.root}, but the data is ${root}`);
      base = completeProfile(file, spec);
    } else base = profileFor(spec);
    c = calibrateWithSimulation(measured.meter, base, { ...spec, profile: undefined }, { iterations: o.iterations, seed: o.seed, copies: o.copies });
  } catch (e) {
    err(`error: --data ${a.data}: ${(e as Error).message}\n`);
    return 1;
  }
  const calibration = {
    data: resolve(a.data),
    schema: measured.schema,
    dates: measured.dates,
    window: { from: a.from ?? '09:30', to: a.to ?? '16:00' },
    base: o.basePath === null ? `the ${root} profile (profiles.ts)` : resolve(o.basePath),
    iterations: o.iterations,
    seed: o.seed,
    copies: o.copies,
    inputs: c.inputs,
    fitted: c.fitted,
    kept: c.kept,
  };
  writeFileSync(a.out, profileFileJson(root, c.profile, c.extra, calibration));
  if (a.json) out(`${JSON.stringify({ root, profile: c.profile, extra: c.extra, base, calibration }, null, 2)}\n`);
  else out(calibrationTable(root, c, base, a.out));
  return 0;
}

function flags(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      data: { type: 'string' },
      out: { type: 'string' },
      symbol: { type: 'string' },
      start: { type: 'string' },
      end: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      base: { type: 'string' },
      iterations: { type: 'string' },
      seed: { type: 'string' },
      copies: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (positionals.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(positionals[0])}: every value follows its flag`);
  return values;
}

const fmt = (x: number | boolean | undefined): string =>
  typeof x === 'boolean'
    ? String(x)
    : x === undefined || Number.isNaN(x)
      ? 'n/a'
      : Math.abs(x) >= 100
        ? x.toFixed(0)
        : Math.abs(x) >= 1
          ? x.toFixed(2)
          : x.toPrecision(3);

/** The human table: fitted parameters (value, base value, how), then those kept. */
export function calibrationTable(root: string, c: Calibration, base: Readonly<MarketProfile>, outPath: string): string {
  const i = c.inputs;
  const lines = [
    `${root}: ${i.sessions} session(s), ${(i.seconds / 3600).toFixed(2)} h, ${i.flowEvents} order-flow events, ${i.marketOrders} market ` +
      `orders, ${i.gaps} wide-spread gaps (${i.mbo ? 'MBO' : 'MBP-10'})`,
    '',
    '| parameter | fitted | base | from |',
    '|---|---:|---:|---|',
  ];
  const values = c.profile as unknown as Record<string, number>;
  const extra = c.extra as Record<string, number | undefined>;
  const baseValues = base as unknown as Record<string, number | undefined>;
  for (const [k, how] of Object.entries(c.fitted)) lines.push(`| ${k} | ${fmt(k in extra ? extra[k] : values[k])} | ${fmt(baseValues[k])} | ${how} |`);
  lines.push('', 'kept from the base profile:', '');
  for (const [k, why] of Object.entries(c.kept)) lines.push(`- ${k} = ${fmt(values[k] ?? extra[k])}: ${why}`);
  lines.push('', `wrote ${outPath} (select it with [market] profile = "${outPath}")`, '');
  return lines.join('\n');
}
