// `npm run calibrate`: the synthetic market's profile fitted to recorded DBN data
// (src/market/calibrate/, docs/calibration.md).
import { runCalibrateCommand } from '../src/market/calibrate/calibrate-command.ts';

try {
  process.exitCode = runCalibrateCommand(
    process.argv.slice(2),
    (s) => process.stdout.write(s),
    (s) => process.stderr.write(s),
  );
} catch (e) {
  process.stderr.write(`error: ${(e as Error).message}\n`);
  process.exitCode = 1;
}
