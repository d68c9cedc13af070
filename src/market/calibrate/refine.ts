// Indirect inference on top of the moment estimators (fit.ts): an estimator that reads a rate
// off the data is biased wherever the model's feedback moves it (the informed flow cancels more
// from a queue about to be depleted, so cancels per resting contract exceed cancelHazard; a queue
// settles below its target; gaps close faster when the price is moving). The fitted profile is
// simulated on the data's own windows, the same estimators read the simulation, and each biased
// parameter is scaled by data estimate / simulation estimate; a few rounds converge. Parameters
// whose estimators are unbiased in the model (race delays, burst size) are left as fitted.

import type { ContractSpec } from '../instruments.ts';
import type { MarketProfile } from '../market-profile.ts';
import type { FlowExtra } from '../profile-file.ts';
import { type Calibration, calibrate, fitBursts, MAX_BOOST, modifyPerCancel } from './fit.ts';
import { CalibrationMeter, fanoFactor } from './measure.ts';
import { measureSynthetic } from './sources.ts';

/**
 * Parameters corrected by simulation, scaled by data / simulation: annualVol (the mid sampled
 * every 10 s carries the mid's own noise around the latent price: its lag and the pressure term,
 * 5-10 % of the volatility in a 30-minute ES window), the rates and shapes whose
 * estimators the model's feedback biases, and the sizes, which the order-flow structure's
 * modifies blur (a modify is a small cancel or add at the best in the level changes) and its
 * 1-lot market orders (a point mass at 1 the two-geometric fit does not have). Where an
 * estimator is unbiased in the model the correction is 1 up to the simulation's sampling noise.
 */
export const CORRECTED_KEYS = [
  'annualVol',
  'queueTarget',
  'cancelHazard',
  'marketRate',
  'insideRate',
  'deepCancelHazard',
  'emptyLevelFillRate',
  'deepShapePeak',
  'deepShapeFar',
  'openBoost',
  'openDecayS',
  'closeBoost',
  'closeDecayS',
  'addSize',
  'cancelSize',
  'deepAddSize',
  'deepCancelSize',
  'tradeSizeSmall',
  'tradeSizeLarge',
] as const satisfies readonly (keyof MarketProfile)[];

/** Shares corrected by simulation, shifted by data - simulation (kept in [0, 0.99]). */
export const CORRECTED_SHARES = ['addSize1Prob', 'cancelSize1Prob', 'deepAddSize1Prob'] as const satisfies readonly (keyof FlowExtra)[];

export interface RefineOptions {
  /** Simulation rounds (0: the moment estimates as they are). */
  iterations: number;
  /** First seed of the simulations (the same ones in every round, so rounds differ only by the profile). */
  seed: number;
  /** Simulated sessions per data window (seeds seed..seed+copies-1): less simulation noise in each correction. */
  copies: number;
}

