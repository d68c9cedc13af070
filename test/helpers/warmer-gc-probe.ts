// The measurement of order-path-warmer.test.ts's allocation check, run in a process of its own:
// there, as in the engine thread, the Trader's code has only seen the shapes the engine thread
// gives it; in the suite's shared process other files call the same classes with other shapes and
// their optimised code can differ (pipeline-gc-probe.ts says the same). Prints one JSON line.
//   node --import tsx test/helpers/warmer-gc-probe.ts
import { measureAllocation } from './allocation.ts';
import { loadConfig } from '../../src/config/load.ts';
import { latencyParams, riskLimits } from '../../src/config/derive.ts';
import { quoteParams } from '../../src/strategy/setup.ts';
import { contractForRoot } from '../../src/market/instruments.ts';
import { OrderPathWarmer } from '../../src/trading/order-path-warmer.ts';

const { config } = loadConfig({ path: undefined, env: {} });
const w = new OrderPathWarmer({
  spec: contractForRoot('ES'),
  initialCapital: config.trading.initial_capital,
  limits: riskLimits(config),
  quote: quoteParams(config),
  latency: latencyParams(config),
  flattenMinutes: config.strategy.flatten_minutes,
});
for (let i = 0; i < 50_000; i++) w.run(); // optimised first, as in the engine thread
const m = await measureAllocation(
  () => {
    for (let i = 0; i < 100_000; i++) w.run();
  },
  { attempts: 3 },
);
process.stdout.write(`${JSON.stringify({ ...m, orders: w.engine.ordersSent })}\n`);
