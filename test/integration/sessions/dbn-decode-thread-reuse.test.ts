// The decoder worker of a DBN replay is kept for the thread's next session once its session is
// done (src/market/source-thread.ts): the next session gets the same thread and the same events as a decode
// on the calling thread; a session that failed (truncated file) leaves it usable; a session closed
// while its worker is still decoding gets that worker retired, and the next one a new worker.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EV_STRIDE } from '../../../src/core/events.ts';
import { exportSynthetic } from '../../../src/market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { planReplay } from '../../../src/market/replay/dataset.ts';
import { DbnMarketSource } from '../../../src/market/replay/dbn-source.ts';
import { ThreadedSource } from '../../../src/market/source-thread.ts';
import { ensureBuilt } from '../../helpers/build.ts';
import { drain } from '../../helpers/drain-source.ts';

ensureBuilt();
const H = 3600e9;
const dir = mkdtempSync(join(tmpdir(), 'dbn-decode-reuse-'));
const file = join(dir, 'es.mbo.dbn.zst');
await exportSynthetic(
  file,
  [{ date: '2024-03-05', rawSymbol: 'ESH24', spec: contractForRoot('ES'), seed: 7, sessionStartNs: 9.5 * H, sessionEndNs: 10 * H, activity: 1 }],
  {
    schema: 'mbo',
    marketDataLatencyNs: 50_000,
    maxEventsPerSession: 150_000, // more than the decoder's shared ring holds, so it waits for room
  },
);
const truncated = join(dir, 'truncated.mbo.dbn.zst');
const bytes = readFileSync(file);
writeFileSync(truncated, bytes.subarray(0, bytes.length >> 1));
const session = (f: string) => planReplay(f).sessions[0];

const s = session(file);
const inline = new DbnMarketSource(s.replay, s.sessionStartNs, s.sessionEndNs);
const expected = drain(inline);
inline.close();

test('a finished decoder worker decodes the next session on the same thread, with the same events', () => {
  const first = new ThreadedSource({ kind: 'replay', replay: s.replay }, s.sessionStartNs, s.sessionEndNs);
  const a = drain(first);
  first.close();
  const second = new ThreadedSource({ kind: 'replay', replay: s.replay }, s.sessionStartNs, s.sessionEndNs);
  const b = drain(second);
  second.close();
  assert.ok(expected.length > 100_000 * EV_STRIDE);
  assert.equal(a, expected);
  assert.equal(b, expected);
  assert.is(second.threadId, first.threadId, "the second session reused the first one's worker");
});

test('after a failed session the worker takes the next one; one closed mid-file is replaced', () => {
  const t = session(truncated);
  const bad = new ThreadedSource({ kind: 'replay', replay: t.replay }, t.sessionStartNs, t.sessionEndNs);
  assert.throws(() => drain(bad), /truncated\.mbo\.dbn\.zst.*(ends inside|truncated)/);
  bad.close();
  const good = new ThreadedSource({ kind: 'replay', replay: s.replay }, s.sessionStartNs, s.sessionEndNs);
  assert.is(good.threadId, bad.threadId, 'the worker of the failed session was reused');
  assert.equal(drain(good), expected);
  good.close();

  const stopped = new ThreadedSource({ kind: 'replay', replay: s.replay }, s.sessionStartNs, s.sessionEndNs);
  drain(stopped, 2); // the decoder is still ahead, waiting for room in its ring
  stopped.close();
  const next = new ThreadedSource({ kind: 'replay', replay: s.replay }, s.sessionStartNs, s.sessionEndNs);
  assert.is.not(next.threadId, stopped.threadId, 'a worker stopped mid-file is not handed on');
  assert.equal(drain(next), expected);
  next.close();
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
