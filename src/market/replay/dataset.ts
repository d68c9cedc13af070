// Recorded data on disk: a DBN file, or a directory of files. Reads the metadata of each
// (dataset, schema, symbols, time range), picks the instrument to replay and turns the data into
// sessions, one per CME trade date it holds (its records' own times decide, across files), each
// with its window and the files to read. Any file the engine cannot replay is an error naming
// the file and why.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset } from '../../wire/datasets.ts';
import { DbnReader, type DbnMetadata, FLAGS } from '../../data/dbn/index.ts';
import { sessionMidnightUnixNs } from '../dbn-time.ts';
import { type ContractSpec, contractForRoot, knownRoots, parseSymbol, rememberDataContract, SymbolError } from '../instruments.ts';
import { nanosPerTick } from '../dbn-export/synthetic-export.ts';
import { RTYPE } from '../../data/dbn/constants.ts';
import { decodeRecord, isDefinition } from '../../data/dbn/records.ts';
import type { InstrumentDefMsg } from '../../data/dbn/definition.ts';
import { specFromDefinition } from './definitions.ts';
import {
  REPLAY_SCHEMAS,
  type ReplaySchema,
  type ReplaySessionSpec,
  inWeekendClosure,
  tradeDateCloseUtcNs,
  tradeDateOf,
  tradeDateOpenUtcNs,
} from './replay-spec.ts';

const DBN_NAME = /\.dbn(\.zst)?$/;
const RTH_START_NS = (9 * 60 + 30) * 60e9;
const RTH_END_NS = 16 * 60 * 60e9;
const CLEAR = 0x52; // action R

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

