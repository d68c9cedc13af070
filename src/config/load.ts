// Loads and validates config.toml. Resolution order: --config PATH, else $ENGINE_CONFIG, else the
// shipped config/config.toml. A file named explicitly (flag or env) that cannot be read is an
// error, never a silent fallback to the defaults.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import toml from 'toml';
import { packageRoot } from '../core/paths.ts';
import type { z } from 'zod';
import { useConfiguredSpecs } from '../market/instruments.ts';
import { configContracts } from './contracts.ts';
import { EngineConfigSchema, SECTION_SHAPES, type EngineConfig } from './schema.ts';

export interface ConfigIssue {
  /** Dotted key, e.g. "risk.max_drawdown_pct"; array elements as "trading.symbols[1]". */
  key: string;
  /** The offending value as written (for a cross-field check on an omitted key: its default). */
  value: unknown;
  /** What was expected, e.g. "a fraction in (0, 1], e.g. 0.06 for 6%". */
  expected: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  /** One entry per invalid key; empty for file-level problems (missing file, TOML syntax). */
  readonly issues: ConfigIssue[];
  /** The config file the error is about, as named by the user (or the shipped path). */
  readonly source: string | undefined;

  constructor(message: string, issues: ConfigIssue[] = [], source?: string) {
    super(message);
    this.issues = issues;
    this.source = source;
  }
}

/** Renders a value the way it would look in TOML-ish form for an error message. */
export function formatValue(v: unknown): string {
  if (v === undefined) return '(missing)';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  const s = preview(v, 0);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

/**
 * JSON of a value, cut short: nesting below PREVIEW_DEPTH is "[...]" / "{...}", and a container
 * stops once its text passes 120 characters, so a value nested thousands deep (a 10 KB request
 * body) costs little and never overflows the stack.
 */
const PREVIEW_DEPTH = 8;
function preview(v: unknown, depth: number): string {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol' || v === undefined) return String(v);
    return JSON.stringify(v);
  }
  const isArray = Array.isArray(v);
  if (depth >= PREVIEW_DEPTH) return isArray ? '[...]' : '{...}';
  const parts: string[] = [];
  let length = 0;
  const entries = isArray ? (v as unknown[]).map((x) => [null, x] as const) : Object.entries(v);
  for (const [k, x] of entries) {
    if (length > 120) {
      parts.push('...');
      break;
    }
    const part = (k === null ? '' : `${JSON.stringify(k)}:`) + preview(x, depth + 1);
    parts.push(part);
    length += part.length + 1;
  }
  return isArray ? `[${parts.join(',')}]` : `{${parts.join(',')}}`;
}

function keyOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out === '' ? '(document)' : out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

function unknownKeyExpected(tablePath: readonly PropertyKey[], key: string): string {
  const tableName = tablePath.map(String).join('.');
  // A keyed table ([fees.MES], [contracts.ZN], [contracts.ZN.market]) has the keys of its kind.
  const generic = tablePath.map((seg, i) => (i === 1 && (tablePath[0] === 'fees' || tablePath[0] === 'contracts') ? '<ROOT>' : String(seg))).join('.');
  const known = SECTION_SHAPES[tableName] ?? SECTION_SHAPES[generic] ?? [];
  const where = tableName === '' ? 'at the top level' : `in [${tableName}]`;
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  const hint = best !== undefined && bestD <= Math.max(2, Math.floor(key.length / 3)) ? `did you mean "${best}"? ` : '';
  return `a known key ${where} (unknown key; ${hint}known keys: ${known.join(', ')})`;
}

