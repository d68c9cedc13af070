// Files the journal cannot read go to `<journal>/quarantine/` (kept for a human to look at, never
// loaded again), so one corrupt record neither stops the engine nor silently disappears.

import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';

export const QUARANTINE_DIR = 'quarantine';

/** Moves `file` (a name inside `dir`) to `dir/quarantine/`; returns the new path. */
export async function quarantine(dir: string, file: string): Promise<string> {
  const to = join(dir, QUARANTINE_DIR);
  await mkdir(to, { recursive: true });
  const dest = join(to, file);
  await rename(join(dir, file), dest);
  return dest;
}
