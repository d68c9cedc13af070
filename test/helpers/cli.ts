// Runs the built CLI (dist/engine.js) as a user would, with a config written to a temp dir.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const ENGINE = join(ROOT, 'dist', 'engine.js');

export function tempDir(prefix = 'mm-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes a TOML config into a fresh temp dir (data_dir inside it) and returns its path. */
export function writeConfig(toml: string): string {
  const dir = tempDir();
  const path = join(dir, 'config.toml');
  writeFileSync(path, `data_dir = ${JSON.stringify(join(dir, 'data'))}\n${toml}`);
  return path;
}

export function runCli(args: string[], env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [ENGINE, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
