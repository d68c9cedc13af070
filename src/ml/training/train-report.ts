// The printed report of `npm run train`: the data, then per evaluation set a table of the model
// against every baseline, and a plain verdict on whether the model beats the best untrained
// signal out of sample.

import { FEATURE_COUNT } from '../../book/features.ts';
import { NS_PER_MS, NS_PER_S } from '../../core/events.ts';
import type { Dataset, SessionRef } from './dataset.ts';
import type { Metrics } from './metrics.ts';
import { multiplyAdds, type ModelFile } from '../inference/model.ts';
import { SIGNAL_NAMES } from './signal-baselines.ts';
import type { TrainConfig } from './train-recipe.ts';

export type SetMetrics = { model: Metrics; baselines: Record<string, Metrics> };
export interface Timings {
  dataMs: number;
  trainMs: number;
  evalMs: number;
}

/** HH:MM of ns after midnight. */
export function clock(ns: number): string {
  const m = Math.round(ns / 60e9);
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** Report rows: label and key in SetMetrics.baselines (null = the model). */
export const REPORT_ROWS: [string, string | null][] = [
  ['model (MLP)', null],
  ['ridge linear', 'ridgeLinear'],
  ['OFI signal', 'ofi'],
  ['imbalance sig.', 'imbalance'],
  ['microprice sig', 'microprice'],
  ['OFI clamp +-2', 'ofi-clamp'],
  ['train mean', 'trainMean'],
  ['zero', 'zero'],
];

const pct = (x: number | null) => (x === null ? '   n/a' : `${(x * 100).toFixed(2)}%`.padStart(7));
const fix = (x: number, d: number) => (Math.round(x * 10 ** d) / 10 ** d + 0).toFixed(d); // + 0: no "-0.00000"

/** The best untrained signal by held-out MSE, and whether the model's MSE is below it. */
export function bestSignal(s: SetMetrics): { name: string; metrics: Metrics; modelBeatsIt: boolean } {
  const name = SIGNAL_NAMES.reduce((a, b) => (s.baselines[b].mse < s.baselines[a].mse ? b : a));
  return { name, metrics: s.baselines[name], modelBeatsIt: s.model.mse < s.baselines[name].mse };
}

function table(title: string, s: SetMetrics): string {
  const line = (name: string, x: Metrics) =>
    `  ${name.padEnd(14)} ${fix(x.mse, 5).padStart(9)} ${fix(x.r2, 5).padStart(9)} ${fix(x.corr, 4).padStart(7)} ` +
    `${pct(x.directionalAccuracy)} ${pct(x.topDecileDirectionalAccuracy)} ${fix(x.topDecileMeanSignedMove ?? 0, 4).padStart(8)}`;
  const b = bestSignal(s);
  const verdict = b.modelBeatsIt
    ? `  the model beats the best untrained signal (${b.name}): MSE ${fix(s.model.mse, 5)} vs ${fix(b.metrics.mse, 5)}, R^2 ` +
      `${fix(s.model.r2, 4)} vs ${fix(b.metrics.r2, 4)}`
    : `  the model does NOT beat the best untrained signal (${b.name}): MSE ${fix(s.model.mse, 5)} vs ${fix(b.metrics.mse, 5)}`;
  return [
    title,
    `  ${'predictor'.padEnd(14)} ${'MSE'.padStart(9)} ${'R^2'.padStart(9)} ${'corr'.padStart(7)} ${'dir.acc'.padStart(7)} ` +
      `${'top10%'.padStart(7)} ${'top10%mv'.padStart(8)}`,
    ...REPORT_ROWS.map(([label, key]) => line(label, key === null ? s.model : s.baselines[key])),
    verdict,
  ].join('\n');
}

export function formatTrainReport(
  m: ModelFile,
  cfg: TrainConfig,
  sets: { train: Dataset; val: Dataset; test: Dataset },
  metrics: { test: SetMetrics; validation: SetMetrics },
  bestEpoch: number,
  t: Timings,
): string {
  const desc = (name: string, refs: SessionRef[], d: Dataset) =>
    `  ${name.padEnd(11)} ${refs.map((r) => `${r.date}/seed ${r.seed}`).join(', ')}  (${d.n.toLocaleString('en-US')} samples)`;
  return [
    `model ${m.modelVersion}`,
    `  MLP ${[FEATURE_COUNT, ...cfg.hidden, 1].join(' -> ')}, ReLU, ${multiplyAdds(m).toLocaleString('en-US')} multiply-adds, horizon ` +
      `${m.horizonNs / NS_PER_S} s, best epoch ${bestEpoch}`,
    `data: ${cfg.root} sessions ${clock(cfg.train[0].startNs)}-${clock(cfg.train[0].endNs)}, a sample every ` +
      `${cfg.sample.sampleIntervalNs / NS_PER_MS} ms after a ${cfg.sample.warmupNs / NS_PER_S} s warm-up`,
    desc('train', cfg.train, sets.train),
    desc('validation', cfg.validation, sets.val),
    desc('test', cfg.test, sets.test),
    table('held-out test sessions:', metrics.test),
    table('validation sessions:', metrics.validation),
    `  (signals: one feature, z-scored with the training mean/std, clamped to +-2, times a least-squares scale fitted on the training ` +
      `sessions only; OFI clamp: clamp(ofi_norm, +-2) as ticks, nothing fitted)`,
    `  (dir.acc: sign agreement where the move and the prediction are non-zero; top10%: the same over the 10% largest |prediction|; ` +
      `top10%mv: mean move in the predicted direction there, ticks)`,
    `time: data ${(t.dataMs / 1000).toFixed(1)} s, training ${(t.trainMs / 1000).toFixed(1)} s, evaluation ${(t.evalMs / 1000).toFixed(1)} s`,
  ].join('\n');
}
