// No import cycle in src/ or workers/ (docs/architecture.md, "Layout"). Cycles are counted over
// every import statement, type-only imports included (dpdm without its transform step), because a
// type-only cycle still ties two modules' designs together.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { importCycles, SOURCE_GLOBS } from '../../helpers/import-graph.ts';

test('the cycle check finds a cycle closed by type-only imports', async () => {
  const found = await importCycles(['test/fixtures/layout/cycle/*.ts']);
  assert.equal(found.length, 1, found.join('\n'));
  assert.equal(found[0].split(' -> ').sort(), ['test/fixtures/layout/cycle/a.ts', 'test/fixtures/layout/cycle/b.ts']);
});

test('no import cycle in src/ or workers/', async () => {
  const found = await importCycles(SOURCE_GLOBS);
  assert.equal(found, [], `import cycles:\n${found.join('\n')}`);
});

test.run();
