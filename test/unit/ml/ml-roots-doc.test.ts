// docs/model-roots.md shows what the shipped models recorded: its table is the output of
// `npm run model-roots` over models/<ROOT>.json, so a retrained model without a refreshed page
// (or a hand-edited figure) fails here. The table says "no" where a model does not beat the best
// untrained signal on its held-out sessions.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { BUILTIN_CONTRACTS } from '../../../src/market/instruments.ts';
import { DOC, modelRootsMarkdown, shippedModels, withTable } from '../../../src/ml/training/model-roots-report.ts';
import type { ModelFile } from '../../../src/ml/inference/model.ts';

test('docs/model-roots.md carries the table of the shipped models (else: npm run model-roots -- --write)', () => {
  const doc = readFileSync(DOC, 'utf8');
  const models = shippedModels();
  assert.equal(
    models.map((m) => m.roots),
    Object.keys(BUILTIN_CONTRACTS).map((r) => [r]),
  );
  assert.is(doc, withTable(doc, modelRootsMarkdown(models)), 'the page differs from the models: run npm run model-roots -- --write');
  for (const m of models) assert.ok(doc.includes(`### ${m.roots[0]}: \`${m.modelVersion}\``), m.modelVersion);
});

test('a model that does not beat the best untrained signal is reported as such', () => {
  const m = JSON.parse(JSON.stringify(shippedModels()[0])) as ModelFile;
  const t = m.metrics.test as { model: { mse: number; r2: number }; baselines: Record<string, { mse: number }> };
  t.model.mse = t.baselines.imbalance.mse + 0.001;
  const md = modelRootsMarkdown([m]);
  assert.match(md, /\| \*\*no\*\* \|/);
  assert.match(md, /\*\*The model does NOT beat the best untrained signal \(/);
  assert.not.match(md, /The model beats/);
});

test.run();
