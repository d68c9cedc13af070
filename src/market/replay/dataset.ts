// Recorded data on disk: a DBN file, or a directory of daily files (one session each). Reads the
// metadata of each (dataset, schema, symbols, time range), picks the instrument to replay and
// turns each file into the session it holds: its trade date and its time window, both from the
// data. Any file the engine cannot replay is an error naming the file and why.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset } from '../../api/datasets.ts';
import { DbnReader, type DbnMetadata, sessionMidnightUnixNs } from '../../data/dbn/index.ts';
import { CONTRACTS, contractForRoot, parseSymbol, SymbolError } from '../instruments.ts';
import { nanosPerTick } from '../../data/dbn/synthetic-export.ts';
import { REPLAY_SCHEMAS, type ReplaySchema, type ReplaySessionSpec, tradeDateOf } from './replay-spec.ts';

const DBN_NAME = /\.dbn(\.zst)?$/;
const RTH_START_NS = (9 * 60 + 30) * 60e9;
const RTH_END_NS = 16 * 60 * 60e9;

/** The .dbn / .dbn.zst files of a path: the file itself, or a directory's, sorted by name. */
export function dbnFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new Error(`market data ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  if (!st.isDirectory()) return [path];
  const files = readdirSync(path)
    .filter((n) => DBN_NAME.test(n))
    .sort()
    .map((n) => join(path, n));
  if (files.length === 0) throw new Error(`market data ${path}: a directory without .dbn or .dbn.zst files`);
  return files;
}

export interface DbnInstrument {
  instrumentId: number;
  symbol: string;
  root: string;
}

/** The outright contracts a file's symbology maps (spreads and unknown roots left out). */
export function fileInstruments(file: string, m: DbnMetadata): DbnInstrument[] {
  const out: DbnInstrument[] = [];
  for (const map of m.mappings) {
    let root: string;
    try {
      root = parseSymbol(map.raw_symbol).root;
    } catch (e) {
      if (e instanceof SymbolError) continue;
      throw e;
    }
    for (const iv of map.intervals) {
      const id = Number(iv.symbol);
      if (Number.isInteger(id) && !out.some((o) => o.instrumentId === id)) out.push({ instrumentId: id, symbol: map.raw_symbol, root });
    }
  }
  if (out.length === 0) {
    const named = m.mappings.map((x) => x.raw_symbol).concat(m.symbols);
    throw new Error(`${file}: no symbol maps to a known contract (symbols: ${[...new Set(named)].join(', ') || 'none'}; known roots: ${Object.keys(CONTRACTS).join(', ')})`);
  }
  return out;
}

/** One replayable session: the trade date, its window in engine ns and the source spec. */
export interface ReplaySession {
  date: string;
  sessionStartNs: number;
  sessionEndNs: number;
  replay: ReplaySessionSpec;
}

export interface ReplayPlanOptions {
  /** A root (ES) or month-coded symbol (ESH4) to pick among the file's contracts; null: the first. */
  symbol?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  regularHoursOnly?: boolean;
  perOrder?: boolean;
}

export interface ReplayPlan {
  root: string;
  schema: ReplaySchema;
  sessions: ReplaySession[];
}

/** The sessions of a file or directory, in date order, filtered by the date range. */
export function planReplay(path: string, opts: ReplayPlanOptions = {}): ReplayPlan {
  const sessions: ReplaySession[] = [];
  let root: string | null = null;
  let schema: ReplaySchema | null = null;
  for (const file of dbnFiles(path)) {
    const s = fileSession(file, opts);
    if (root !== null && s.root !== root) throw new Error(`${file}: holds ${s.replay.symbol}, but ${path} also holds ${root} data: one contract root per run`);
    if (schema !== null && s.replay.schema !== schema) throw new Error(`${file}: schema ${s.replay.schema}, but other files of ${path} are ${schema}`);
    root = s.root;
    schema = s.replay.schema;
    if (opts.startDate && s.date < opts.startDate) continue;
    if (opts.endDate && s.date > opts.endDate) continue;
    const twin = sessions.find((x) => x.date === s.date);
    if (twin) throw new Error(`${file}: session ${s.date} again (also in ${twin.replay.file})`);
    sessions.push(s);
  }
  sessions.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return { root: root!, schema: schema!, sessions };
}

function fileSession(file: string, opts: ReplayPlanOptions): ReplaySession & { root: string } {
  const reader = DbnReader.open(file);
  try {
    const m = reader.metadata;
    if (m.schema === null || !(REPLAY_SCHEMAS as readonly string[]).includes(m.schema)) {
      throw new Error(`${file}: schema ${m.schema ?? 'mixed'} cannot be replayed (expected ${REPLAY_SCHEMAS.join(' or ')})`);
    }
    const schema = m.schema as ReplaySchema;
    const ins = pickInstrument(file, fileInstruments(file, m), opts.symbol ?? null);
    const date = tradeDateOf(m.start);
    const base = sessionMidnightUnixNs(date);
    let start = Number(m.start - base);
    let end = m.end !== null ? Number(m.end - base) : lastRecordNs(reader, base) + 1;
    if (opts.regularHoursOnly) {
      start = Math.max(start, RTH_START_NS);
      end = Math.min(end, RTH_END_NS);
      if (end <= start) throw new Error(`${file}: no regular-hours time in the session of ${date}`);
    }
    const replay: ReplaySessionSpec = {
      file,
      schema,
      symbol: ins.symbol,
      instrumentId: ins.instrumentId,
      baseUtcNs: base.toString(),
      tickUnits: nanosPerTick(contractForRoot(ins.root)),
      perOrder: opts.perOrder ?? false,
    };
    return { date, sessionStartNs: start, sessionEndNs: end, replay, root: ins.root };
  } finally {
    reader.close();
  }
}

function pickInstrument(file: string, all: DbnInstrument[], want: string | null): DbnInstrument {
  if (want === null) return all[0];
  const w = want.toUpperCase();
  const hit = all.find((i) => i.symbol === w) ?? all.find((i) => i.root === w);
  if (!hit) throw new Error(`${file}: no ${w} in the file (it holds ${all.map((i) => i.symbol).join(', ')})`);
  return hit;
}

/** Time of the file's last record, engine ns relative to `base` (for files without an end). */
function lastRecordNs(reader: DbnReader, base: bigint): number {
  let last = -1;
  for (let c = reader.next(); c !== null; c = reader.next()) last = c.tsEventRel;
  if (last < 0) throw new Error(`${reader.file}: no records and no end time in its metadata`);
  return last + Number(reader.metadata.start - base);
}

/** What one file holds, for GET /api/datasets (a full pass counts its records). */
interface FileSummary {
  dataset: string;
  schema: string;
  symbols: string[];
  start: bigint;
  end: bigint | null;
  records: number;
  bytes: number;
}

// Counting records reads the whole file: keep each answer until the file changes.
const summaries = new Map<string, { key: string; summary: FileSummary }>();

function summarizeFile(file: string): FileSummary {
  const st = statSync(file);
  const key = `${st.size}:${st.mtimeMs}`;
  const hit = summaries.get(file);
  if (hit && hit.key === key) return hit.summary;
  const reader = DbnReader.open(file);
  try {
    const m = reader.metadata;
    let records = 0;
    while (reader.next() !== null) records++;
    const summary: FileSummary = {
      dataset: m.dataset,
      schema: m.schema ?? 'mixed',
      symbols: m.mappings.length ? m.mappings.map((x) => x.raw_symbol) : m.symbols,
      start: m.start,
      end: m.end,
      records,
      bytes: st.size,
    };
    summaries.set(file, { key, summary });
    return summary;
  } finally {
    reader.close();
  }
}

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

/** One dataset (a file or a directory of daily files) as GET /api/datasets lists it. */
export function describeDataset(path: string, name: string): Dataset {
  const isDir = statSync(path).isDirectory();
  const files = isDir ? readdirSync(path).filter((n) => DBN_NAME.test(n)).sort().map((n) => join(path, n)) : [path];
  const base: Dataset = { name, kind: isDir ? 'directory' : 'file', files: files.length, dataset: '', schema: '', symbols: [], start: iso(0n), end: null, records: 0, bytes: 0, error: null };
  try {
    const all = files.map(summarizeFile);
    if (all.length === 0) throw new Error('no .dbn or .dbn.zst files in the directory');
    const uniq = (xs: string[]) => [...new Set(xs)];
    const schemas = uniq(all.map((f) => f.schema));
    const ends = all.map((f) => f.end);
    return {
      ...base,
      dataset: uniq(all.map((f) => f.dataset)).join(', '),
      schema: schemas.length === 1 ? schemas[0] : 'mixed',
      symbols: uniq(all.flatMap((f) => f.symbols)),
      start: iso(all.reduce((a, f) => (f.start < a ? f.start : a), all[0].start)),
      end: ends.includes(null) ? null : iso((ends as bigint[]).reduce((a, e) => (e > a ? e : a))),
      records: all.reduce((a, f) => a + f.records, 0),
      bytes: all.reduce((a, f) => a + f.bytes, 0),
    };
  } catch (e) {
    return { ...base, bytes: files.reduce((a, f) => a + statSync(f).size, 0), error: e instanceof Error ? e.message : String(e) };
  }
}

/** The datasets under `dir`: DBN files and directories holding some, by name (none: no dir). */
export function listDatasets(dir: string): Dataset[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: Dataset[] = [];
  for (const n of names) {
    const p = join(dir, n);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory() ? readdirSync(p).some((f) => DBN_NAME.test(f)) : DBN_NAME.test(n)) out.push(describeDataset(p, n));
  }
  return out;
}
