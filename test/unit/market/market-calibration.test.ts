// `npm run calibrate` (src/market/calibrate/, docs/calibration.md) by parameter recovery: a
// synthetic ES market with known, non-default parameters is exported as DBN MBO, calibrated
// through the command, and the fitted parameters must land within the tolerances the docs state;
// then the calibrated profile, run on another seed, must reproduce the recorded data's facts
// within their tolerances. Also: the profile file selected by the config reaches the generator's
// spec, bad profile files and bad flags are errors naming the key or flag, and default specs
// carry no profile (so nothing moves without one).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, parseConfig } from '../../../src/config/load.ts';
import { configContracts } from '../../../src/config/contracts.ts';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { runCalibrateCommand } from '../../../src/market/calibrate/calibrate-command.ts';
import { dbnFacts, syntheticFacts } from '../../../src/market/facts/facts.ts';
import { runFactsCommand } from '../../../src/market/facts/facts-command.ts';
import { CONTRACTS, contractForRoot } from '../../../src/market/instruments.ts';
import { profileFileJson, readMarketProfile, withSelectedProfile } from '../../../src/market/profile-file.ts';
import { NEUTRAL_MARKET, profileFor, REALISTIC_FLOW } from '../../../src/market/profiles.ts';
import type { MarketProfile } from '../../../src/market/market-profile.ts';

const dir = mkdtempSync(join(tmpdir(), 'market-calibration-'));
const H = 3600e9;
const FROM = 9.5 * H;
const TO = 10 * H;

// Volatility clustering off in truth and base: the activity is the U-shape alone, so a 30-minute
// window identifies the rates (with clustering a day's activity level is part of its rates).
// First the neutral flow (each size from its geometric, no modifies, bursts or spikes), then
// below the default market's realistic flow.
const BASE: MarketProfile = { ...profileFor(CONTRACTS.ES), ...NEUTRAL_MARKET, volOfVol: 0, dailyVolDispersion: 0 };
const TRUTH: MarketProfile = {
  ...BASE,
  annualVol: 0.2,
  queueTarget: 250,
  addSize: 6,
  cancelSize: 5,
  cancelHazard: 1.2,
  marketRate: 10,
  tradeSizeSmall: 2,
  tradeLargeProb: 0.1,
  burstSize: 60,
  deepAddSize: 10,
  openBoost: 3,
};

/** Relative tolerance of each recovered parameter (docs/calibration.md, "Parameter recovery"). */
const RELATIVE: Partial<Record<keyof MarketProfile, number>> = {
  addSize: 0.03,
  cancelSize: 0.03,
  deepAddSize: 0.03,
  deepCancelSize: 0.03,
  tradeSizeSmall: 0.03,
  tradeSizeLarge: 0.08,
  burstSize: 0.05,
  raceMeanUs: 0.1,
  annualVol: 0.15,
  queueTarget: 0.12,
  marketRate: 0.35,
  cancelHazard: 0.35,
  insideRate: 0.35,
  deepCancelHazard: 0.35,
  emptyLevelFillRate: 0.35,
  deepShapePeak: 0.25,
  deepShapeFar: 0.25,
  openBoost: 0.3,
};
/** Absolute tolerance of the probabilities. */
const ABSOLUTE: Partial<Record<keyof MarketProfile, number>> = { tradeLargeProb: 0.02, raceProb: 0.02 };

const data = join(dir, 'truth.mbo.dbn.zst');
const baseFile = join(dir, 'base.json');
const fitted = join(dir, 'fitted.json');
let exported = false;

/** The recorded data: `profile` on 2024-03-15 09:30-10:00, seed 7, exported as DBN MBO to `path`. */
async function exportMarket(path: string, profile: MarketProfile): Promise<void> {
  await exportSynthetic(
    path,
    [{ date: '2024-03-15', rawSymbol: 'ESH4', spec: { ...CONTRACTS.ES, profile }, seed: 7, sessionStartNs: FROM, sessionEndNs: TO, activity: 1 }],
    { schema: 'mbo', marketDataLatencyNs: 50_000 },
  );
}

async function exportTruth(): Promise<void> {
  if (exported) return;
  await exportMarket(data, TRUTH);
  writeFileSync(baseFile, profileFileJson('ES', BASE, {}, {}));
  exported = true;
}

