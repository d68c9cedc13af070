// `npm run train`: builds the datasets of a contract root, trains and evaluates its model,
// prints the report and writes models/<ROOT>.json (the config's [model] dir, or --out DIR).
// Deterministic: two runs write the same bytes.
//   npm run train [-- --root ROOT] [--config FILE] [--out DIR]
// --root defaults to ES; a root defined by a config's [contracts.<ROOT>] table (with its
// [contracts.<ROOT>.market]) needs that config (--config, else ENGINE_CONFIG, else the shipped one).

import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config/load.ts';
import { contractForRoot } from '../market/instruments.ts';
import { marketMissing } from '../market/profiles.ts';
import { parseModel, serializeModel } from '../ml/inference/model.ts';
import { modelDir, modelFileName } from '../ml/inference/model-store.ts';
import { trainModel } from '../ml/training/train.ts';
import { defaultTrainConfig } from '../ml/training/train-recipe.ts';

const USAGE = 'usage: npm run train [-- --root ROOT] [--config FILE] [--out DIR]';

function main(argv: string[]): number {
  const opts: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--(root|config|out)(?:=(.*))?$/.exec(a);
    const value = m ? (m[2] ?? argv[++i]) : undefined;
    if (!m || value === undefined || value === '') {
      process.stderr.write(`${USAGE}\n${m ? `${a} needs a value` : `unknown argument: ${a}`}\n`);
      return 2;
    }
    opts[m[1]] = value;
  }
  let config;
  try {
    config = loadConfig({ path: opts.config, env: process.env }).config;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  }
  const root = opts.root ?? 'ES';
  let spec;
  try {
    spec = contractForRoot(root);
  } catch (e) {
    process.stderr.write(`error: --root ${root}: ${(e as Error).message}\n`);
    return 2;
  }
  if (!spec.market) {
    process.stderr.write(`error: --root ${root}: ${marketMissing(root, spec.source)}\n`);
    return 2;
  }
  const outDir = opts.out === undefined ? modelDir(config) : isAbsolute(opts.out) ? opts.out : resolve(process.cwd(), opts.out);
  const t0 = performance.now();
  const { model, report } = trainModel(defaultTrainConfig(root), (l) => process.stderr.write(l + '\n'));
  const text = serializeModel(model);
  // What is written must load: the same checks the engine runs.
  const check = parseModel(text, 'trained model');
  if (!check.ok) {
    process.stderr.write(`error: ${check.error}\n`);
    return 1;
  }
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, modelFileName(root));
  writeFileSync(path, text);
  process.stdout.write(report + '\n');
  process.stdout.write(`wrote ${path} (${text.length.toLocaleString('en-US')} bytes) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
