// The measurement of dbn-replay-allocation.test.ts, run in a process of its own, as the decoder
// thread runs: there only the reader and the MBO book run, while in the suite's shared process the
// other DBN test files (other schemas, versions and record layouts) leave the reader's code
// optimised for all of them, and its new space, grown large by them, hides a few MB of garbage.
// (This probe found the decoder boxing each record's time in some JIT states: docs/performance-archive.md,
// round five.) Prints one JSON line.
//   node --import tsx test/helpers/dbn-decode-gc-probe.ts read|decode FILE
import { EV_STRIDE } from '../../src/core/events.ts';
import { RecordRing } from '../../src/core/ring.ts';
import { DbnReader } from '../../src/data/dbn/index.ts';
import { planReplay } from '../../src/market/replay/dataset.ts';
import { DbnMarketSource } from '../../src/market/replay/dbn-source.ts';
import { measureAllocation } from './allocation.ts';

const [mode, file] = process.argv.slice(2);
let count = 0;
let sink = 0;
let pass: () => void;
if (mode === 'read') {
  // The reader's fast face: one cursor, every field read as a number. (The sum stays an int32:
  // a double kept in a variable the closure shares would be boxed at every store, by this loop.)
  pass = () => {
    count = 0;
    const r = DbnReader.open(file);
    for (let c = r.next(); c !== null; c = r.next()) {
      sink = (sink + c.size + c.action + c.orderIdLo) | 0;
      count++;
    }
    r.close();
  };
} else if (mode === 'decode') {
  // The decoder thread's loop: MBO records to L2 events, drained into a ring.
  const s = planReplay(file).sessions[0];
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 15, false);
  pass = () => {
    count = 0;
    const src = new DbnMarketSource(s.replay, s.sessionStartNs, s.sessionEndNs);
    while (!src.done) {
      const n = src.generate(ring, 4096);
      ring.advance(n);
      ring.release();
      count += n;
    }
    src.close();
  };
} else {
  throw new Error(`usage: dbn-decode-gc-probe.ts read|decode FILE (got ${mode})`);
}

// Warm up (every path taken and optimised), give the concurrent compiler time to install its
// code, then measure whole passes; more than one attempt because under load the optimised code
// can still arrive late (see measureAllocation): code that allocates does so in every attempt.
for (let i = 0; i < 3; i++) pass();
await new Promise((r) => setTimeout(r, 100));
const a = await measureAllocation(pass, { scavengeFirst: true, attempts: 5 });
console.log(JSON.stringify({ ...a, count, read: sink !== 0 }));
