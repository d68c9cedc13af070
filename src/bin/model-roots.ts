// `npm run model-roots`: the held-out table of every built-in root's shipped model
// (models/<ROOT>.json), as Markdown on stdout; with --write, into docs/model-roots.md between
// its markers (test/unit/ml/ml-roots-doc.test.ts fails when the page and the models disagree).
//   npm run model-roots [-- --write]

import { readFileSync, writeFileSync } from 'node:fs';
import { DOC, modelRootsMarkdown, shippedModels, withTable } from '../ml/training/model-roots-report.ts';

function main(argv: string[]): number {
  if (argv.some((a) => a !== '--write')) {
    process.stderr.write('usage: npm run model-roots [-- --write]\n');
    return 2;
  }
  const table = modelRootsMarkdown(shippedModels());
  if (argv.includes('--write')) {
    writeFileSync(DOC, withTable(readFileSync(DOC, 'utf8'), table));
    process.stdout.write(`wrote the table into ${DOC}\n`);
  } else process.stdout.write(table);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