/** Copies toml's prototype-less tables into plain objects; offset date-times become ISO strings. */
function toPlain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return String(v);
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = toPlain((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

function issuesFromZod(raw: unknown, zodIssues: readonly z.core.$ZodIssue[]): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const iss of zodIssues) {
    if (iss.code === 'unrecognized_keys') {
      for (const k of iss.keys) {
        const path = [...iss.path, k];
        out.push({ key: keyOf(path), value: valueAt(raw, path), expected: unknownKeyExpected(iss.path, k) });
      }
      continue;
    }
    // Custom (cross-field) issues carry the effective value, which may be a filled-in default.
    const written = valueAt(raw, iss.path);
    const value = written === undefined && 'input' in iss ? iss.input : written;
    out.push({ key: keyOf(iss.path), value, expected: iss.message });
  }
  return out;
}

/** The message line of one issue: `<source>: <key> = <value>: expected <what>`. */
export function formatIssue(source: string, issue: ConfigIssue): string {
  return `${source}: ${issue.key} = ${formatValue(issue.value)}: expected ${issue.expected}`;
}

/** Parses and validates TOML text; `source` names the file in messages. Throws ConfigError. */
export function parseConfig(text: string, source: string): EngineConfig {
  let raw: unknown;
  try {
    raw = toml.parse(text);
  } catch (e) {
    const err = e as { message?: string; line?: number; column?: number; location?: { start?: { line?: number; column?: number } } };
    const line = err.line ?? err.location?.start?.line;
    const column = err.column ?? err.location?.start?.column;
    const at = line !== undefined ? ` at line ${line}${column !== undefined ? `, column ${column}` : ''}` : '';
    throw new ConfigError(`${source}: TOML syntax error${at}: ${err.message ?? String(e)}`, [], source);
  }
  const plain = toPlain(raw);
  const result = EngineConfigSchema.safeParse(plain, { reportInput: true });
  if (!result.success) {
    const issues = issuesFromZod(plain, result.error.issues);
    throw new ConfigError(issues.map((i) => formatIssue(source, i)).join('\n'), issues, source);
  }
  // The config's contract roots (and its market profile) become known to every lookup in this thread (instruments.ts).
  useConfiguredSpecs(configContracts(result.data));
  loadedFrom = null;
  return result.data;
}

let loadedFrom: string | null = null;
/** The file loadConfig last read in this thread (null after parseConfig of text): messages that
 *  tell a user what to run with this config name it (e.g. the command that trains a model). */
export function loadedConfigFile(): string | null {
  return loadedFrom;
}

/** The shipped config/config.toml (works from src/ under tsx and from the bundled dist/). */
export function defaultConfigPath(): string {
  return join(packageRoot(), 'config', 'config.toml');
}

/**
 * Resolves and loads the config: `path` (from --config), else env ENGINE_CONFIG (an empty value
 * counts as unset), else the shipped file. Returns the validated config and the absolute path.
 */
export function loadConfig(opts: { path?: string; env?: NodeJS.ProcessEnv } = {}): { config: EngineConfig; path: string } {
  const env = opts.env ?? process.env;
  let file: string;
  let origin: string;
  if (opts.path !== undefined) {
    file = opts.path;
    origin = '--config';
  } else if (env.ENGINE_CONFIG !== undefined && env.ENGINE_CONFIG !== '') {
    file = env.ENGINE_CONFIG;
    origin = 'ENGINE_CONFIG';
  } else {
    file = defaultConfigPath();
    origin = 'the shipped default';
  }
  if (file === '') throw new ConfigError(`config path from ${origin} is empty: expected the path of a TOML config file`);
  const abs = resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const shown = abs === file ? `${file} (from ${origin})` : `${file} (from ${origin}, resolved to ${abs})`;
    if (code === 'ENOENT') throw new ConfigError(`config file ${shown} does not exist`, [], file);
    if (code === 'EISDIR') throw new ConfigError(`config file ${shown} is a directory: expected a TOML file`, [], file);
    throw new ConfigError(`config file ${shown} cannot be read: ${(e as Error).message}`, [], file);
  }
  const config = parseConfig(text, file);
  loadedFrom = abs;
  return { config, path: abs };
}
