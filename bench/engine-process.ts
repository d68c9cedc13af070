// The real engine as a child process (node dist/engine.js, simulation mode) on an ephemeral
// port, for the HTTP and memory benchmarks. Its config is the shipped one with data_dir in a
// temporary directory, so a benchmark run leaves nothing behind, and max_sse_clients raised.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfigPath } from '../src/config/load.ts';
import { packageRoot } from '../src/core/paths.ts';

/** max_sse_clients of the benchmarked engine. */
export const SSE_CLIENTS_ALLOWED = 2000;

export interface EngineProcess {
  proc: ChildProcess;
  pid: number;
  port: number;
  url: string;
  startedAt: number; // performance.now() when spawned
  logs: string[];
  stop(): Promise<number | null>;
}

/**
 * Starts dist/engine.js with the shipped config (and `nodeArgs`, e.g. --cpu-prof) and waits for its
 * port. `prepareDataDir` may fill the data_dir first (a journal to load at start).
 */
export async function startEngineProcess(nodeArgs: string[] = [], timeoutMs = 30_000, prepareDataDir?: (dataDir: string) => void): Promise<EngineProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'mm-bench-'));
  prepareDataDir?.(join(dir, 'data'));
  const cfgPath = join(dir, 'config.toml');
  // The shipped file with data_dir replaced, and room for the SSE fan-out benchmark's 1,000
  // clients (the shipped max_sse_clients is 100).
  const shipped = readFileSync(defaultConfigPath(), 'utf8')
    .replace(/^data_dir\s*=.*$/m, `data_dir = ${JSON.stringify(join(dir, 'data'))}`)
    .replace(/^max_sse_clients\s*=.*$/m, `max_sse_clients = ${SSE_CLIENTS_ALLOWED}`);
  writeFileSync(cfgPath, shipped);
  const startedAt = performance.now();
  const proc = spawn(process.execPath, [...nodeArgs, join(packageRoot(), 'dist', 'engine.js'), '--config', cfgPath], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`engine did not start within ${timeoutMs} ms:\n${logs.join('\n')}`)), timeoutMs);
    let buf = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (logs.length < 500) logs.push(line);
        const m = /listening on http:\/\/[^:]+:(\d+)/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      }
    });
    proc.stderr!.on('data', (c: Buffer) => {
      if (logs.length < 500) logs.push(c.toString());
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`engine exited with ${code}:\n${logs.join('\n')}`));
    });
  });
  return {
    proc,
    pid: proc.pid!,
    port,
    url: `http://127.0.0.1:${port}`,
    startedAt,
    logs,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 12_000);
      const code = await exited;
      clearTimeout(t);
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}
