// The decoder thread's work allocates nothing per record (allocation is behaviour: see
// docs/performance.md): reading a zstd MBO file through the reader's fast face, and turning it
// into L2 events through the MBO book (DbnMarketSource drained into a ring), run without a GC
// once warm (a heap number per record, a boxed time or price, shows as scavenges).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EV_STRIDE } from '../src/core/events.ts';
import { RecordRing } from '../src/core/ring.ts';
import { DbnReader } from '../src/data/dbn/index.ts';
import { exportSynthetic } from '../src/data/dbn/synthetic-export.ts';
import { contractForRoot } from '../src/market/instruments.ts';
import { planReplay } from '../src/market/replay/dataset.ts';
import { DbnMarketSource } from '../src/market/replay/dbn-source.ts';
import { measureAllocation } from './helpers/allocation.ts';

const H = 3600e9;
const dir = mkdtempSync(join(tmpdir(), 'dbn-replay-alloc-'));
const file = join(dir, 'es.mbo.dbn.zst');
await exportSynthetic(file, [{ date: '2024-03-05', rawSymbol: 'ESH24', spec: contractForRoot('ES'), seed: 42, sessionStartNs: 9.5 * H, sessionEndNs: 10.5 * H, activity: 1 }], {
  schema: 'mbo',
  marketDataLatencyNs: 50_000,
  maxEventsPerSession: 600_000,
});

test('reading a zstd MBO file record by record: no GC', async () => {
  let sink = 0;
  const read = () => {
    const r = DbnReader.open(file);
    for (let c = r.next(); c !== null; c = r.next()) sink += c.size + c.action + c.orderIdLo;
    r.close();
  };
  read();
  read();
  const a = await measureAllocation(read, { attempts: 3, fullGcFirst: true });
  assert.ok(sink > 0);
  assert.is(a.gcs, 0, `GCs while reading: ${JSON.stringify(a)}`);
});

test('MBO records to L2 events (the decoder thread\'s loop): no GC', async () => {
  const s = planReplay(file).sessions[0];
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 15, false);
  let events = 0;
  const pass = () => {
    const src = new DbnMarketSource(s.replay, s.sessionStartNs, s.sessionEndNs);
    while (!src.done) {
      const n = src.generate(ring, 4096);
      ring.advance(n);
      ring.release();
      events += n;
    }
    src.close();
  };
  pass();
  pass();
  events = 0;
  const a = await measureAllocation(pass, { attempts: 3, fullGcFirst: true });
  assert.ok(events >= 500_000, `${events} events`);
  assert.is(a.gcs, 0, `GCs while decoding: ${JSON.stringify(a)}`);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