/** Calibrates `data` for the root of `spec`: moments, then `iterations` rounds of simulation. */
export function calibrateWithSimulation(data: CalibrationMeter, base: Readonly<MarketProfile>, spec: ContractSpec, o: RefineOptions): Calibration {
  const target = calibrate(data, base);
  const out: Calibration = { ...target, profile: { ...target.profile }, extra: { ...target.extra }, fitted: { ...target.fitted } };
  const keys = CORRECTED_KEYS.filter((k) => k in target.fitted);
  const shares = CORRECTED_SHARES.filter((k) => target.extra[k] !== undefined);
  // Bursts start off: the first round measures the clustering the fitted model makes by itself.
  out.extra.burstBranching = 0;
  delete out.extra.burstDecayS;
  const fShort = fanoFactor(data.fano.short);
  const fLong = fanoFactor(data.fano.long);
  const burstState = { useShort: true };
  let modifiesSimulated = false;
  for (let i = 0; i < o.iterations; i++) {
    const sim = simulate(out, spec, data, o);
    const seen = calibrate(sim, base);
    bursts(out, i, fShort / fanoFactor(sim.fano.short), fLong / fanoFactor(sim.fano.long), burstState);
    for (const k of keys) {
      const want = target.profile[k];
      const got = seen.profile[k];
      if (want > 0 && got > 0) out.profile[k] *= want / got;
    }
    out.profile.openBoost = Math.min(out.profile.openBoost, MAX_BOOST);
    out.profile.closeBoost = Math.min(out.profile.closeBoost, MAX_BOOST);
    // Modifies: corrected like the rates when the simulation makes them (M records from its
    // modifies), else (a generator without them) from the corrected cancel rate below.
    const mpc = target.extra.modifyPerCancel;
    const seenMpc = seen.extra.modifyPerCancel ?? 0;
    if (mpc !== undefined && seenMpc > 0) {
      out.extra.modifyPerCancel = (out.extra.modifyPerCancel ?? mpc) * (mpc / seenMpc);
      modifiesSimulated = true;
    }
    for (const k of shares) out.extra[k] = Math.min(0.99, Math.max(0, out.extra[k]! + target.extra[k]! - (seen.extra[k] ?? 0)));
  }
  // Modifies per cancel without simulated modifies: the same modify count over the corrected cancel rate.
  if (target.extra.modifyPerCancel !== undefined && !modifiesSimulated) {
    const perContract =
      (target.extra.modifyPerCancel * target.profile.cancelHazard) /
      (target.extra.cancelSize1Prob! + (1 - target.extra.cancelSize1Prob!) * target.profile.cancelSize);
    out.extra.modifyPerCancel = modifyPerCancel(perContract, out.profile, out.extra.cancelSize1Prob!);
  }
  if (o.iterations > 0) for (const k of [...keys, ...shares]) out.fitted[k] = `${target.fitted[k]}; corrected by ${o.iterations} rounds of simulation`;
  if (o.iterations > 0) {
    out.fitted.burstBranching =
      `Fano factors of flow-event counts in 20 ms and 1 s windows over those of the fitted model simulated without ` +
      `bursts (Hawkes exponential kernel), then the factor of the window with the larger excess matched over ${o.iterations} rounds`;
    if ((out.extra.burstBranching ?? 0) > 0 && out.extra.burstDecayS !== undefined) {
      out.fitted.burstDecayS = "the decay time of the first round's fit of both Fano factors";
      delete out.kept.burstDecayS;
    } else {
      delete out.extra.burstDecayS;
      delete out.fitted.burstDecayS;
      out.kept.burstDecayS =
        (out.extra.burstBranching ?? 0) > 0
          ? 'the first round found no decay time (the excess is the same in both windows)'
          : 'no excess clustering (branching 0)';
    }
  } else {
    delete out.extra.burstBranching;
    delete out.extra.burstDecayS;
    delete out.fitted.burstBranching;
    delete out.fitted.burstDecayS;
    out.kept.burstBranching = out.kept.burstDecayS = 'fitted only with simulation rounds (--iterations > 0)';
  }
  return out;
}

/**
 * Bursts from the Fano factors of the data over those of a simulation (round `round`). In the
 * first round the simulation has no bursts: the excess over both windows fits the decay
 * (fitBursts), and the window with the larger excess (the one that holds whole bursts) is used
 * from then on. Each round moves n so that its factor matches, as a Hawkes process multiplies a
 * flow's factor by 1/(1-n)^2: 1 - n' = (1 - n) / sqrt(F_data / F_sim).
 */
function bursts(out: Calibration, round: number, ratioShort: number, ratioLong: number, state: { useShort: boolean }): void {
  if (!(ratioShort > 0 && ratioLong > 0)) return;
  if (round === 0) {
    state.useShort = ratioShort >= ratioLong;
    const b = fitBursts(ratioShort, ratioLong);
    if (b.branching > 0) out.extra.burstDecayS = b.decayS;
  }
  const ratio = state.useShort ? ratioShort : ratioLong;
  const n = out.extra.burstBranching ?? 0;
  out.extra.burstBranching = Math.min(0.95, Math.max(0, 1 - (1 - n) / Math.sqrt(ratio)));
}

/**
 * The fitted profile (its flow-structure parameters beside it, as a profile file loads them)
 * simulated on the data's windows (dates and hours), measured as the data was (the depth it shows).
 */
function simulate(c: Calibration, spec: ContractSpec, data: CalibrationMeter, o: RefineOptions): CalibrationMeter {
  const meter = new CalibrationMeter();
  meter.deepVisible = data.deepVisible;
  const s = { ...spec, profile: { ...c.profile, ...c.extra } };
  for (let i = 0; i < o.copies; i++) for (const w of data.windows) measureSynthetic(s, w.date, o.seed + i, w.startNs, w.endNs, meter);
  return meter;
}
