// The backtest journal (issue 16 §1): bytes per record, the engine's start time and RSS over a
// journal of N runs, and its RSS after a submit-and-cancel flood against after its first
// backtest. Every figure comes from a real engine process (dist/engine.js, shipped config).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serializeRecord, type BacktestRecord } from '../src/backtest-service/journal/record.ts';
import type { BacktestRun } from '../src/wire/backtest-run.ts';
import { startEngineProcess, type EngineProcess } from './engine-process.ts';
import { loadavg, note, procRssBytes, sleep } from './util.ts';

export interface JournalBench {
  completedRecordBytes: number;
  cancelledRecordBytes: number;
  restart: { runs: number; startS: number; rssMiB: number; cleanStartS: number; cleanRssMiB: number; listedRuns: number };
  flood: {
    seconds: number;
    submitted: number;
    runsPerS: number;
    rssAfterFirstBacktestMiB: number;
    rssAfterFloodMiB: number;
    deltaMiB: number;
    journalRuns: number;
    journalMiB: number;
  };
  loadavg: number[];
}

const MiB = 2 ** 20;
const REFERENCE = { symbol: 'ES', initialCapital: 100000, useML: false };

async function json<T>(url: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as T };
}

const post = (e: EngineProcess, body: unknown, headers: Record<string, string> = {}) =>
  json<BacktestRun>(`${e.url}/api/backtest`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

const rssMiB = (e: EngineProcess) => procRssBytes(e.pid) / MiB;

/** Writes `n` copies of a completed run (new ids, one second apart) into `<dataDir>/backtests`. */
function writeJournal(dataDir: string, template: BacktestRecord, n: number): void {
  const dir = join(dataDir, 'backtests');
  mkdirSync(dir, { recursive: true });
  const t0 = Date.now() - n * 1000;
  for (let i = 0; i < n; i++) {
    const at = new Date(t0 + i * 1000).toISOString();
    const id = `bt_${at.replace(/[-:.]/g, '')}_${(i % 36 ** 4).toString(36).padStart(4, '0')}_${(i & 0xffffff).toString(16).padStart(6, '0')}`;
    const rec = { ...template, id, started_at: at, finished_at: at };
    writeFileSync(join(dir, `${id}.jsonl`), serializeRecord(rec).text);
  }
}

export async function benchJournal(o: { runs: number; floodS: number; concurrency: number }): Promise<JournalBench> {
  // 1. A clean engine: its first backtest, then a submit-and-cancel flood.
  const engine = await startEngineProcess();
  let first: BacktestRun;
  let cleanStartS: number;
  let cleanRssMiB: number;
  let flood: JournalBench['flood'];
  let cancelledBytes = 0;
  try {
    cleanStartS = (performance.now() - engine.startedAt) / 1000;
    cleanRssMiB = rssMiB(engine);
    note('journal: the first backtest');
    const r = await post(engine, REFERENCE);
    if (r.status !== 200) throw new Error(`first backtest answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    first = r.body;
    const rssAfterFirst = rssMiB(engine);
    note(`journal: ${o.floodS} s submit-and-cancel flood, ${o.concurrency} clients`);
    let submitted = 0;
    const end = performance.now() + o.floodS * 1000;
    const client = async () => {
      while (performance.now() < end) {
        const s = await post(engine, { ...REFERENCE, seed: submitted }, { prefer: 'respond-async' });
        submitted++;
        if (s.status === 202) await fetch(`${engine.url}/api/backtests/${s.body.id}`, { method: 'DELETE' }).then((x) => x.arrayBuffer());
      }
    };
    await Promise.all(Array.from({ length: o.concurrency }, client));
    await sleep(1000); // the last cancellations settle
    const list = await json<{ runs: { status: string; bytes: number }[] }>(`${engine.url}/api/backtests?limit=100`);
    cancelledBytes = Math.max(0, ...list.body.runs.filter((x) => x.status === 'cancelled').map((x) => x.bytes));
    const health = await json<{ storage: { runs: number; bytes: number } }>(`${engine.url}/health`);
    const after = rssMiB(engine);
    flood = {
      seconds: o.floodS,
      submitted,
      runsPerS: submitted / o.floodS,
      rssAfterFirstBacktestMiB: rssAfterFirst,
      rssAfterFloodMiB: after,
      deltaMiB: after - rssAfterFirst,
      journalRuns: health.body.storage.runs,
      journalMiB: health.body.storage.bytes / MiB,
    };
  } finally {
    await engine.stop();
  }
  const { equity_curve, ...rest } = first;
  const template: BacktestRecord = {
    id: first.id,
    status: 'completed',
    resolved: first.resolved,
    started_at: first.started_at,
    finished_at: first.finished_at,
    duration_ms: first.duration_ms,
    progress: 1,
    error: null,
    result: { ...(rest as unknown as NonNullable<BacktestRecord['result']>), equity_curve: equity_curve! },
    idempotency: null,
  };
  const completedRecordBytes = serializeRecord(template).entry.bytes;

  // 2. A restart over `runs` journaled runs of the first backtest's size.
  note(`journal: writing ${o.runs.toLocaleString('en-US')} runs, then starting the engine over them`);
  const loaded = await startEngineProcess([], 120_000, (dataDir) => writeJournal(dataDir, template, o.runs));
  let restart: JournalBench['restart'];
  try {
    const startS = (performance.now() - loaded.startedAt) / 1000;
    const rss = rssMiB(loaded);
    const list = await json<{ total: number }>(`${loaded.url}/api/backtests?limit=1`);
    restart = { runs: o.runs, startS, rssMiB: rss, cleanStartS, cleanRssMiB, listedRuns: list.body.total };
  } finally {
    await loaded.stop();
  }
  return { completedRecordBytes, cancelledRecordBytes: cancelledBytes, restart, flood, loadavg: loadavg() };
}
