// Replay of recorded data (issue 12): a synthetic session exported as MBO DBN (zstd), then
//   - decoding alone: DbnReader over the compressed file (every record's fields read): compressed
//     and decoded MB/s, records/s;
//   - the full pipeline (runSession: book, strategy, risk, exchange, ...) from the synthetic
//     generator and from the DBN file, decoded in its own thread (the engine's default) and on
//     the session's thread, in the same run, so the ratio is measured on the same machine load.
// The replay must give the same session result as the direct run (checked here too).
//
//   node bench/build.mjs && node dist/bench/replay.js [--quick] [--json]
// (bundled like the engine: under tsx hot loops run up to ~40% slower.) Needs npm run build for
// the decoder thread's bundle (dist/workers/dbn-decode.js).

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionSpecs, validateBacktestRequest } from '../src/backtest/request.ts';
import { runSession, type SessionResult, type SessionSpec } from '../src/backtest/session.ts';
import { DbnReader, RTYPE } from '../src/data/dbn/index.ts';
import { exportSynthetic } from '../src/data/dbn/synthetic-export.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { planReplay } from '../src/market/replay/dataset.ts';
import { openReplaySource } from '../src/market/replay/dbn-source.ts';
import { shippedConfig } from './stream.ts';
import { loadavg, median } from './util.ts';

export interface ReplayBench {
  session: string;
  events: number;
  records: number;
  fileBytes: number;
  decode: { compressedMBps: number; decodedMBps: number; recordsPerSec: number; rounds: number[] };
  synthetic: { eventsPerSec: number; rounds: number[] };
  replayThreaded: { eventsPerSec: number; rounds: number[] };
  replayInline: { eventsPerSec: number; rounds: number[] };
  ratioThreaded: number;
  ratioInline: number;
  target: number;
  sameResult: boolean;
  loadavg: number[];
}

const DATE = '2024-03-05';
const MBO_RECORD_BYTES = 56;

function timed(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

function decodeOnce(file: string): { seconds: number; records: number; checksum: number } {
  let records = 0;
  let checksum = 0;
  const seconds = timed(() => {
    const r = DbnReader.open(file);
    for (let c = r.next(); c !== null; c = r.next()) {
      if (c.rtype !== RTYPE.MBO) continue;
      records++;
      checksum += c.size + c.action + c.side + c.flags + (c.price % 1024) + (c.orderId % 1024) + (c.tsEventRel % 1024);
    }
    r.close();
  });
  return { seconds, records, checksum };
}

export async function benchReplay(quick: boolean): Promise<ReplayBench> {
  const cfg = shippedConfig();
  cfg.simulation.session_start = '09:30';
  cfg.simulation.session_end = quick ? '09:40' : '10:30';
  const v = validateBacktestRequest({ symbol: 'ES', startDate: DATE, useML: false }, cfg);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const spec = sessionSpecs(v.request, cfg, false)[0];
  const dir = mkdtempSync(join(tmpdir(), 'bench-replay-'));
  try {
    const file = join(dir, `es-${DATE}.mbo.dbn.zst`);
    await exportSynthetic(file, [{ date: spec.date, rawSymbol: v.request.contracts[0], spec: contractForRoot(spec.root), seed: spec.seed, sessionStartNs: spec.sessionStartNs, sessionEndNs: spec.sessionEndNs, activity: spec.activity }], {
      schema: 'mbo',
      marketDataLatencyNs: spec.execution.latency.marketDataLatencyNs,
    });
    const plan = planReplay(file, { perOrder: false });
    const s = plan.sessions[0];
    const replaySpec: SessionSpec = { ...spec, sessionStartNs: s.sessionStartNs, sessionEndNs: s.sessionEndNs, replay: s.replay };
    const fileBytes = statSync(file).size;
    const rounds = quick ? 1 : 3;

    decodeOnce(file); // warm-up
    const dec = Array.from({ length: rounds }, () => decodeOnce(file));
    const decS = median(dec.map((d) => d.seconds));
    const records = dec[0].records;

    let direct: SessionResult | null = null;
    let threaded: SessionResult | null = null;
    let inline: SessionResult | null = null;
    const syn: number[] = [];
    const thr: number[] = [];
    const inl: number[] = [];
    runSession(spec); // warm-up of the engine code
    for (let i = 0; i < rounds; i++) {
      // interleaved rounds: a change in machine load hits every variant alike
      syn.push(timed(() => (direct = runSession(spec))));
      thr.push(timed(() => (threaded = runSession(replaySpec))));
      inl.push(timed(() => (inline = runSession(replaySpec, { source: openReplaySource(s.replay, s.sessionStartNs, s.sessionEndNs, true) }))));
    }
    const events = direct!.eventsProcessed;
    const eps = (xs: number[]) => events / median(xs);
    const synEps = eps(syn);
    const same = JSON.stringify(direct) === JSON.stringify(threaded) && JSON.stringify(direct) === JSON.stringify(inline);
    return {
      session: `ES ${DATE} ${cfg.simulation.session_start}-${cfg.simulation.session_end} New York, MBO export`,
      events,
      records,
      fileBytes,
      decode: { compressedMBps: fileBytes / 1e6 / decS, decodedMBps: (records * MBO_RECORD_BYTES) / 1e6 / decS, recordsPerSec: records / decS, rounds: dec.map((d) => d.seconds) },
      synthetic: { eventsPerSec: synEps, rounds: syn },
      replayThreaded: { eventsPerSec: eps(thr), rounds: thr },
      replayInline: { eventsPerSec: eps(inl), rounds: inl },
      ratioThreaded: eps(thr) / synEps,
      ratioInline: eps(inl) / synEps,
      target: 0.8,
      sameResult: same,
      loadavg: loadavg(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

export function replayRows(b: ReplayBench): string[] {
  return [
    `replay bench: ${b.session}: ${fmt(b.events)} L2 events from ${fmt(b.records)} MBO records, ${(b.fileBytes / 1e6).toFixed(2)} MB zstd`,
    `  decode (DbnReader, zstd):   ${b.decode.compressedMBps.toFixed(1)} MB/s compressed, ${b.decode.decodedMBps.toFixed(1)} MB/s decoded, ${fmt(b.decode.recordsPerSec)} records/s`,
    `  pipeline, synthetic:        ${fmt(b.synthetic.eventsPerSec)} events/s`,
    `  pipeline, DBN decode thread: ${fmt(b.replayThreaded.eventsPerSec)} events/s (${b.ratioThreaded.toFixed(2)}x synthetic; target >= ${b.target}x: ${b.ratioThreaded >= b.target ? 'met' : 'NOT met'})`,
    `  pipeline, DBN same thread:  ${fmt(b.replayInline.eventsPerSec)} events/s (${b.ratioInline.toFixed(2)}x synthetic)`,
    `  same session result as the direct run: ${b.sameResult ? 'yes' : 'NO'}; load average ${b.loadavg.map((x) => x.toFixed(2)).join(' ')}`,
  ];
}

if (process.argv[1]?.endsWith('replay.js') || process.argv[1]?.endsWith('replay.ts')) {
  const quick = process.argv.includes('--quick');
  const b = await benchReplay(quick);
  if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(b, null, 2) + '\n');
  else process.stdout.write(replayRows(b).join('\n') + '\n');
}
