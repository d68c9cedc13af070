// `npm run train`: builds the datasets, trains and evaluates the model, prints the report and
// writes models/model.json (or --out DIR/model.json). Deterministic: two runs write the same bytes.
//   npm run train [-- --out DIR]

import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { packageRoot } from '../core/paths.ts';
import { MODEL_FILE, parseModel, serializeModel } from './model.ts';
import { trainModel } from './train.ts';
import { defaultTrainConfig } from './train-recipe.ts';

function main(argv: string[]): number {
  let outDir = join(packageRoot(), 'models');
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out' && i + 1 < argv.length) {
      const d = argv[++i];
      outDir = isAbsolute(d) ? d : resolve(process.cwd(), d);
    } else if (a.startsWith('--out=')) {
      const d = a.slice('--out='.length);
      outDir = isAbsolute(d) ? d : resolve(process.cwd(), d);
    } else {
      process.stderr.write(`usage: npm run train [-- --out DIR]\nunknown argument: ${a}\n`);
      return 2;
    }
  }
  const t0 = performance.now();
  const { model, report } = trainModel(defaultTrainConfig(), (l) => process.stderr.write(l + '\n'));
  const text = serializeModel(model);
  // What is written must load: the same checks the engine runs.
  const check = parseModel(text, 'trained model');
  if (!check.ok) {
    process.stderr.write(`error: ${check.error}\n`);
    return 1;
  }
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, MODEL_FILE);
  writeFileSync(path, text);
  process.stdout.write(report + '\n');
  process.stdout.write(`wrote ${path} (${text.length.toLocaleString('en-US')} bytes) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
