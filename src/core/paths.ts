// Locates the package root (the directory holding package.json) from this module's URL, so paths
// work alike from src/ under tsx, from the bundled dist/, and in the container under /app.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return (cached = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error(`package.json not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** Path of a bundled worker script, dist/workers/NAME.js. */
export function workerPath(name: string): string {
  return join(packageRoot(), 'dist', 'workers', `${name}.js`);
}
