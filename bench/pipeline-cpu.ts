// CPU time of the single-thread backtest pipeline: runSession over the bench's recorded ES
// session (the throughput section's input), timed with process.cpuUsage, which waiting for a
// core does not count, so it moves less with the load of a shared machine than wall time. Run
// it in several processes, interleaved with a build of another commit, to compare two codes:
//   npx esbuild bench/pipeline-cpu.ts --bundle --platform=node --format=esm --target=node20 \
//     --packages=external --minify-syntax --sourcemap --outfile=dist/bench/pipeline-cpu.js
//   node dist/bench/pipeline-cpu.js [--rounds N] [--events N] [--ml] [--fills] [--profile] [--neutral]
// (bundled with bench/build.mjs's options). --fills records fills and quotes as a report does
// (the throughput section does not); --events replays only the session's first N events;
// --neutral records the session on profiles.ts's NEUTRAL_MARKET (the market before issue 49). Prints
// one JSON line: events per CPU second per round and their median, wall time, the load average,
// and a hash of every session result (equal hashes: the same backtest).

import { createHash } from 'node:crypto';
import { ReplaySource } from '../src/market/replay-source.ts';
import { runSession } from '../src/backtest/session.ts';
import type { SessionResult } from '../src/backtest/session-spec.ts';
import { NEUTRAL_MARKET } from '../src/market/profiles.ts';
import { profileWhile } from './profile.ts';
import { benchConfig, benchRequest, recordSession } from './stream.ts';
import { loadavg, median } from './util.ts';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, got ${args[i + 1]}`);
  return v;
};
const rounds = value('--rounds', 4);
const maxEvents = value('--events', 100_000_000);
const useML = flag('--ml');

/** A hash of everything the session computed (Float64Array fill columns as their bytes). */
function resultHash(r: SessionResult): string {
  const h = createHash('sha256');
  h.update(JSON.stringify(r, (_k, v) => (v instanceof Float64Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') : v)));
  return h.digest('hex').slice(0, 16);
}

const config = benchConfig(); // the session traded throughout (stream.ts)
const spec = { ...benchRequest(config, { useML }).specs[0], collectFills: flag('--fills') };
const rec = recordSession(spec, maxEvents, flag('--neutral') ? NEUTRAL_MARKET : undefined);
const run = () => runSession(spec, { source: new ReplaySource(rec.events, rec.count) });

const load0 = loadavg();
run(); // warm-up: the first session also compiles
const rates: number[] = [];
const wall: number[] = [];
const hashes = new Set<string>();
for (let r = 0; r < rounds; r++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const res = run();
  const cpu = process.cpuUsage(c0);
  wall.push(performance.now() - t0);
  rates.push(res.eventsProcessed / ((cpu.user + cpu.system) / 1e6));
  hashes.add(resultHash(res));
}
const out: Record<string, unknown> = {
  events: rec.count,
  useML,
  medianEventsPerCpuS: median(rates),
  nsPerEventCpu: 1e9 / median(rates),
  rounds: rates,
  wallMs: wall,
  load: [load0, loadavg()],
  hashes: [...hashes],
};
if (flag('--profile')) {
  const { profile } = await profileWhile(run, { intervalUs: 100, top: 16 });
  out.profile = profile.top.map(
    (f) =>
      `${f.selfPct.toFixed(1)}% self ${f.totalPct.toFixed(1)}% total ${f.fn} ${f.where} | ${f.lines.map((l) => `${l.where} ${l.pct.toFixed(1)}%`).join(', ')}`,
  );
}
console.log(JSON.stringify(out, null, flag('--profile') ? 1 : 0));
