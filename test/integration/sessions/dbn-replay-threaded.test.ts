// A replay decoded in its own threads (src/market/source-thread.ts, its zstd inflater) yields exactly the
// events of one decoded on the calling thread: MBO merged into L2 events, MBO order by order with
// each event's queue priority (l3_fifo's tape, copied from the shared one), and MBP-10. Sessions
// larger than the shared ring, so the decoder waits for room and events cross its wrap.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EV_STRIDE } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { planReplay } from '../../../src/market/replay/dataset.ts';
import { DbnMarketSource } from '../../../src/market/replay/dbn-source.ts';
import { SOURCE_RING_CAPACITY, ThreadedSource } from '../../../src/market/source-thread.ts';
import { ensureBuilt } from '../../helpers/build.ts';

ensureBuilt();
const H = 3600e9;
const dir = mkdtempSync(join(tmpdir(), 'dbn-replay-threaded-'));

async function exported(schema: 'mbo' | 'mbp-10', events: number): Promise<string> {
  const file = join(dir, `es.${schema}.dbn.zst`);
  await exportSynthetic(
    file,
    [{ date: '2024-03-05', rawSymbol: 'ESH24', spec: contractForRoot('ES'), seed: 11, sessionStartNs: 9.5 * H, sessionEndNs: 10 * H, activity: 1 }],
    {
      schema,
      marketDataLatencyNs: 50_000,
      maxEventsPerSession: events,
    },
  );
  return file;
}

/** Every event the source yields and, with a tape, each one's priority (ring of 1024 drained after each call). */
function drain(src: DbnMarketSource | ThreadedSource): { events: number[]; prio: number[] } {
  const ring = RecordRing.allocate(EV_STRIDE, 1024, false);
  const events: number[] = [];
  const prio: number[] = [];
  try {
    while (!src.done) {
      const n = src.generate(ring, 1024);
      for (let k = 0; k < n; k++) {
        events.push(...ring.data.subarray(ring.peek(), ring.peek() + EV_STRIDE));
        if (src.tape !== null) prio.push(src.tape.prio[ring.readSeq & src.tape.mask] - ring.readSeq);
        ring.advance();
      }
      ring.release();
    }
  } finally {
    src.close();
  }
  return { events, prio };
}

/** Index of the first number that differs (or of the end of the shorter list), -1 when equal. uvu's diff of two long lists takes minutes. */
function firstDifference(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (!Object.is(a[i], b[i])) return i;
  return a.length === b.length ? -1 : n;
}

const mbo = await exported('mbo', 120_000);
const mbp = await exported('mbp-10', 40_000);

for (const [name, file, perOrder] of [
  ['MBO as L2 events', mbo, false],
  ['MBO order by order, with priorities', mbo, true],
  ['MBP-10', mbp, false],
] as const) {
  test(`${name}: the decoder thread's events are the calling thread's`, () => {
    const s = planReplay(file, { perOrder }).sessions[0];
    const inline = new DbnMarketSource(s.replay, s.sessionStartNs, s.sessionEndNs);
    const want = drain(inline);
    const threaded = new ThreadedSource({ kind: 'replay', replay: s.replay }, s.sessionStartNs, s.sessionEndNs);
    const got = drain(threaded);
    assert.ok(want.events.length / EV_STRIDE > SOURCE_RING_CAPACITY, `${want.events.length / EV_STRIDE} events: more than the shared ring holds`);
    const e = firstDifference(got.events, want.events);
    assert.is(
      e,
      -1,
      `event ${Math.floor(e / EV_STRIDE)} differs: ${got.events.slice(e - (e % EV_STRIDE), e - (e % EV_STRIDE) + EV_STRIDE)} vs ${want.events.slice(e - (e % EV_STRIDE), e - (e % EV_STRIDE) + EV_STRIDE)}`,
    );
    const p = firstDifference(got.prio, want.prio);
    assert.is(p, -1, `priority of event ${p} differs: ${got.prio[p]} vs ${want.prio[p]}`);
    assert.is(got.prio.length, want.prio.length);
    if (perOrder) assert.ok(want.prio.length === want.events.length / EV_STRIDE && want.prio.some((p) => p !== want.prio[0]));
  });
}

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
