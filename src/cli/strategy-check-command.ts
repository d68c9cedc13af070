// --strategy-check NAME|FILE (see src/strategy/check.ts).
import type pino from 'pino';
import type { EngineConfig } from '../config/schema.ts';
import type { CliOptions } from './args.ts';

export async function strategyCheckCommand(_opts: CliOptions, _config: EngineConfig, log: pino.Logger): Promise<number> {
  log.error('--strategy-check is not built yet');
  return 1;
}
