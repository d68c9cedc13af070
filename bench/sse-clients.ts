// The clients of the SSE fan-out benchmark, in a process of their own so that the engine's CPU
// figures (bench/http.ts reads them from /proc) hold the engine's work only:
//   node dist/bench/sse-clients.js URL N        (forked with an IPC channel)
// Opens N connections to URL (the engine's /api/stream) and counts, per client, the `state`
// events received, scanning the raw bytes (no decoding, so the clients cost as little as they can).
// Messages: the child sends {type: 'connected', n} once every client has its first state event
// (or {type: 'error', message}); on {type: 'count'} it answers {type: 'count', frames: number[], bytes}.

import { get, type ClientRequest } from 'node:http';

const url = process.argv[2];
const n = Number(process.argv[3]);
if (!url || !Number.isInteger(n) || n < 1) throw new Error('usage: sse-clients.js URL N');

const MARK = Buffer.from('event: state\n');
const frames = new Array<number>(n).fill(0);
let bytes = 0;
let connected = 0;
let reported = false;
const reqs: ClientRequest[] = [];

/** State events in `chunk`, with the tail of the previous chunk (a mark may straddle two chunks). */
function counter(i: number): (chunk: Buffer) => void {
  let tail: Buffer = Buffer.alloc(0);
  return (chunk) => {
    bytes += chunk.length;
    const text = tail.length ? Buffer.concat([tail, chunk]) : chunk;
    for (let k = text.indexOf(MARK); k >= 0; k = text.indexOf(MARK, k + MARK.length)) {
      if (frames[i]++ === 0 && ++connected === n && !reported) {
        reported = true;
        process.send?.({ type: 'connected', n });
      }
    }
    tail = text.subarray(Math.max(0, text.length - MARK.length + 1));
  };
}

for (let i = 0; i < n; i++) {
  const req = get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      process.send?.({ type: 'error', message: `client ${i}: HTTP ${res.statusCode}` });
      res.resume();
      return;
    }
    res.on('data', counter(i));
    res.on('error', () => {});
  });
  req.on('error', (e) => process.send?.({ type: 'error', message: `client ${i}: ${e.message}` }));
  reqs.push(req);
}

process.on('message', (m: { type: string }) => {
  if (m.type === 'count') process.send?.({ type: 'count', frames, bytes });
});
process.on('disconnect', () => {
  for (const r of reqs) r.destroy();
  process.exit(0);
});
