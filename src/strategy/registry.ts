// The strategies this process can run, by name: the built-ins, and those loaded from the files
// the operator named (--strategy-file, [strategy] files). Runs name a strategy; they never carry
// code or a path (HTTP requests and queue jobs). A file is compiled once, when it is loaded: a
// file changed afterwards is not picked up by this process, and a queue worker that loaded a
// different version refuses the job (the content hashes differ).

import { createHash } from 'node:crypto';
import { VERSION } from '../version.ts';
import { glft } from './builtin/glft.ts';
import { grid } from './builtin/grid.ts';
import { marketMaker } from './builtin/market-maker.ts';
import { declarationProblems } from './params.ts';
import { type StrategyDefinition, WAKES } from './port.ts';

export interface Registered {
  def: StrategyDefinition;
  /** SHA-256 of the compiled bundle of the file; of the engine version and name for a built-in. */
  hash: string;
  /** The file it was loaded from (null: built-in). */
  file: string | null;
}

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const MAX_LEVELS = 8;
const MAX_STATE = 4096; // doubles: the live simulation's shared state area per symbol (src/runtime/layout.ts)

const registry = new Map<string, Registered>();

function builtinHash(def: StrategyDefinition): string {
  return createHash('sha256').update(`builtin ${def.name} ${def.version} engine ${VERSION}`).digest('hex');
}

for (const def of [marketMaker, glft, grid]) registry.set(def.name, { def, hash: builtinHash(def), file: null });

/** What is wrong with a definition (a file's default export), or [] when it can run. */
export function definitionProblems(d: unknown): string[] {
  if (d === null || typeof d !== 'object') return ['expected the default export to be a strategy definition object (see docs/strategies.md)'];
  const def = d as Partial<StrategyDefinition>;
  const out: string[] = [];
  if (typeof def.name !== 'string' || !NAME.test(def.name))
    out.push(`name: expected lower case letters, digits and underscores starting with a letter, got ${JSON.stringify(def.name)}`);
  if (typeof def.version !== 'string' || def.version.length === 0) out.push('version: expected a non-empty string');
  if (typeof def.description !== 'string') out.push('description: expected a string');
  if (!WAKES.includes(def.wakes as never)) out.push(`wakes: expected one of ${WAKES.join(', ')}, got ${JSON.stringify(def.wakes)}`);
  if (def.book !== undefined && def.book !== 'touch' && def.book !== 'depth') out.push(`book: expected "touch" or "depth"`);
  if (def.features !== undefined && def.features !== 'volatility' && def.features !== 'all') out.push(`features: expected "volatility" or "all"`);
  if (def.levels !== undefined && (!Number.isInteger(def.levels) || def.levels < 0 || def.levels > MAX_LEVELS))
    out.push(`levels: expected an integer in 0..${MAX_LEVELS}`);
  if (def.stateSlots !== undefined && (!Number.isInteger(def.stateSlots) || def.stateSlots < 0 || def.stateSlots > MAX_STATE))
    out.push(`stateSlots: expected an integer in 0..${MAX_STATE}`);
  if (typeof def.create !== 'function') out.push('create: expected a function (params, ctx) => strategy');
  out.push(...declarationProblems(def.params));
  return out;
}

/** Adds a loaded strategy; a name already taken by another strategy is an error. */
export function register(r: Registered): void {
  const had = registry.get(r.def.name);
  if (had && had.hash !== r.hash) {
    throw new Error(
      `strategy '${r.def.name}' from ${r.file ?? 'the engine'} clashes with the one already loaded from ${had.file ?? 'the engine (a built-in)'}: rename one`,
    );
  }
  registry.set(r.def.name, r);
}

export function strategyByName(name: string): Registered | undefined {
  return registry.get(name);
}

export function registeredStrategies(): Registered[] {
  return [...registry.values()];
}

export const DEFAULT_STRATEGY = marketMaker.name;
