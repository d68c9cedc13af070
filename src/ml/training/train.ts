// Training and evaluation of the mid-move model (npm run train; entry: src/bin/train.ts).
//
// Data: synthetic sessions of one contract root (dataset.ts; one model per root, written to
// models/<ROOT>.json), sampled every 100 ms of market time, label = mid move over the next 1 s
// in ticks. Three disjoint sets of sessions, each with its own dates
// and seeds (train-recipe.ts): training (fits the weights), validation (picks the epoch: early
// stopping) and test (held out: touched once, by the final model, for the reported metrics).
//
// Model: an MLP 9 -> 16 -> 16 -> 1 (mlp-network.ts; ReLU hidden units, linear output; 416
// multiply-adds), fit by minibatch Adam (adam.ts) on the mean squared error of the normalised
// label. The squared error is the right loss for the job: its minimiser is the conditional
// mean, and the strategy wants the expected move (a classifier over down/flat/up would throw
// away the size of the move).
//
// Reported against baselines on the held-out sessions (metrics.ts):
//   - zero prediction (no view on the move) and the training-mean label (a constant drift);
//   - untrained one-feature signals: OFI, book imbalance, microprice offset (signal-baselines.ts);
//   - a ridge linear regression on the same normalised features (ridge.ts).
//
// Deterministic: sessions, initialisation and shuffling come from fixed seeds, the arithmetic
// is plain float64 in a fixed order, and the file carries no timestamp, so two runs write
// byte-identical models/<ROOT>.json. Timing goes to the printed report only. The file records
// the SHA-256 of a 10-minute slice of the training data (training.dataCheck): a test rebuilds
// that slice, so a change of the generator or the features that would make `npm run train`
// write another model fails the suite until the model is retrained. That is how the shipped
// model once drifted from the code: see "The model" in the docs.

import { createHash } from 'node:crypto';
import { FEATURE_COUNT, FEATURE_DEFAULTS, FEATURE_NAMES } from '../../book/features.ts';
import { NS_PER_S } from '../../core/events.ts';
import { Rng } from '../../core/rng.ts';
import { Adam, type ParamGroup } from './adam.ts';
import { buildDataset, datasetDigest, predictDataset, type Dataset, type SessionRef } from './dataset.ts';
import { evaluate, round6, type Metrics } from './metrics.ts';
import { MlpNetwork } from './mlp-network.ts';
import { MODEL_FORMAT, MODEL_FORMAT_VERSION, MODEL_KIND, MlpPredictor, multiplyAdds, type ModelFile } from '../inference/model.ts';
import { fitNormalization, normalize } from './normalization.ts';
import { fitRidge, ridgePredict } from './ridge.ts';
import { fitSignalBaseline, SIGNAL_NAMES, SignalPredictor, type SignalBaseline, type SignalName } from './signal-baselines.ts';
import { dataCheckSession, type TrainConfig } from './train-recipe.ts';
import { clock, formatTrainReport, type SetMetrics, type Timings } from './train-report.ts';

export interface TrainResult {
  model: ModelFile;
  report: string;
  timings: Timings;
}

const sessionInfo = (r: SessionRef) => ({ date: r.date, seed: r.seed, start: clock(r.startNs), end: clock(r.endNs) });

