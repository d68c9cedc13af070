// Processes of the queue tests: a real redis-server (Debian's, installed by .ci/run) on a free
// port, engine queue workers, and a stop that waits for the exit. Each test file stops what it
// started in its test.after (`stopAll`), workers before Redis.

import { type ChildProcess, spawn } from 'node:child_process';
import { ENGINE } from './cli.ts';
import { freePort } from './net.ts';
import { until, WAIT_MS } from './wait.ts';

export class QueueProcesses {
  private readonly children: ChildProcess[] = [];
  url = '';

  async startRedis(): Promise<string> {
    const port = await freePort();
    this.children.push(spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
    this.url = `redis://127.0.0.1:${port}`;
    return this.url;
  }

  /** An engine process; `log()` is its stdout and stderr so far. */
  spawn(args: string[]): { child: ChildProcess; log: () => string } {
    const child = spawn(process.execPath, [ENGINE, ...args], { env: { ...process.env, RUST_LOG: 'debug' }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    let text = '';
    child.stdout!.on('data', (b: Buffer) => (text += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (text += b.toString()));
    return { child, log: () => text };
  }

  /** A queue worker with this config, once it says it is ready. */
  async startWorker(config: string): Promise<{ child: ChildProcess; log: () => string }> {
    const w = this.spawn(['--worker', '--queue', this.url, '--config', config]);
    await until('the worker is ready', () => w.log().includes('queue worker ready'), { timeoutMs: WAIT_MS, child: w.child, context: w.log });
    return w;
  }

  async stopAll(): Promise<void> {
    for (const c of this.children.slice().reverse()) await stop(c);
  }
}

export const stop = (c: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') =>
  new Promise<void>((r) => {
    if (c.exitCode !== null || c.signalCode !== null) return r();
    c.once('exit', () => r());
    c.kill(signal);
  });
