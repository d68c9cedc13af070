// Simulation mode with the model: the engine thread publishes feature vectors and wakes the
// inference worker once a burst of inputs is over (src/runtime/burst-wake.ts); every symbol's
// engine keeps receiving predictions, whichever way the engine thread idles, each from the model
// of its own root (models/<ROOT>.json).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pino from 'pino';
import { loadRootModel } from '../../../src/ml/inference/model-store.ts';
import type { EngineIdlePolicy } from '../../../src/runtime/idle-policy.ts';
import { SimulationRuntime } from '../../../src/runtime/simulation.ts';
import { until } from '../../helpers/wait.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const SYMBOLS = ['ESH24', 'NQH24'];

async function run(policy: EngineIdlePolicy): Promise<void> {
  const config = shippedConfigNoModel();
  config.simulation.speed = 4;
  config.simulation.engine_idle = policy;
  config.trading.symbols = SYMBOLS;
  config.strategy.use_ml = true;
  const models = (root: string) => {
    const m = loadRootModel(config, root);
    if (!m.ok) throw new Error(`the shipped ${root} model: ${m.error}`);
    return { file: m.model, error: null };
  };
  const rt = new SimulationRuntime({ config, logger: pino({ level: 'silent' }), models });
  rt.start();
  try {
    const count = (sym: string) => rt.metrics().find((x) => x.symbol === sym)?.predictions ?? 0;
    await until(`${policy}: predictions for every symbol`, () => SYMBOLS.every((s) => count(s) > 0 && rt.state(s)?.prediction != null));
    const first = SYMBOLS.map(count);
    // They keep coming: the engine's prediction count is the inference worker's, read back.
    await until(`${policy}: more predictions for every symbol`, () => SYMBOLS.every((s, i) => count(s) > first[i] + 20), {
      context: () => JSON.stringify(SYMBOLS.map(count)),
    });
    for (const s of SYMBOLS) {
      const st = rt.state(s)!;
      assert.ok(st.model.used_in_quotes, `${s}: the model is used in quotes`);
      // The model of the symbol's own root, in the state and on every prediction.
      const root = s.slice(0, 2).toLowerCase();
      assert.ok(st.model.version?.startsWith(`${root}-mlp-`), `${s}: model ${st.model.version}`);
      assert.ok(st.prediction!.model_version.startsWith(`${root}-mlp-`), `${s}: prediction from ${st.prediction!.model_version}`);
      assert.ok(Number.isFinite(st.prediction!.value_ticks), `${s}: a finite prediction`);
      assert.ok(st.latency.inference.count > 0, `${s}: inference latency is measured`);
    }
    assert.ok(
      rt.health().workers.every((w) => w.restarts === 0),
      JSON.stringify(rt.health().workers),
    );
  } finally {
    await rt.stop();
  }
}

test('busy_poll: every symbol receives predictions', () => run('busy_poll'));
test('block: every symbol receives predictions', () => run('block'));

test.run();
