// `npm run compare-signals`: backtests the same sessions with no signal, the MLP and each
// untrained baseline, and prints a markdown table (docs/model.md, "Does it help?").
//   npm run compare-signals [-- --symbol ES --start 2024-01-02 --end 2024-01-04 --seeds 42,7,1
//                               --signals none,mlp,ofi --config FILE --out FILE]
// Progress goes to stderr, the table to stdout (or --out FILE).

import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { packageRoot } from '../core/paths.ts';
import { COMPARED_SIGNALS, compareSignals, signalsTable, type ComparedSignal } from '../ml/training/compare-signals.ts';

const USAGE =
  'usage: npm run compare-signals [-- --symbol ES --start YYYY-MM-DD --end YYYY-MM-DD --seeds 42,7,1 --signals ' +
  COMPARED_SIGNALS.join(',') +
  ' --config FILE --out FILE]';

async function main(): Promise<number> {
  let a;
  try {
    a = parseArgs({
      options: {
        symbol: { type: 'string', default: 'ES' },
        start: { type: 'string', default: '2024-01-02' },
        end: { type: 'string', default: '2024-01-04' },
        seeds: { type: 'string', default: '42,7,1' },
        signals: { type: 'string', default: COMPARED_SIGNALS.join(',') },
        config: { type: 'string' },
        out: { type: 'string' },
      },
    }).values;
  } catch (e) {
    process.stderr.write(`${USAGE}\n${(e as Error).message}\n`);
    return 2;
  }
  const seedTexts = a.seeds.split(',').map((s) => s.trim());
  const seeds = seedTexts.map(Number);
  const badSeed = seeds.findIndex((s, i) => seedTexts[i] === '' || !Number.isSafeInteger(s) || s < 0);
  if (badSeed >= 0) {
    process.stderr.write(`${USAGE}\n--seeds: '${seedTexts[badSeed]}' is not a non-negative integer\n`);
    return 2;
  }
  const signals = a.signals.split(',').map((s) => s.trim());
  const badSignal = signals.find((s) => !(COMPARED_SIGNALS as readonly string[]).includes(s));
  if (badSignal !== undefined) {
    process.stderr.write(`${USAGE}\n--signals: unknown signal '${badSignal}' (known: ${COMPARED_SIGNALS.join(', ')})\n`);
    return 2;
  }
  const { config, path } = loadConfig({ path: a.config });
  const opts = { symbol: a.symbol, startDate: a.start, endDate: a.end, seeds, config, signals: signals as ComparedSignal[] };
  const shown = relative(packageRoot(), path); // config/config.toml for the shipped one
  const table = signalsTable(await compareSignals({ ...opts, log: (l) => process.stderr.write(l + '\n') }), opts, shown.startsWith('..') ? path : shown);
  if (a.out) writeFileSync(a.out, table);
  else process.stdout.write(table);
  return 0;
}

try {
  process.exitCode = await main();
} catch (e) {
  process.stderr.write(`error: ${(e as Error).message}\n`);
  process.exitCode = 1;
}
