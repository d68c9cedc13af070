// `npm run facts`: the stylized-facts table of the synthetic market or of recorded DBN data
// (src/market/facts/, docs/market-facts.md).
import { runFactsCommand } from '../src/market/facts/facts-command.ts';

try {
  process.exitCode = runFactsCommand(
    process.argv.slice(2),
    (s) => process.stdout.write(s),
    (s) => process.stderr.write(s),
  );
} catch (e) {
  process.stderr.write(`error: ${(e as Error).message}\n`);
  process.exitCode = 1;
}