/** Trains, evaluates and returns the model file plus a printable report. */
export function trainModel(cfg: TrainConfig, log: (line: string) => void = () => {}): TrainResult {
  const t0 = performance.now();
  const onSession = (r: SessionRef, d: Dataset) =>
    log(`  session ${r.root} ${r.date} seed ${r.seed}: ${d.perSession[0].events.toLocaleString('en-US')} events, ${d.n.toLocaleString('en-US')} samples`);
  log('building datasets (training)');
  const train = buildDataset(cfg.train, cfg.sample, onSession);
  log('building datasets (validation)');
  const val = buildDataset(cfg.validation, cfg.sample, onSession);
  log('building datasets (test, held out)');
  const test = buildDataset(cfg.test, cfg.sample, onSession);
  const check = dataCheckSession(cfg.train[0]);
  const checkData = buildDataset([check], cfg.sample);
  const t1 = performance.now();

  const norm = fitNormalization(train, cfg.clip);
  const xTrain = normalize(train, norm);
  const xVal = normalize(val, norm);
  let ySum = 0,
    yy = 0;
  for (let i = 0; i < train.n; i++) ySum += train.y[i];
  const yMean = ySum / train.n;
  for (let i = 0; i < train.n; i++) yy += (train.y[i] - yMean) ** 2;
  const yStd = Math.sqrt(yy / train.n);
  // The network learns y / yStd (unit scale); the output layer's bias carries any mean.
  const yTrain = train.y.map((v) => v / yStd);
  const yVal = val.y.map((v) => v / yStd);

  const rng = new Rng(cfg.seed);
  const sizes = [FEATURE_COUNT, ...cfg.hidden, 1];
  const net = new MlpNetwork(sizes, rng);
  const groups: ParamGroup[] = [];
  for (let k = 0; k < net.w.length; k++) {
    groups.push({ params: net.w[k], grads: net.gw[k], l2: cfg.l2 }, { params: net.b[k], grads: net.gb[k], l2: 0 });
  }
  const adam = new Adam(groups);
  const order = new Int32Array(train.n);
  for (let i = 0; i < train.n; i++) order[i] = i;
  let best = { mse: net.mse(xVal, yVal), epoch: 0, params: net.snapshot() };
  const history: { epoch: number; lr: number; trainMse: number; valMse: number }[] = [];
  log(`training MLP ${sizes.join('-')} on ${train.n.toLocaleString('en-US')} samples (validation MSE at init ${best.mse.toFixed(5)}, normalised units)`);
  let lr = cfg.learningRate;
  let bad = 0;
  for (let epoch = 1; epoch <= cfg.epochs; epoch++) {
    for (let i = train.n - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    let se = 0;
    for (let s = 0; s < train.n; s += cfg.batchSize) {
      const e = Math.min(train.n, s + cfg.batchSize);
      net.zeroGrad();
      for (let q = s; q < e; q++) {
        const i = order[q];
        const err = net.forward(xTrain, i * FEATURE_COUNT) - yTrain[i];
        se += err * err;
        net.backward(err); // d(err^2 / 2)/d out
      }
      adam.step(lr, e - s);
    }
    const valMse = net.mse(xVal, yVal);
    history.push({ epoch, lr: round6(lr), trainMse: round6(se / train.n), valMse: round6(valMse) });
    log(
      `  epoch ${String(epoch).padStart(2)}  lr ${lr.toExponential(2)}  train MSE ${(se / train.n).toFixed(5)}  validation MSE ` +
        `${valMse.toFixed(5)}${valMse < best.mse ? '  *' : ''}`,
    );
    if (valMse < best.mse) {
      best = { mse: valMse, epoch, params: net.snapshot() };
      bad = 0;
    } else if (++bad >= cfg.patience) break;
    lr *= cfg.lrDecay;
  }
  const t2 = performance.now();

  const body = {
    format: MODEL_FORMAT,
    formatVersion: MODEL_FORMAT_VERSION,
    modelVersion: '',
    kind: MODEL_KIND,
    target: `mid-price move over the next ${cfg.sample.horizonNs / NS_PER_S} s of market time, ticks (expected value; trained on mean squared error)`,
    horizonNs: cfg.sample.horizonNs,
    features: [...FEATURE_NAMES],
    featureOptions: { ...FEATURE_DEFAULTS },
    roots: [cfg.root],
    normalization: { mean: norm.mean, std: norm.std, clip: norm.clip },
    layers: net.layers(best.params),
    output: { scale: yStd, offset: 0 },
    training: {},
    metrics: {},
  } satisfies ModelFile as ModelFile;
  const hash = createHash('sha256')
    .update(JSON.stringify([body.normalization, body.layers, body.output, body.horizonNs, body.features]))
    .digest('hex')
    .slice(0, 12);
  body.modelVersion = `${cfg.root.toLowerCase()}-mlp-${sizes.join('x')}-h${cfg.sample.horizonNs / NS_PER_S}s-${hash}`;

  // ---- evaluation, with the shipped inference code, on validation and the held-out test ----
  const mlp = new MlpPredictor(body);
  const beta = fitRidge(xTrain, train.y, cfg.ridge);
  const signals = Object.fromEntries(SIGNAL_NAMES.map((s) => [s, fitSignalBaseline(s, train, norm)])) as Record<SignalName, SignalBaseline>;
  const evalSet = (d: Dataset): SetMetrics => {
    const baselines: Record<string, Metrics> = {
      zero: evaluate(new Float64Array(d.n), d.y),
      trainMean: evaluate(new Float64Array(d.n).fill(yMean), d.y),
    };
    for (const s of SIGNAL_NAMES) baselines[s] = evaluate(predictDataset(new SignalPredictor(s, signals[s], body.horizonNs), d), d.y);
    baselines.ridgeLinear = evaluate(ridgePredict(beta, normalize(d, norm)), d.y);
    return { model: evaluate(predictDataset(mlp, d), d.y), baselines };
  };
  const valMetrics = evalSet(val);
  const testMetrics = evalSet(test);
  const t3 = performance.now();

  const samples = (d: Dataset) => d.perSession.map((s) => ({ ...sessionInfo(s.ref), events: s.events, samples: s.samples }));
  body.training = {
    seed: cfg.seed,
    roots: [cfg.root],
    data: {
      generator: 'MarketGenerator (src/market/generator.ts), activity ' + cfg.sample.activity,
      sampleIntervalNs: cfg.sample.sampleIntervalNs,
      warmupNs: cfg.sample.warmupNs,
      label: 'mid(t + horizon) - mid(t), ticks; features as of the last event before t',
      train: { sessions: samples(train), samples: train.n },
      validation: { sessions: samples(val), samples: val.n },
      test: { sessions: samples(test), samples: test.n },
    },
    dataCheck: { root: check.root, ...sessionInfo(check), sample: cfg.sample, samples: checkData.n, sha256: datasetDigest(checkData) },
    optimizer: {
      name: 'adam',
      learningRate: cfg.learningRate,
      lrDecayPerEpoch: cfg.lrDecay,
      batchSize: cfg.batchSize,
      l2: cfg.l2,
      maxEpochs: cfg.epochs,
      patience: cfg.patience,
    },
    bestEpoch: best.epoch,
    history,
    labelStd: round6(yStd),
    labelMean: round6(yMean),
    ridgeBaseline: { lambda: cfg.ridge, intercept: round6(beta[0]), coefficients: Object.fromEntries(FEATURE_NAMES.map((n, f) => [n, round6(beta[f + 1])])) },
    // Full precision: these are the baselines' parameters (SignalPredictor reads them back).
    signalBaselines: signals,
    multiplyAdds: multiplyAdds(body),
  };
  body.metrics = { note: 'test = held-out sessions (other dates and seeds), evaluated once with the final model', test: testMetrics, validation: valMetrics };

  const timings = { dataMs: t1 - t0, trainMs: t2 - t1, evalMs: t3 - t2 };
  const report = formatTrainReport(body, cfg, { train, val, test }, { test: testMetrics, validation: valMetrics }, best.epoch, timings);
  return { model: body, report, timings };
}
