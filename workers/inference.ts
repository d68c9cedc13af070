// Inference worker (simulation mode): for every symbol, waits for a new feature vector from the
// engine thread, runs the model of the symbol's root and publishes the prediction (expected mid
// move in ticks) with the engine time of the features it describes. A symbol whose root has no
// model gets nothing published: the engine then has no signal for it, and /api/state says why.

import { workerData } from 'node:worker_threads';
import { RecordRing } from '../src/core/ring.ts';
import { FEATURE_COUNT } from '../src/book/features.ts';
import { createPredictor } from '../src/ml/inference/mlp-simd.ts';
import type { ModelFile } from '../src/ml/inference/model.ts';
import { Seqlock } from '../src/shm/seqlock.ts';
import { CB_HB_INF, CB_STOP, FT_FIELDS, FT_TS, LAT_SECONDS, LAT_STAGE, PR_COUNT, PR_TS, PR_VALUE, PR_WALL, STAGE_INFERENCE } from '../src/runtime/layout.ts';
import { checkStallFault } from '../src/runtime/layout.ts';
import type { WorkerInit } from '../src/runtime/worker-config.ts';
import { setThreadTimerSlack, WORKER_TIMER_SLACK_NS } from '../src/runtime/timer-slack.ts';
import { wallMs } from '../src/runtime/wall-clock.ts';

const init = workerData as WorkerInit & { models: (ModelFile | null)[] };
setThreadTimerSlack(WORKER_TIMER_SLACK_NS);
const ctl = new Int32Array(init.layout.control);

// One predictor per model file: symbols of the same root share it (it is used by this thread only).
const predictors = new Map<ModelFile, ReturnType<typeof createPredictor>>();
const slots = init.layout.symbols.map((m, i) => ({
  features: new Seqlock(m.features),
  prediction: new Seqlock(m.prediction),
  lat: new RecordRing(m.latInference),
  seen: 0,
  count: 0,
  x: new Float64Array(FT_FIELDS),
  input: new Float64Array(FEATURE_COUNT),
  predictor: predictorOf(init.models[i]),
}));

function predictorOf(model: ModelFile | null): ReturnType<typeof createPredictor> | null {
  if (!model) return null;
  let p = predictors.get(model);
  if (!p) predictors.set(model, (p = createPredictor(model)));
  return p;
}

while (Atomics.load(ctl, CB_STOP) === 0) {
  Atomics.add(ctl, CB_HB_INF, 1);
  checkStallFault(ctl, 'inference');
  let work = 0;
  for (const s of slots) {
    const v = s.features.version;
    if (v === s.seen || (v & 1) === 1) continue;
    s.seen = s.features.read(s.x);
    const predictor = s.predictor;
    if (!predictor) continue;
    // Copied by hand: subarray() would make a new view per prediction. wallMs(), not
    // performance.now(): no heap number per read, and the simulation's shared time base.
    const x = s.x;
    const input = s.input;
    for (let i = 0; i < FEATURE_COUNT; i++) input[i] = x[i];
    const t0 = wallMs();
    const y = predictor.predict(input);
    const t1 = wallMs();
    s.count++;
    const p = s.prediction;
    p.beginWrite();
    p.data[PR_VALUE] = y;
    p.data[PR_TS] = s.x[FT_TS];
    p.data[PR_WALL] = t1;
    p.data[PR_COUNT] = s.count;
    p.endWrite();
    const off = s.lat.claim();
    if (off >= 0) {
      s.lat.data[off + LAT_STAGE] = STAGE_INFERENCE;
      s.lat.data[off + LAT_SECONDS] = (t1 - t0) / 1000;
      s.lat.publish();
    } else s.lat.countDrop();
    work++;
  }
  // Block on the first symbol's feature slot (the usual case is one symbol); others are polled.
  if (work === 0) slots[0].features.waitForChange(slots[0].seen, slots.length > 1 ? 2 : 20);
}