/** The outright contracts a file's symbology maps (spreads and unknown roots left out); `data`: roots its definitions made known. */
export function fileInstruments(file: string, m: DbnMetadata, data: ReadonlyMap<string, ContractSpec> = new Map()): DbnInstrument[] {
  const out: DbnInstrument[] = [];
  const known = { ...Object.fromEntries(knownRoots().map((r) => [r, contractForRoot(r)])), ...Object.fromEntries(data) };
  for (const map of m.mappings) {
    let root: string;
    try {
      root = parseSymbol(map.raw_symbol, 2024, known).root;
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
    throw new Error(
      `${file}: no symbol maps to a known contract (symbols: ${[...new Set(named)].join(', ') || 'none'}; known roots: ` +
        `${Object.keys(known).join(', ')}): a root outside these needs a [contracts.<ROOT>] table in the config or definition records in the ` +
        `data (docs/instruments.md)`,
    );
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
  /** The root's spec: the contract table's (checked against the data's definitions), else the definitions'. */
  contract: ContractSpec;
  schema: ReplaySchema;
  sessions: ReplaySession[];
}

/** What planning needs of one file: its contract, schema, time range and whether it opens with a book snapshot. */
interface FileSpan {
  file: string;
  root: string;
  schema: ReplaySchema;
  ins: DbnInstrument;
  start: bigint;
  end: bigint;
  snapshot: boolean;
}

/**
 * The sessions of a file or directory, in date order, filtered by the date range. A session is a
 * CME trade date (replay-spec.ts: from the previous trade date's close to its own) with the data
 * every file holds of it, wherever the files were cut: a Databento daily file (00:00-24:00 UTC)
 * ends with the evening that opens the next trade date.
 */
export function planReplay(path: string, opts: ReplayPlanOptions = {}): ReplayPlan {
  const spans: FileSpan[] = [];
  const defs = new Map<string, ContractSpec>();
  const dataFiles: string[] = [];
  for (const file of dbnFiles(path)) {
    // A definition file beside the daily files (Databento's "definition" schema) names their contracts.
    const only = definitionFile(file);
    if (only === null) dataFiles.push(file);
    else addDefinitions(defs, only, file);
  }
  if (dataFiles.length === 0) throw new Error(`market data ${path}: only definition files, no mbo or mbp-10 data`);
  for (const file of dataFiles) {
    const f = fileSpan(file, opts, defs);
    const first = spans[0];
    if (first && f.root !== first.root) throw new Error(`${file}: holds ${f.ins.symbol}, but ${path} also holds ${first.root} data: one contract root per run`);
    if (first && f.schema !== first.schema) throw new Error(`${file}: schema ${f.schema}, but other files of ${path} are ${first.schema}`);
    spans.push(f);
  }
  spans.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  for (let i = 1; i < spans.length; i++) {
    if (spans[i].start < spans[i - 1].end) throw new Error(`${spans[i].file}: its time range overlaps ${spans[i - 1].file}'s (the same data twice?)`);
  }
  const dates = new Set<string>();
  for (const f of spans) {
    for (let d = tradeDateOf(f.start); ; ) {
      dates.add(d);
      const close = tradeDateCloseUtcNs(d);
      if (close >= f.end) break;
      d = tradeDateOf(close);
    }
  }
  const root = spans[0].root;
  const contract = defs.get(root) ?? contractForRoot(root);
  const sessions: ReplaySession[] = [];
  for (const date of [...dates].sort()) {
    if (opts.startDate && date < opts.startDate) continue;
    if (opts.endDate && date > opts.endDate) continue;
    const s = tradeDateSession(date, spans, opts, contract);
    if (s) sessions.push(s);
  }
  if (opts.regularHoursOnly && sessions.length === 0 && dates.size > 0)
    throw new Error(`${path}: no regular-hours time in its data (trade dates ${[...dates].sort().join(', ')})`);
  if (contract.source !== 'built-in' && !contract.source.startsWith('contracts.')) rememberDataContract(contract);
  return { root, contract, schema: spans[0].schema, sessions };
}

/** The definition records of a file whose schema is "definition", or null for any other file. */
function definitionFile(file: string): InstrumentDefMsg[] | null {
  const reader = DbnReader.open(file);
  try {
    if (reader.metadata.schema !== 'definition') return null;
    const out: InstrumentDefMsg[] = [];
    for (const r of reader.records()) if (isDefinition(r)) out.push(r);
    return out;
  } finally {
    reader.close();
  }
}

/** Adds the specs of definition records by root; two different specs of one root are an error. */
function addDefinitions(defs: Map<string, ContractSpec>, records: readonly InstrumentDefMsg[], file: string): void {
  for (const d of records) {
    const spec = specFromDefinition(d, file);
    const had = defs.get(spec.root);
    if (had && (had.tickSize !== spec.tickSize || had.tickValue !== spec.tickValue)) {
      throw new Error(
        `${file}: ${spec.root} has tick ${spec.tickSize} ($${spec.tickValue}) here and tick ${had.tickSize} ($${had.tickValue}) in ${had.source}`,
      );
    }
    if (!had) defs.set(spec.root, spec);
  }
}

/** The session of one trade date over the files holding it, or null when it has no window. */
function tradeDateSession(date: string, spans: FileSpan[], opts: ReplayPlanOptions, contract: ContractSpec): ReplaySession | null {
  const open = tradeDateOpenUtcNs(date);
  const close = tradeDateCloseUtcNs(date);
  let files = spans.filter((f) => f.start < close && f.end > open);
  if (files.length === 0) return null;
  const base = sessionMidnightUnixNs(date);
  const fromUtc = files[0].start > open ? files[0].start : open;
  const toUtc = files[files.length - 1].end < close ? files[files.length - 1].end : close;
  if (inWeekendClosure(fromUtc, toUtc)) return null;
  let start = Number(fromUtc - base);
  let end = Number(toUtc - base);
  if (opts.regularHoursOnly) {
    // The contract's regular hours (regular_open/regular_close), else 09:30-16:00 New York.
    start = Math.max(start, contract.regularOpenNs ?? RTH_START_NS);
    end = Math.min(end, contract.regularCloseNs ?? RTH_END_NS);
    if (end <= start) return null;
  }
  // Warm-up reads from the last file opening with a snapshot at or before the window's start.
  const startUtc = base + BigInt(start);
  const from = files.findLastIndex((f) => f.snapshot && f.start <= startUtc);
  if (from > 0) files = files.slice(from);
  const symbols = [...new Set(files.map((f) => f.ins.symbol))];
  if (symbols.length > 1)
    throw new Error(
      `session ${date} spans ${files.map((f) => `${f.file} (${f.ins.symbol})`).join(', ')}: one contract per session (pick one with a month-coded symbol)`,
    );
  const ids = [...new Set(files.map((f) => f.ins.instrumentId))];
  if (ids.length > 1)
    throw new Error(`session ${date} spans ${files.map((f) => f.file).join(', ')}, where ${symbols[0]} has different instrument ids (${ids.join(', ')})`);
  const replay: ReplaySessionSpec = {
    files: files.map((f) => f.file),
    schema: files[0].schema,
    symbol: symbols[0],
    instrumentId: ids[0],
    baseUtcNs: base.toString(),
    tickUnits: nanosPerTick(contract),
    perOrder: opts.perOrder ?? false,
  };
  return { date, sessionStartNs: start, sessionEndNs: end, replay };
}

function fileSpan(file: string, opts: ReplayPlanOptions, defs: Map<string, ContractSpec>): FileSpan {
  const reader = DbnReader.open(file);
  try {
    const m = reader.metadata;
    if (m.schema === null || !(REPLAY_SCHEMAS as readonly string[]).includes(m.schema)) {
      throw new Error(
        `${file}: schema ${m.schema ?? 'mixed'} cannot be replayed (expected ${REPLAY_SCHEMAS.join(' or ')}; docs/replay.md says what others would need)`,
      );
    }
    // Definition records inside the file come first (a live capture's): they name its contracts.
    let c = reader.next();
    const inFile: InstrumentDefMsg[] = [];
    for (; c !== null && c.rtype === RTYPE.INSTRUMENT_DEF; c = reader.next()) inFile.push(decodeRecord(c, m.version) as InstrumentDefMsg);
    addDefinitions(defs, inFile, file);
    const ins = pickInstrument(file, fileInstruments(file, m, defs), opts.symbol ?? null);
    // A Databento file opens with a clear, then the book snapshot (F_SNAPSHOT records).
    while (c !== null && c.action === CLEAR && (c.flags & FLAGS.F_SNAPSHOT) === 0) c = reader.next();
    const snapshot = c !== null && (c.flags & FLAGS.F_SNAPSHOT) !== 0;
    const end = m.end !== null ? m.end : lastRecordUtcNs(reader) + 1n;
    return { file, root: ins.root, schema: m.schema as ReplaySchema, ins, start: m.start, end, snapshot };
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

/** Epoch ns of the file's last record (for files without an end), read on from where `reader` is. */
function lastRecordUtcNs(reader: DbnReader): bigint {
  let last = -1;
  for (let c = reader.next(); c !== null; c = reader.next()) last = c.tsEventRel;
  if (last < 0) throw new Error(`${reader.file}: no records and no end time in its metadata`);
  return reader.metadata.start + BigInt(last);
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
  const files = isDir
    ? readdirSync(path)
        .filter((n) => DBN_NAME.test(n))
        .sort()
        .map((n) => join(path, n))
    : [path];
  const base: Dataset = {
    name,
    kind: isDir ? 'directory' : 'file',
    files: files.length,
    dataset: '',
    schema: '',
    symbols: [],
    start: iso(0n),
    end: null,
    records: 0,
    bytes: 0,
    error: null,
  };
  try {
    const all = files.map(summarizeFile);
    if (all.length === 0) throw new Error('no .dbn or .dbn.zst files in the directory');
    const uniq = (xs: string[]) => [...new Set(xs)];
    // A definition file beside the daily files describes them; it is not data of another schema.
    const schemas = uniq(all.map((f) => f.schema).filter((x) => x !== 'definition'));
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
