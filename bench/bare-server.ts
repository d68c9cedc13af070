// The baseline of the HTTP benchmark: a bare node:http server that answers every request with
// the bytes and headers of one captured /api/state response, and nothing else (no routing, no
// state building, no JSON). Started as a child process: node dist/bench/bare-server.js FILE,
// where FILE holds { "headers": {...}, "body": "..." }; prints "listening PORT" when ready.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { headers: Record<string, string>; body: string };
const body = Buffer.from(spec.body);
const headers = { ...spec.headers, 'content-length': String(body.length) };
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`listening ${typeof a === 'object' && a ? a.port : 0}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
