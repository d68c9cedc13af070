// Builds dist/ (node build.mjs) when the pool's worker bundle is missing or older than the
// sources, so a test file run on its own (outside npm test) finds current workers.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot, workerPath } from '../../src/core/paths.ts';

export function ensureBuilt(): void {
  const root = packageRoot();
  const out = workerPath('backtest');
  const newest = (d: string): number =>
    readdirSync(d, { withFileTypes: true }).reduce((m, e) => {
      const p = join(d, e.name);
      return Math.max(m, e.isDirectory() ? newest(p) : e.name.endsWith('.ts') ? statSync(p).mtimeMs : 0);
    }, 0);
  if (existsSync(out) && statSync(out).mtimeMs >= Math.max(newest(join(root, 'src')), newest(join(root, 'workers')))) return;
  execFileSync(process.execPath, ['build.mjs'], { cwd: root, stdio: 'inherit' });
}
