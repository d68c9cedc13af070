// The dashboard's static files: the esbuild output in dist/dashboard/ (index.html, app.js,
// app.css and their source maps), read once at start and served from memory by exact name, so
// no request path ever reaches the file system (no traversal to guard against).

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticFile {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  etag: string;
}

export class StaticFiles {
  private readonly files = new Map<string, StaticFile>();

  constructor(readonly dir: string) {
    if (!existsSync(dir)) throw new Error(`dashboard assets not found in ${dir}: run npm run build`);
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (!statSync(path).isFile()) continue;
      const body = new Uint8Array(readFileSync(path)); // own ArrayBuffer (a valid fetch BodyInit)
      const etag = `"${createHash('sha1').update(body).digest('base64url').slice(0, 20)}"`;
      this.files.set(`/${name}`, { body, type: TYPES[extname(name)] ?? 'application/octet-stream', etag });
    }
    if (!this.files.has('/index.html')) throw new Error(`${dir} has no index.html: run npm run build`);
  }

  get names(): string[] {
    return [...this.files.keys()];
  }

  /** The file for a URL path ("/" is index.html), or null. */
  lookup(path: string): StaticFile | null {
    return this.files.get(path === '/' ? '/index.html' : path) ?? null;
  }
}
