// The folders of src/ form layers (docs/architecture.md, "Layout"): every import between folders
// goes to a folder on a lower line of the page's list, which names each folder once; so no two
// folders import each other, nothing imports a program entry point (src/bin/), and the source
// never imports a thread entry point (workers/), which it starts by path. Counted over every
// import statement, type-only ones included. src/ml/ counts as two folders, inference and training.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../helpers/cli.ts';
import { importEdges } from '../../helpers/import-graph.ts';

/** The folder a file counts in: workers/, a top-level file of src/, a folder of src/ (src/ml/ by its two halves). */
export function folderOf(file: string): string {
  const p = file.split('/');
  if (p[0] !== 'src') return p[0];
  if (p.length === 2) return file;
  return p[1] === 'ml' ? `src/ml/${p[2]}` : `src/${p[1]}`;
}

/** The layers of docs/architecture.md, from the bottom: the folders each line names. */
export function layersOf(page: string): string[][] {
  const from = page.indexOf('<!-- layers:');
  const to = page.indexOf('<!-- end of layers -->');
  if (from < 0 || to < from) throw new Error('docs/architecture.md: no layer list between its <!-- layers --> markers');
  return page
    .slice(from, to)
    .split('\n')
    .filter((l) => /^\d+\. /.test(l))
    .map((l) => [...l.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\/$/, '')));
}

/** The imports that do not go to a lower layer, and the folders no layer names. */
export function layerBreaks(edges: readonly [string, string][], layers: string[][]): string[] {
  const level = new Map<string, number>();
  layers.forEach((names, i) => {
    for (const n of names) level.set(n, i);
  });
  const out: string[] = [];
  for (const [from, to] of edges) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === b) continue;
    const la = level.get(a);
    const lb = level.get(b);
    if (la === undefined || lb === undefined) out.push(`${la === undefined ? a : b}: on no line of the layer list`);
    else if (lb >= la) out.push(`${from} -> ${to}: line ${la + 1} imports line ${lb + 1}`);
  }
  return [...new Set(out)];
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

const all = importEdges();

test('the check finds two folders that import each other', () => {
  const found = mutualFolders([
    ['src/a/x.ts', 'src/b/y.ts'],
    ['src/b/z.ts', 'src/a/w.ts'],
    ['src/a/x.ts', 'src/c/v.ts'],
    ['src/ml/training/t.ts', 'src/ml/inference/i.ts'],
  ]);
  assert.equal(found, ['src/a <-> src/b: src/a/x.ts -> src/b/y.ts, src/b/z.ts -> src/a/w.ts']);
});

test('the layer check finds an import that goes up, and a folder on no line', () => {
  const layers = layersOf('<!-- layers: x -->\n1. `src/core/`\n2. `src/market/`, `src/version.ts`\n<!-- end of layers -->');
  assert.equal(layers, [['src/core'], ['src/market', 'src/version.ts']]);
  assert.equal(layerBreaks([['src/market/a.ts', 'src/core/b.ts']], layers), []);
  assert.equal(layerBreaks([['src/core/b.ts', 'src/market/a.ts']], layers), ['src/core/b.ts -> src/market/a.ts: line 1 imports line 2']);
  assert.equal(layerBreaks([['src/http/a.ts', 'src/core/b.ts']], layers), ['src/http: on no line of the layer list']);
});

test('every import between folders goes down the layers of docs/architecture.md', async () => {
  const layers = layersOf(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));
  const named = layers.flat();
  assert.equal(named.length, new Set(named).size, `a folder on two lines: ${named.join(', ')}`);
  const e = await all;
  const folders = new Set(e.flatMap(([a, b]) => [folderOf(a), folderOf(b)]));
  assert.equal(
    [...folders].filter((f) => !named.includes(f)),
    [],
    'folders on no line of the layer list',
  );
  assert.equal(
    named.filter((f) => !folders.has(f)),
    [],
    'lines naming a folder that is not there',
  );
  assert.equal(layerBreaks(e, layers), []);
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
