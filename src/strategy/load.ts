// Loads a strategy from a TypeScript or JavaScript file the operator named: esbuild bundles it
// (with whatever it imports) into one ES module, which is imported from memory. The bundle's
// SHA-256 is the strategy's content hash: the same file (and imports) gives the same hash on
// every machine and every process, which is how a queue worker proves it runs the submitter's
// strategy. esbuild is a runtime dependency for this (the container installs it too).
//
// Strategies are trusted code: they run in the engine's process with its rights (docs/strategies.md).

import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { definitionProblems, type Registered, register, strategyByName } from './registry.ts';
import type { StrategyDefinition } from './port.ts';

const EXTENSIONS = new Set(['.ts', '.mts', '.js', '.mjs']);

// By absolute path: a file compiled once per process (later loads reuse it, whatever the disk says now).
const loaded = new Map<string, Promise<Registered>>();

/** Compiles and imports one strategy file; does not register it. */
export function compileStrategyFile(path: string): Promise<Registered> {
  const abs = resolve(path);
  let p = loaded.get(abs);
  if (!p) {
    p = compile(abs);
    loaded.set(abs, p);
    p.catch(() => loaded.delete(abs)); // a failed load may be retried after a fix
  }
  return p;
}

async function compile(abs: string): Promise<Registered> {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(abs);
  } catch {
    throw new Error(`strategy file ${abs}: no such file`);
  }
  if (!st.isFile()) throw new Error(`strategy file ${abs}: not a file`);
  const { build } = await import('esbuild');
  let code: string;
  try {
    const r = await build({
      entryPoints: [abs],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      sourcemap: false,
    });
    code = r.outputFiles[0].text;
  } catch (e) {
    const errors = (e as { errors?: { text: string; location?: { line: number; column: number } | null }[] }).errors;
    const first = errors?.[0];
    const where = first?.location ? `:${first.location.line}:${first.location.column}` : '';
    throw new Error(`strategy file ${abs}${where}: does not compile: ${first?.text ?? (e instanceof Error ? e.message : String(e))}`);
  }
  const hash = createHash('sha256').update(code).digest('hex');
  let mod: { default?: unknown };
  try {
    mod = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}#${hash}`);
  } catch (e) {
    throw new Error(`strategy file ${abs}: failed while loading: ${e instanceof Error ? e.message : String(e)}`);
  }
  const problems = definitionProblems(mod.default);
  if (problems.length) throw new Error(`strategy file ${abs}: ${problems.join('; ')}`);
  return { def: mod.default as StrategyDefinition, hash, file: abs };
}

/** The strategy files a path names: the file itself, or every .ts/.mts/.js/.mjs file of a directory (sorted). */
export function strategyFiles(path: string): string[] {
  const abs = resolve(path);
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(abs);
  } catch {
    throw new Error(`strategy file ${abs}: no such file or directory`);
  }
  if (!st.isDirectory()) return [abs];
  return readdirSync(abs)
    .filter((f) => EXTENSIONS.has(extname(f)) && !f.endsWith('.d.ts'))
    .sort()
    .map((f) => join(abs, f));
}

/** Loads and registers the strategies of the given files and directories; returns them. */
export async function loadStrategies(paths: readonly string[]): Promise<Registered[]> {
  const out: Registered[] = [];
  for (const p of paths) {
    for (const f of strategyFiles(p)) {
      const r = await compileStrategyFile(f);
      register(r);
      out.push(r);
    }
  }
  return out;
}

/**
 * The definition a run names, in this process: the registered one, loaded from `file` when this
 * process has not loaded it yet (a pool thread), and refused when its hash is not the run's.
 */
export async function resolveStrategy(name: string, hash: string, file: string | null): Promise<StrategyDefinition> {
  let r = strategyByName(name);
  if (!r && file !== null) {
    r = await compileStrategyFile(file);
    if (r.def.name !== name) throw new Error(`strategy file ${file} now defines '${r.def.name}', not '${name}'`);
    register(r);
  }
  if (!r) throw new Error(`strategy '${name}' is not loaded in this process (load it with --strategy-file or [strategy] files)`);
  if (r.hash !== hash) {
    throw new Error(
      `strategy '${name}' here (${r.file ?? 'built-in'}, hash ${r.hash.slice(0, 12)}) is not the run's (hash ${hash.slice(0, 12)}): the file ` +
        `changed since the run was submitted, or another version is loaded here`,
    );
  }
  return r.def;
}
