// DBN decode speed (issue 12): MB/s and records/s reading a zstd DBN file through the fast face
// (DbnCursor, the engine's path), next to zstd decompression alone (our WASM decoder, the floor;
// and fzstd, the pure-JS decoder used before, as the peer) and the exact face (objects with
// bigints, --inspect's path). The files are synthetic ES sessions
// written by the exporter (MBO and MBP-10), so the figures need no downloaded data.
//
//   node --import tsx bench/dbn-decode.ts [--quick] [--json]
// From source it bundles itself (esbuild) and runs the bundle: tsx turns imported constants into
// getters and slows hot loops. benchDbnDecode() is exported for a section of npm run bench.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Decompress } from 'fzstd';
import { DbnReader } from '../src/data/dbn/index.ts';
import { ZstdStreamDecoder } from '../src/data/dbn/zstd.ts';
import { type ExportSession, exportSynthetic } from '../src/market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { loadavg, median } from './util.ts';

export interface DecodeFigures {
  schema: 'mbo' | 'mbp-10';
  records: number;
  l2Events: number;
  compressedMiB: number;
  decodedMiB: number;
  /** Fast face: records and MB (decoded and compressed bytes) per CPU second, median of runs. */
  recordsPerSec: number;
  decodedMBps: number;
  compressedMBps: number;
  /** The same per wall-clock second (lower when other jobs share the cores). */
  recordsPerWallSec: number;
  /** zstd decompression alone over the same file (the reader's WASM decoder), decoded MB/s. */
  zstdOnlyDecodedMBps: number;
  /** The same with fzstd (pure JS, the decoder before round two), decoded MB/s. */
  fzstdOnlyDecodedMBps: number;
  /** Exact face (objects, bigints): records/s. */
  exactRecordsPerSec: number;
}

export interface DbnDecodeResult {
  figures: DecodeFigures[];
  runs: number;
  loadavg: number[];
}

const H = 3600e9;

/**
 * Median seconds of `runs` calls of fn: the CPU time this thread used (user + system), since
 * wall time on a shared machine mostly measures the other jobs; the wall time goes alongside.
 */
function timeIt(runs: number, fn: () => void): { cpu: number; wall: number } {
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1e6);
    wall.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return { cpu: median(cpu), wall: median(wall) };
}

export async function benchDbnDecode(opts: { quick: boolean }): Promise<DbnDecodeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'dbn-bench-'));
  const runs = 3;
  // One regular ES session (09:30-16:00), or its first 200,000 events for --quick.
  const session: ExportSession = {
    date: '2024-01-02',
    rawSymbol: 'ESH24',
    spec: contractForRoot('ES'),
    seed: 42,
    sessionStartNs: 9.5 * H,
    sessionEndNs: 16 * H,
    activity: 1,
  };
  const figures: DecodeFigures[] = [];
  try {
    for (const schema of ['mbo', 'mbp-10'] as const) {
      const path = join(dir, `es.${schema}.dbn.zst`);
      const summary = await exportSynthetic(path, [session], { schema, marketDataLatencyNs: 50_000, maxEventsPerSession: opts.quick ? 200_000 : undefined });
      const compressed = statSync(path).size;
      let decoded = 0;
      let sink = 0;
      const fast = timeIt(runs, () => {
        const r = DbnReader.open(path);
        let n = 0;
        // Touch what a replay reads: prices, sizes, sides, actions, times, the top level.
        for (let c = r.next(); c !== null; c = r.next()) {
          sink += c.size + c.action + c.side + c.flags + c.tsRecvRel;
          if (c.levelCount > 0) sink += c.bidSz(0) + c.askSz(0) + c.bidPx(0);
          else sink += c.price + c.orderId;
          n++;
        }
        r.close();
        if (n !== summary.records) throw new Error(`decoded ${n} records, wrote ${summary.records}`);
      });
      const bytes = readFileSync(path);
      const CHUNK = 256 * 1024;
      const zstdOnly = timeIt(runs, () => {
        decoded = 0;
        const d = new ZstdStreamDecoder((block) => void (decoded += block.length));
        for (let at = 0; at < bytes.length; at += CHUNK) d.push(bytes.subarray(at, at + CHUNK), at + CHUNK >= bytes.length);
        d.close();
      });
      let fzstdDecoded = 0;
      const fzstdOnly = timeIt(runs, () => {
        fzstdDecoded = 0;
        const d = new Decompress((chunk) => void (fzstdDecoded += chunk.length));
        for (let at = 0; at < bytes.length; at += CHUNK) d.push(bytes.subarray(at, at + CHUNK), at + CHUNK >= bytes.length);
      });
      if (fzstdDecoded !== decoded) throw new Error(`fzstd decoded ${fzstdDecoded} bytes, the WASM decoder ${decoded}`);
      const exact = timeIt(1, () => {
        const r = DbnReader.open(path);
        for (const rec of r.records()) sink += rec.hd.rtype;
        r.close();
      });
      if (sink === 0.5) process.stderr.write(''); // keep the loops' results alive
      figures.push({
        schema,
        records: summary.records,
        l2Events: summary.events,
        compressedMiB: compressed / 2 ** 20,
        decodedMiB: decoded / 2 ** 20,
        recordsPerSec: summary.records / fast.cpu,
        decodedMBps: decoded / 1e6 / fast.cpu,
        compressedMBps: compressed / 1e6 / fast.cpu,
        recordsPerWallSec: summary.records / fast.wall,
        zstdOnlyDecodedMBps: decoded / 1e6 / zstdOnly.cpu,
        fzstdOnlyDecodedMBps: decoded / 1e6 / fzstdOnly.cpu,
        exactRecordsPerSec: summary.records / exact.cpu,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { figures, runs, loadavg: loadavg() };
}

const self = fileURLToPath(import.meta.url);
if (process.argv[1] === self) {
  if (self.endsWith('.ts')) {
    // From source: bundle this file, then run the bundle (honest figures need bundled code).
    const { build } = await import('esbuild');
    const root = join(self, '..', '..');
    const out = join(root, 'dist', 'bench', 'dbn-decode.js');
    await build({
      absWorkingDir: root,
      entryPoints: [self],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    });
    const r = spawnSync(process.execPath, [out, ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exitCode = r.status ?? 1;
  } else {
    const result = await benchDbnDecode({ quick: process.argv.includes('--quick') });
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      for (const f of result.figures) {
        process.stdout.write(
          `${f.schema.padEnd(7)} ${f.records.toLocaleString('en-US')} records (${f.l2Events.toLocaleString('en-US')} L2 events), ${f.compressedMiB.toFixed(1)} MiB zstd -> ${f.decodedMiB.toFixed(1)} MiB: ` +
            `${(f.recordsPerSec / 1e6).toFixed(2)} M records/s, ${f.decodedMBps.toFixed(1)} MB/s decoded (${f.compressedMBps.toFixed(1)} MB/s compressed) per CPU second ` +
            `(${(f.recordsPerWallSec / 1e6).toFixed(2)} M records per wall second); zstd alone ${f.zstdOnlyDecodedMBps.toFixed(1)} MB/s (fzstd ${f.fzstdOnlyDecodedMBps.toFixed(1)}); exact face ${(f.exactRecordsPerSec / 1e6).toFixed(2)} M records/s\n`,
        );
      }
      process.stdout.write(`median of ${result.runs} run(s); load average ${result.loadavg.join(' ')}\n`);
    }
  }
}
