// The decoder thread's work allocates nothing per record (allocation is behaviour: see
// docs/performance.md): reading a zstd MBO file through the reader's fast face, and turning it
// into L2 events through the MBO book (DbnMarketSource drained into a ring), run without a GC
// once warm (a heap number per record, a boxed time or price, shows as scavenges). Measured in a
// process of its own, as the decoder thread runs (test/helpers/dbn-decode-gc-probe.ts says why).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { runProbe } from '../../helpers/allocation.ts';

const H = 3600e9;
const dir = mkdtempSync(join(tmpdir(), 'dbn-replay-alloc-'));
const file = join(dir, 'es.mbo.dbn.zst');
await exportSynthetic(file, [{ date: '2024-03-05', rawSymbol: 'ESH24', spec: contractForRoot('ES'), seed: 42, sessionStartNs: 9.5 * H, sessionEndNs: 10.5 * H, activity: 1 }], {
  schema: 'mbo',
  marketDataLatencyNs: 50_000,
  maxEventsPerSession: 600_000,
});

interface Probe {
  gcs: number;
  scavenges: number;
  newSpaceGrowth: number;
  count: number;
  /** Some field read was non-zero (the reads were not optimised away). */
  read: boolean;
}

const probe = (mode: 'read' | 'decode') => runProbe<Probe>('test/helpers/dbn-decode-gc-probe.ts', [mode, file]);

test('reading a zstd MBO file record by record: no GC', async () => {
  const p = await probe('read');
  assert.ok(p.count >= 600_000 && p.read, `${p.count} records read`);
  assert.is(p.gcs, 0, `GCs while reading: ${JSON.stringify(p)}`);
});

test("MBO records to L2 events (the decoder thread's loop): no GC", async () => {
  const p = await probe('decode');
  assert.ok(p.count >= 500_000, `${p.count} events`);
  assert.is(p.gcs, 0, `GCs while decoding: ${JSON.stringify(p)}`);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
