// A market profile file (docs/calibration.md): a root's synthetic-market profile as JSON, written
// by `npm run calibrate` (or by hand), selected by the config's [market] profile. It names its
// root; its `profile` holds any of MarketProfile's keys (the rest come from the root's own
// profile, profiles.ts), its `extra` the order-flow parameters of the generator's flow structure
// (1-lot shares, modifies, bursts), its `calibration` where the numbers came from (not read).
// JSON, not TOML: the file is machine-written at full precision and the toml package only parses.

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { type ContractSpec, contractForRoot, ROOT_RE } from './instruments.ts';
import { profileFor } from './profiles.ts';
import type { MarketProfile } from './market-profile.ts';

export const PROFILE_FILE_KIND = 'futures-mm-engine market profile';
export const PROFILE_FILE_VERSION = 1;

const nonNegative = (what: string) => z.number(`a number >= 0${what}`).finite(`a finite number >= 0${what}`).min(0, `a number >= 0${what}`);
const positive = (what: string) => z.number(`a number > 0${what}`).finite(`a finite number > 0${what}`).gt(0, `a number > 0${what}`);
const atLeastOne = (what: string) => z.number(`a number >= 1${what}`).finite(`a finite number >= 1${what}`).min(1, `a number >= 1${what}`);
const fraction = (what: string) => z.number(`a number in [0, 1]${what}`).min(0, `a number in [0, 1]${what}`).max(1, `a number in [0, 1]${what}`);
const below1 = (what: string) => z.number(`a number in [0, 1)${what}`).min(0, `a number in [0, 1)${what}`).lt(1, `a number in [0, 1)${what}`);

const SIZE = ' (contracts, mean of a geometric)';
const PER_S = ' (per second)';
const SECONDS = ' (seconds)';

/** The order-flow structure's parameters (docs/calibration.md lists their meaning and units). */
const extraShape = {
  addSize1Prob: below1(' (share of best-level adds of size 1)'),
  deepAddSize1Prob: below1(' (share of deep adds of size 1)'),
  cancelSize1Prob: below1(' (share of best-level cancels of size 1)'),
  tradeSize1Prob: below1(' (share of market orders of size 1)'),
  modifyPerCancel: nonNegative(' (best-level modify events per best-level cancel event of the model)'),
  modifyDownShare: fraction(''),
  modifyUpShare: fraction(''),
  modifySize: atLeastOne(SIZE),
  burstBranching: below1(' (Hawkes branching ratio)'),
  burstDecayS: positive(SECONDS),
  openSpikeBoost: nonNegative(' (times the baseline activity)'),
  openSpikeDecayS: positive(SECONDS),
  closeSpikeBoost: nonNegative(' (times the baseline activity)'),
  closeSpikeDecayS: positive(SECONDS),
};

/** Each MarketProfile key with its check (the unit says what it is; profiles.ts says what it means). */
const profileShape = {
  annualVol: positive(' (annualised volatility, a fraction: 0.16 is 16 %)').max(5, 'an annualised volatility <= 5 (500 %)'),
  volOfVol: nonNegative(' (standard deviation of the log-variance)'),
  volMeanReversionS: positive(SECONDS),
  activityVolCoupling: nonNegative(''),
  dailyVolDispersion: nonNegative(''),
  pressureTicks: nonNegative(' (ticks)'),
  pressureReversionS: positive(SECONDS),
  queueTarget: atLeastOne(' (contracts)'),
  addSize: atLeastOne(SIZE),
  cancelSize: atLeastOne(SIZE),
  cancelHazard: nonNegative(' (per second per resting contract)'),
  marketRate: nonNegative(' (market orders per second per side)'),
  tradeSizeSmall: atLeastOne(SIZE),
  tradeSizeLarge: atLeastOne(SIZE),
  tradeLargeProb: fraction(''),
  maxSweepLevels: z.number('an integer >= 1 (price levels)').int('an integer >= 1 (price levels)').min(1, 'an integer >= 1 (price levels)'),
  imbalanceSensitivity: fraction(''),
  kappaMarket: nonNegative(' (per tick)'),
  kappaCancel: nonNegative(' (per tick)'),
  kappaAdd: nonNegative(' (per tick)'),
  kappaVolPower: nonNegative(''),
  insideRate: nonNegative(PER_S),
  raceProb: fraction(''),
  raceMeanUs: positive(' (microseconds)'),
  kappaInside: nonNegative(' (per tick)'),
  burstSize: atLeastOne(SIZE),
  deepCancelHazard: nonNegative(' (per second per resting contract)'),
  emptyLevelFillRate: nonNegative(' (per second per empty level)'),
  deepAddSize: atLeastOne(SIZE),
  deepCancelSize: atLeastOne(SIZE),
  deepShapeNear: positive(' (times queueTarget)'),
  deepShapePeak: positive(' (times queueTarget)'),
  deepShapeFar: positive(' (times queueTarget)'),
  openBoost: nonNegative(' (times the baseline activity)'),
  openDecayS: positive(SECONDS),
  closeBoost: nonNegative(' (times the baseline activity)'),
  closeDecayS: positive(SECONDS),
  continuousPath: z.boolean('true or false (one price path across days)'),
  gapSd: nonNegative(' (log return, standard deviation of a calm overnight gap)'),
  gapJumpProb: fraction(' (probability of a news night)'),
  gapJumpSd: nonNegative(' (log return, standard deviation of a news-night gap)'),
  pathReversionDays: positive(" (trading days, half-life of the pull toward the range's middle)"),
} satisfies { [K in Exclude<keyof MarketProfile, keyof typeof extraShape>]: z.ZodType<MarketProfile[K]> };

