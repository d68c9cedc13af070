// The import graph of the source, as dpdm reads it: every import statement, type-only ones
// included (no transform step), dynamic imports too. Paths relative to the package root.
import { relative } from 'node:path';
import { parseCircular, parseDependencyTree } from 'dpdm';
import { ROOT } from './cli.ts';

export const SOURCE_GLOBS = ['src/**/*.ts', 'workers/**/*.ts'];

async function tree(globs: readonly string[]) {
  return parseDependencyTree([...globs], { context: ROOT, transform: false, skipDynamicImports: false });
}

/** Every import between two files of src/ or workers/, as [importer, imported]. */
export async function importEdges(globs: readonly string[] = SOURCE_GLOBS): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const [file, deps] of Object.entries(await tree(globs))) {
    for (const d of deps ?? []) {
      const to = d.id ? relative(ROOT, d.id) : '';
      if (/^(src|workers)\//.test(to)) out.push([relative(ROOT, file), to]);
    }
  }
  return out;
}

/** The import cycles among the files, each written from its first file in sort order, so the same cycle reads the same however it was reached. */
export async function importCycles(globs: readonly string[]): Promise<string[]> {
  return parseCircular(await tree(globs)).map((c) => {
    const files = c.map((f) => relative(ROOT, f));
    const first = files.indexOf([...files].sort()[0]);
    return [...files.slice(first), ...files.slice(0, first)].join(' -> ');
  });
}
