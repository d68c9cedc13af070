// Starts the real engine (node dist/engine.js) on an ephemeral port and finds the port in its log.
import { spawn, type ChildProcess } from 'node:child_process';
import { ENGINE } from './cli.ts';
import { untilOk, WAIT_MS } from './wait.ts';

export interface EngineProcess {
  proc: ChildProcess;
  port: number;
  url: string;
  logs: string[];
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Polls /health until 200 (workers report running shortly after the port opens). */
  waitHealthy(timeoutMs?: number): Promise<void>;
}

export async function startEngine(configPath: string, env: Record<string, string> = {}, timeoutMs = WAIT_MS): Promise<EngineProcess> {
  const proc = spawn(process.execPath, [ENGINE, '--config', configPath], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`engine did not start: ${logs.join('\n')}`)), timeoutMs);
    let buf = '';
    const onData = (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        logs.push(line);
        const m = /listening on http:\/\/[^:]+:(\d+)/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (c: Buffer) => logs.push(c.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`engine exited with ${code}: ${logs.join('\n')}`));
    });
  });
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}`,
    logs,
    exited,
    async waitHealthy(timeoutMs = WAIT_MS) {
      await untilOk(`http://127.0.0.1:${port}/health`, { timeoutMs, child: proc, context: () => logs.join('\n') });
    },
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null) proc.kill(signal);
      return exited;
    },
  };
}
