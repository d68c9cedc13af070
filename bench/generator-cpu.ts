// CPU time of the market generator alone: one ES session (2024-03-15, seed 42, 09:30-16:00)
// generated into a drained ring, timed with process.cpuUsage (waiting for a core does not count).
// `--neutral` runs it on profiles.ts's NEUTRAL_MARKET (the market before issue 49). Bundle it as
// bench/pipeline-cpu.ts says, then: node dist/bench/generator-cpu.js [--rounds N] [--neutral]
// Prints one JSON line: events, events per CPU second per round and their median, the load average.
import { EV_STRIDE } from '../src/core/events.ts';
import { RecordRing } from '../src/core/ring.ts';
import { MarketGenerator } from '../src/market/generator.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { NEUTRAL_MARKET } from '../src/market/profiles.ts';
import { loadavg, median } from './util.ts';

const args = process.argv.slice(2);
const i = args.indexOf('--rounds');
const rounds = i >= 0 ? Number(args[i + 1]) : 3;
const neutral = args.includes('--neutral');
const spec = contractForRoot('ES');
const H = 3600e9;

function run(): number {
  const gen = new MarketGenerator(spec, '2024-03-15', 42, { sessionStartNs: 9.5 * H, sessionEndNs: 16 * H, profile: neutral ? NEUTRAL_MARKET : undefined });
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 14, false);
  let n = 0;
  while (!gen.done) {
    const got = gen.generate(ring, 1 << 14);
    ring.advance(got);
    ring.release();
    n += got;
  }
  return n;
}

const load0 = loadavg();
const rates: number[] = [];
let events = 0;
for (let r = 0; r <= rounds; r++) {
  const c0 = process.cpuUsage();
  events = run();
  const cpu = process.cpuUsage(c0);
  if (r > 0) rates.push(events / ((cpu.user + cpu.system) / 1e6)); // round 0 warms up
}
console.log(JSON.stringify({ events, eventsPerCpuS: rates.map(Math.round), median: Math.round(median(rates)), neutral, load: [load0, loadavg()] }));
