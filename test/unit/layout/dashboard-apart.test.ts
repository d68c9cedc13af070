// The dashboard is a program of its own (docs/architecture.md, "Layout"): it reaches the engine
// over HTTP only, so it imports the wire contract and nothing else of the engine's source, and
// the engine never imports the dashboard. Counted over every import statement (type-only ones
// included) of src/dashboard/ and src/bin/dashboard.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { importEdges } from '../../helpers/import-graph.ts';

const isDashboard = (f: string) => f.startsWith('src/dashboard/') || f === 'src/bin/dashboard.ts';

/** What the dashboard may import besides itself: the wire contract, the reference tables both programs format and count with
 * (contract specs, the CME calendar), and the process basics of an entry point (log, version, package root). */
const ALLOWED = [
  /^src\/wire\//,
  /^src\/market\/instruments\.ts$/,
  /^src\/market\/calendar\.ts$/,
  /^src\/log\.ts$/,
  /^src\/version\.ts$/,
  /^src\/core\/paths\.ts$/,
];

const all = importEdges();

test('the dashboard imports only itself, the wire contract and the listed reference tables', async () => {
  const e = await all;
  assert.ok(e.filter(([from]) => isDashboard(from)).length > 30, 'the dashboard has imports to check');
  const crossing = e.filter(([from, to]) => isDashboard(from) && !isDashboard(to) && !ALLOWED.some((re) => re.test(to)));
  assert.equal(
    crossing.map(([a, b]) => `${a} -> ${b}`),
    [],
  );
});

test('nothing outside the dashboard imports it', async () => {
  const e = await all;
  const into = e.filter(([from, to]) => !isDashboard(from) && isDashboard(to));
  assert.equal(
    into.map(([a, b]) => `${a} -> ${b}`),
    [],
  );
});

test.run();