function run(argv: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runCalibrateCommand(
    argv,
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

test('parameter recovery: the fitted profile of an exported synthetic market is the one it was generated with', async () => {
  await exportTruth();
  const r = run(['--data', data, '--out', fitted, '--from', '09:30', '--to', '10:00', '--base', baseFile]);
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /\| cancelHazard \| /);
  const file = readMarketProfile(fitted);
  assert.is(file.root, 'ES');
  const got = file.profile as MarketProfile;
  const misses: string[] = [];
  for (const [k, tol] of Object.entries(RELATIVE) as [keyof MarketProfile, number][]) {
    const err = Math.abs(Number(got[k]) / Number(TRUTH[k]) - 1);
    if (!(err <= tol)) misses.push(`${k}: fitted ${got[k]}, truth ${TRUTH[k]} (${(err * 100).toFixed(1)}% > ${tol * 100}%)`);
  }
  for (const [k, tol] of Object.entries(ABSOLUTE) as [keyof MarketProfile, number][]) {
    if (!(Math.abs(Number(got[k]) - Number(TRUTH[k])) <= tol)) misses.push(`${k}: fitted ${got[k]}, truth ${TRUTH[k]} (> ${tol} apart)`);
  }
  assert.equal(misses, [], misses.join('\n'));
  // What the data cannot identify is the base's, and said so.
  const cal = file.calibration as { kept: Record<string, string>; fitted: Record<string, string> };
  for (const k of ['kappaCancel', 'volOfVol', 'closeBoost', 'openDecayS', 'maxSweepLevels'] as const) {
    assert.is(got[k], BASE[k], k);
    assert.ok(k in cal.kept, `${k} listed as kept`);
  }
  // The flow structure's parameters: no 1-lot excess, no modifies, no open spike in this market.
  assert.ok((file.extra?.addSize1Prob ?? 1) < 0.02, `addSize1Prob ${file.extra?.addSize1Prob}`);
  assert.is(file.extra?.modifyPerCancel, 0);
  assert.ok((file.extra?.openSpikeBoost ?? 1) < 0.5, `openSpikeBoost ${file.extra?.openSpikeBoost} (no spike in this market)`);
});

test('the calibrated market on another seed has the recorded data facts, within tolerances', async () => {
  await exportTruth();
  if (!readFileSync(fitted, 'utf8')) throw new Error('run the recovery test first');
  const profile = withSelectedProfile({}, fitted).ES.profile;
  const recorded = dbnFacts(data, { fromNs: FROM, toNs: TO })[0].facts;
  const synthetic = syntheticFacts({ root: 'ES', profile, date: '2024-03-15', seed: 8, startNs: FROM, endNs: TO }).facts;
  // [fact, relative tolerance]: docs/calibration.md, "Facts of the calibrated market".
  const tolerances: [string, number][] = [
    ['one_tick_spread_share', 0.01],
    ['mean_best_queue', 0.15],
    ['l2_events', 0.15],
    ['add_size_mean', 0.05],
    ['size1_share', 0.1],
    ['fills_per_trade', 0.1],
    ['inter_event_median_ns', 0.2],
    ['spread_gap_median_ns', 0.25],
    ['annualised_vol', 0.5],
  ];
  const misses = tolerances
    .filter(([k, tol]) => !(Math.abs(synthetic[k] / recorded[k] - 1) <= tol))
    .map(([k, tol]) => `${k}: synthetic ${synthetic[k]}, recorded ${recorded[k]} (> ${tol * 100}%)`);
  assert.equal(misses, [], misses.join('\n'));
  // The facts command takes the same profile for its synthetic column.
  let out = '';
  const code = runFactsCommand(
    ['--profile', fitted, '--seed', '8', '--from', '09:30', '--to', '10:00', '--json'],
    (s) => (out += s),
    () => {},
  );
  assert.is(code, 0);
  assert.is(JSON.parse(out).sessions[0].facts.l2_events, synthetic.l2_events);
});

// The same recovery under the realistic order flow (1-lot sizes, modifies, Hawkes bursts, the open
// spike): truth and base both carry REALISTIC_FLOW (the base gives the spikes' decay times; their boosts are fitted).
// Tolerances: docs/calibration.md, "Parameter recovery under the realistic flow".
const FLOW_BASE: MarketProfile = { ...BASE, ...REALISTIC_FLOW };
const FLOW_TRUTH: MarketProfile = { ...TRUTH, ...REALISTIC_FLOW };
const FLOW_RELATIVE: Partial<Record<keyof MarketProfile, number>> = {
  ...RELATIVE,
  addSize: 0.06,
  cancelSize: 0.06,
  deepAddSize: 0.08,
  deepCancelSize: 0.15,
  deepShapePeak: 0.25,
  modifyPerCancel: 0.25,
};

const flowData = join(dir, 'flow.mbo.dbn.zst');
let flowExported = false;

async function exportFlowTruth(): Promise<void> {
  if (flowExported) return;
  await exportMarket(flowData, FLOW_TRUTH);
  flowExported = true;
}

test('parameter recovery under the realistic flow: annualVol, the rates, sizes and flow structure within tolerances', async () => {
  await exportFlowTruth();
  const flowBase = join(dir, 'flow-base.json');
  const flowFitted = join(dir, 'flow-fitted.json');
  writeFileSync(flowBase, profileFileJson('ES', FLOW_BASE, {}, {}));
  const r = run(['--data', flowData, '--out', flowFitted, '--from', '09:30', '--to', '10:00', '--base', flowBase]);
  assert.is(r.code, 0, r.err);
  const file = readMarketProfile(flowFitted);
  const got = { ...file.profile, ...file.extra } as MarketProfile;
  const misses: string[] = [];
  for (const [k, tol] of Object.entries(FLOW_RELATIVE) as [keyof MarketProfile, number][]) {
    const err = Math.abs(Number(got[k]) / Number(FLOW_TRUTH[k]) - 1);
    if (!(err <= tol)) misses.push(`${k}: fitted ${got[k]}, truth ${FLOW_TRUTH[k]} (${(err * 100).toFixed(1)}% > ${tol * 100}%)`);
  }
  const absolute: Partial<Record<keyof MarketProfile, number>> = {
    ...ABSOLUTE,
    addSize1Prob: 0.02,
    cancelSize1Prob: 0.02,
    deepAddSize1Prob: 0.02,
    burstBranching: 0.1,
    openSpikeBoost: 1.5,
  };
  for (const [k, tol] of Object.entries(absolute) as [keyof MarketProfile, number][]) {
    if (!(Math.abs(Number(got[k]) - Number(FLOW_TRUTH[k])) <= tol)) misses.push(`${k}: fitted ${got[k]}, truth ${FLOW_TRUTH[k]} (> ${tol} apart)`);
  }
  assert.equal(misses, [], misses.join('\n'));
  // The facts: the calibrated market on seed 8 against the recorded data (1-minute vol: 29 returns each).
  const recorded = dbnFacts(flowData, { fromNs: FROM, toNs: TO })[0].facts;
  const synthetic = syntheticFacts({
    root: 'ES',
    profile: withSelectedProfile({}, flowFitted).ES.profile,
    date: '2024-03-15',
    seed: 8,
    startNs: FROM,
    endNs: TO,
  }).facts;
  for (const [k, tol] of [
    ['annualised_vol', 0.5],
    ['size1_share', 0.1],
    ['mean_best_queue', 0.15],
  ] as [string, number][])
    assert.ok(Math.abs(synthetic[k] / recorded[k] - 1) <= tol, `${k}: synthetic ${synthetic[k]}, recorded ${recorded[k]} (> ${tol * 100}%)`);
});

// The base a user gets by default (the root's own profile) has no spikes: the open spike must be
// fitted, or the U-shape takes it, and annualVol, divided by the U-shape, comes out far low.
test('realistic flow calibrated on a base without spikes: the open spike is fitted, annualVol and openBoost recovered', async () => {
  await exportFlowTruth();
  const plainFitted = join(dir, 'flow-plain-fitted.json');
  writeFileSync(baseFile, profileFileJson('ES', BASE, {}, {}));
  const r = run(['--data', flowData, '--out', plainFitted, '--from', '09:30', '--to', '10:00', '--base', baseFile]);
  assert.is(r.code, 0, r.err);
  const file = readMarketProfile(plainFitted);
  const got = file.profile as MarketProfile;
  assert.ok(Math.abs(got.annualVol / FLOW_TRUTH.annualVol - 1) <= 0.15, `annualVol ${got.annualVol}, truth ${FLOW_TRUTH.annualVol}`);
  assert.ok(Math.abs(got.openBoost / FLOW_TRUTH.openBoost - 1) <= 0.3, `openBoost ${got.openBoost}, truth ${FLOW_TRUTH.openBoost}`);
  // The base's spike decay (60 s) is not the truth's (40 s): the spike's extra events (boost x decay) are what is identified.
  const area = (file.extra?.openSpikeBoost ?? 0) * BASE.openSpikeDecayS;
  const truthArea = FLOW_TRUTH.openSpikeBoost * FLOW_TRUTH.openSpikeDecayS;
  assert.ok(Math.abs(area / truthArea - 1) <= 0.25, `openSpikeBoost x decay ${area}, truth ${truthArea}`);
  assert.ok('openSpikeBoost' in (file.calibration as { fitted: Record<string, string> }).fitted, 'openSpikeBoost listed as fitted');
});

test('[market] profile selects the file for its root in every spec the config makes; without it no spec has a profile', () => {
  const text = `[market]\nprofile = ${JSON.stringify(fitted)}\n`;
  try {
    const c = parseConfig(text, 'test.toml');
    const file = readMarketProfile(fitted);
    assert.equal(contractForRoot('ES').profile?.cancelHazard, file.profile.cancelHazard);
    assert.equal(profileFor(contractForRoot('ES', configContracts(c))).addSize, file.profile.addSize);
    assert.is(contractForRoot('NQ').profile, undefined, 'other roots keep their own profile');
    assert.is(profileFor(contractForRoot('ES')).queueTarget, file.profile.queueTarget);
  } finally {
    parseConfig('', 'default.toml');
  }
  assert.is(contractForRoot('ES').profile, undefined);
  assert.not.ok('profile' in contractForRoot('ES'), 'a default spec has no profile key at all (results unchanged)');
});

test('a bad profile file is a config error naming market.profile, the key, the value and what was expected', () => {
  const cases: [string, string | null, RegExp][] = [
    ['missing.json', null, /market\.profile = ".*missing\.json": expected a market profile file .*no such file/],
    ['not-json.json', '{ addSize: 3', /not JSON/],
    [
      'neg.json',
      JSON.stringify({ kind: 'futures-mm-engine market profile', version: 1, root: 'ES', profile: { addSize: -2 } }),
      /profile\.addSize = -2: expected a number >= 1/,
    ],
    [
      'unknown.json',
      JSON.stringify({ kind: 'futures-mm-engine market profile', version: 1, root: 'ES', profile: { addSizes: 3 } }),
      /profile\.addSizes: unknown key \(expected one of annualVol, /,
    ],
    [
      'kind.json',
      JSON.stringify({ kind: 'something', version: 1, root: 'ES', profile: {} }),
      /kind = "something": expected "futures-mm-engine market profile"/,
    ],
    [
      'shares.json',
      JSON.stringify({ kind: 'futures-mm-engine market profile', version: 1, root: 'ES', profile: {}, extra: { modifyDownShare: 0.7, modifyUpShare: 0.5 } }),
      /extra\.modifyUpShare = 0\.5: expected at most 1 - extra\.modifyDownShare \(0\.7\)/,
    ],
    ['root.json', JSON.stringify({ kind: 'futures-mm-engine market profile', version: 1, root: 'ZZ', profile: {} }), /unknown contract root 'ZZ'/],
  ];
  try {
    for (const [name, body, re] of cases) {
      const path = join(dir, name);
      if (body !== null) writeFileSync(path, body);
      let e: unknown = null;
      try {
        parseConfig(`[market]\nprofile = ${JSON.stringify(path)}\n`, 'bad.toml');
      } catch (x) {
        e = x;
      }
      assert.ok(e instanceof ConfigError, name);
      assert.match((e as Error).message, /^bad\.toml: market\.profile = /, name);
      assert.match((e as Error).message, re, name);
    }
  } finally {
    parseConfig('', 'default.toml');
  }
});

test('calibrate flags: missing or bad values exit 2 naming the flag; unreadable data exits 1', () => {
  const cases: [string[], RegExp][] = [
    [['--out', 'x.json'], /--data: required/],
    [['--data', dir], /--out: required/],
    [['--data', join(dir, 'nope'), '--out', 'x.json'], /--data ".*nope": no such file or directory/],
    [['--data', dir, '--out', 'x.json', '--from', '9h'], /--from "9h": expected a time HH:MM/],
    [['--data', dir, '--out', 'x.json', '--from', '10:00', '--to', '09:30'], /--to 09:30 is not after --from 10:00/],
    [['--data', dir, '--out', 'x.json', '--iterations', '-1'], /--iterations|ERR_PARSE_ARGS|option/],
    [['--data', dir, '--out', 'x.json', '--iterations', '99'], /--iterations "99": expected an integer in 0\.\.20/],
    [['--data', dir, '--out', 'x.json', '--symbol', 'es'], /--symbol "es": expected a contract root/],
  ];
  for (const [argv, re] of cases) {
    const r = run(argv);
    assert.is(r.code, 2, argv.join(' '));
    assert.match(r.err, re, argv.join(' '));
  }
  const empty = mkdtempSync(join(tmpdir(), 'calib-empty-'));
  const r = run(['--data', empty, '--out', join(empty, 'p.json')]);
  assert.is(r.code, 1);
  assert.match(r.err, /^error: --data .*: market data .*: a directory without \.dbn or \.dbn\.zst files/);
});

test.run();
