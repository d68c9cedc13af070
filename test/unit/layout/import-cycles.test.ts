// No import cycle in src/ or workers/ (docs/architecture.md, "Layout"). Cycles are counted over
// every import statement, type-only imports included (dpdm without its transform step), because a
// type-only cycle still ties two modules' designs together.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { relative } from 'node:path';
import { parseCircular, parseDependencyTree } from 'dpdm';
import { ROOT } from '../../helpers/cli.ts';

async function cycles(globs: string[]): Promise<string[]> {
  const tree = await parseDependencyTree(globs, { context: ROOT, transform: false, skipDynamicImports: false });
  // Each cycle written from its first file in sort order, so the same cycle reads the same however it was reached.
  return parseCircular(tree).map((c) => {
    const files = c.map((f) => relative(ROOT, f));
    const first = files.indexOf([...files].sort()[0]);
    return [...files.slice(first), ...files.slice(0, first)].join(' -> ');
  });
}

test('the cycle check finds a cycle closed by type-only imports', async () => {
  const found = await cycles(['test/fixtures/layout/cycle/*.ts']);
  assert.equal(found.length, 1, found.join('\n'));
  assert.equal(found[0].split(' -> ').sort(), ['test/fixtures/layout/cycle/a.ts', 'test/fixtures/layout/cycle/b.ts']);
});

test('no import cycle in src/ or workers/', async () => {
  const found = await cycles(['src/**/*.ts', 'workers/**/*.ts']);
  assert.equal(found, [], `import cycles:\n${found.join('\n')}`);
});

test.run();