export type FlowExtra = Partial<{ [K in keyof typeof extraShape]: number }>;
export const EXTRA_KEYS = Object.keys(extraShape) as (keyof typeof extraShape)[];

const fileSchema = z.strictObject(
  {
    kind: z.literal(PROFILE_FILE_KIND, `"${PROFILE_FILE_KIND}"`),
    version: z.literal(PROFILE_FILE_VERSION, `${PROFILE_FILE_VERSION}`),
    root: z.string('a contract root such as "ES"').regex(ROOT_RE, 'a contract root such as "ES"'),
    profile: z.strictObject(profileShape, 'an object of MarketProfile keys (docs/calibration.md)').partial(),
    extra: z.strictObject(extraShape, 'an object of order-flow parameters (docs/calibration.md)').partial().optional(),
    calibration: z.record(z.string(), z.unknown(), 'an object (how the profile was fitted)').optional(),
  },
  `an object with kind, version, root and profile`,
);

export type MarketProfileFile = z.infer<typeof fileSchema>;

export class ProfileFileError extends Error {
  override name = 'ProfileFileError';
}

/** The key path of an issue, e.g. profile.addSize. */
function keyOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(document)' : path.map(String).join('.');
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** Validates parsed JSON as a profile file; errors name the file, the key, the value and what was expected. */
export function parseMarketProfile(json: unknown, source: string): MarketProfileFile {
  const r = fileSchema.safeParse(json);
  if (r.success) {
    const x = r.data.extra;
    if (x?.modifyDownShare !== undefined && x.modifyUpShare !== undefined && x.modifyDownShare + x.modifyUpShare > 1) {
      throw new ProfileFileError(
        `${source}: extra.modifyUpShare = ${x.modifyUpShare}: expected at most 1 - extra.modifyDownShare (${x.modifyDownShare}): the rest are price changes`,
      );
    }
    return r.data;
  }
  const lines = r.error.issues.map((iss) => {
    if (iss.code === 'unrecognized_keys')
      return iss.keys.map((k) => `${source}: ${keyOf([...iss.path, k])}: unknown key (expected one of ${knownKeys(iss.path).join(', ')})`).join('\n');
    const v = valueAt(json, iss.path);
    return `${source}: ${keyOf(iss.path)} = ${v === undefined ? '(missing)' : JSON.stringify(v)}: expected ${iss.message}`;
  });
  throw new ProfileFileError(lines.join('\n'));
}

function knownKeys(path: readonly PropertyKey[]): string[] {
  if (path[0] === 'profile') return Object.keys(profileShape);
  if (path[0] === 'extra') return EXTRA_KEYS;
  return Object.keys(fileSchema.shape);
}

/** Reads and validates a profile file. */
export function readMarketProfile(path: string): MarketProfileFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ProfileFileError(
      `${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a profile file' : (e as Error).message} ` +
        `(expected a market profile JSON file, as npm run calibrate writes)`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ProfileFileError(`${path}: not JSON (${(e as Error).message}): expected a market profile JSON file, as npm run calibrate writes`);
  }
  return parseMarketProfile(json, path);
}

/**
 * The complete profile a file selects for its root: the root's own profile (from `spec`, its
 * contract table) with the file's keys on top, and the file's order-flow parameters beside them
 * (under their own names, which the generator's flow structure reads).
 */
export function completeProfile(file: MarketProfileFile, spec: ContractSpec): MarketProfile {
  const own = profileFor({ ...spec, profile: undefined });
  return Object.freeze({ ...own, ...file.profile, ...(file.extra ?? {}) });
}

/**
 * JSON text of a profile file (full precision; keys in the order of the checks above). The
 * flow-structure parameters go to `extra`: those given, else those the profile object carries
 * (a base profile file's, which a profile loaded by completeProfile holds beside its keys).
 */
export function profileFileJson(root: string, profile: MarketProfile, extra: FlowExtra, calibration: Record<string, unknown>): string {
  const values = profile as unknown as Record<string, number | undefined>;
  const ordered: Record<string, number> = {};
  for (const k of Object.keys(profileShape)) ordered[k] = values[k]!;
  const flow: FlowExtra = {};
  for (const k of EXTRA_KEYS) {
    const v = extra[k] ?? values[k];
    if (v !== undefined) flow[k] = v;
  }
  const file: MarketProfileFile = { kind: PROFILE_FILE_KIND, version: PROFILE_FILE_VERSION, root, profile: ordered, extra: flow, calibration };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/**
 * The contract specs of a config's roots with its selected profile (if any) on its root's spec:
 * `table` is the config's [contracts] specs; the profile's root may also be a built-in one.
 */
export function withSelectedProfile(table: Readonly<Record<string, ContractSpec>>, profilePath: string | undefined): Record<string, ContractSpec> {
  const out = { ...table };
  if (profilePath === undefined) return out;
  const file = readMarketProfile(profilePath);
  const spec = contractForRoot(file.root, table);
  if (spec.market === null)
    throw new ProfileFileError(
      `${profilePath}: root ${file.root} has no synthetic market ([contracts.${file.root}.market]): a profile needs a root the synthetic market can run`,
    );
  out[file.root] = { ...spec, profile: completeProfile(file, spec) };
  return out;
}
