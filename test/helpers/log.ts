// A logger whose JSON lines are kept in memory, for tests that assert on what was logged.
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.ts';

export function capturingLogger(level = 'info'): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    env: {},
    configLevel: level,
    destination: new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  });
  return { logger, lines };
}
