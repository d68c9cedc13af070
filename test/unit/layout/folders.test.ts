// The folders of src/ form layers (docs/architecture.md, "Layout"): no two folders import each
// other, so each import between folders goes one way only, from the folder that uses to the
// folder that is used; nothing imports a program entry point (src/bin/); and the source never
// imports a thread entry point (workers/), which it starts by path. Counted over every import
// statement, type-only ones included. src/ml/ counts as two folders, inference and training.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { relative } from 'node:path';
import { parseDependencyTree } from 'dpdm';
import { ROOT } from '../../helpers/cli.ts';

/** The folder a file counts in: workers/, a top-level file of src/, a folder of src/ (src/ml/ by its two halves). */
export function folderOf(file: string): string {
  const p = file.split('/');
  if (p[0] !== 'src') return p[0];
  if (p.length === 2) return file;
  return p[1] === 'ml' ? `src/ml/${p[2]}` : `src/${p[1]}`;
}

/** Pairs of folders that import each other, each with the imports of both directions. */
export function mutualFolders(edges: readonly [string, string][]): string[] {
  const between = new Map<string, string[]>();
  for (const [from, to] of edges) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === b) continue;
    const key = `${a} -> ${b}`;
    between.set(key, [...(between.get(key) ?? []), `${from} -> ${to}`]);
  }
  const out: string[] = [];
  for (const [key, imports] of between) {
    const [a, b] = key.split(' -> ');
    const back = between.get(`${b} -> ${a}`);
    if (back && a < b) out.push(`${a} <-> ${b}: ${[...imports, ...back].join(', ')}`);
  }
  return out;
}

async function edges(): Promise<[string, string][]> {
  const tree = await parseDependencyTree(['src/**/*.ts', 'workers/**/*.ts'], { context: ROOT, transform: false, skipDynamicImports: false });
  const out: [string, string][] = [];
  for (const [file, deps] of Object.entries(tree)) {
    for (const d of deps ?? []) {
      const to = d.id ? relative(ROOT, d.id) : '';
      if (/^(src|workers)\//.test(to)) out.push([relative(ROOT, file), to]);
    }
  }
  return out;
}

const all = edges();

test('the check finds two folders that import each other', () => {
  const found = mutualFolders([
    ['src/a/x.ts', 'src/b/y.ts'],
    ['src/b/z.ts', 'src/a/w.ts'],
    ['src/a/x.ts', 'src/c/v.ts'],
    ['src/ml/training/t.ts', 'src/ml/inference/i.ts'],
  ]);
  assert.equal(found, ['src/a <-> src/b: src/a/x.ts -> src/b/y.ts, src/b/z.ts -> src/a/w.ts']);
});

test('no two folders of src/ import each other', async () => {
  const e = await all;
  assert.ok(e.length > 1000, `imports found: ${e.length}`);
  assert.equal(mutualFolders(e), []);
});

test('nothing imports a program entry point, and src/ imports no thread entry point', async () => {
  const wrong = (await all).filter(([from, to]) => to.startsWith('src/bin/') || (from.startsWith('src/') && to.startsWith('workers/')));
  assert.equal(
    wrong.map(([a, b]) => `${a} -> ${b}`),
    [],
  );
});

test.run();
