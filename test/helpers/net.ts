// Ports for tests: servers under test listen on port 0 where they can; this is for the others
// (a child process told its port, or an address where nobody listens).
import { createServer, type AddressInfo } from 'node:net';

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
