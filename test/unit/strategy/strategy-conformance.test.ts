// Every strategy this process can run (the registry: the built-ins) and the example strategies
// (examples/strategies/, loaded as --strategy-file loads them) run the port's conformance suite
// (test/conformance/strategy.ts): a strategy added to the registry or to examples/ runs it
// without a line here.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadStrategies } from '../../../src/strategy/load.ts';
import { registeredStrategies } from '../../../src/strategy/registry.ts';
import { describeStrategy } from '../../conformance/strategy.ts';
import { ROOT } from '../../helpers/cli.ts';

const examples = await loadStrategies([join(ROOT, 'examples', 'strategies')]);
const all = registeredStrategies();
for (const r of all) describeStrategy(r.def);

test('the suite covers the built-ins and every example', () => {
  assert.ok(all.filter((r) => r.file === null).length >= 3, 'the built-ins');
  assert.ok(examples.length >= 2, 'the examples');
  for (const e of examples) assert.ok(all.includes(e), e.def.name);
});

test.run();
