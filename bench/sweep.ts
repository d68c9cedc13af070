// Sweep throughput: sessions per second on the local Piscina pool vs on two BullMQ queue worker
// processes (a real redis-server on a free port), with the same number of threads (2), and the
// queue's overhead per job (tiny sessions, where the job round trip dominates). Checks that both
// give the same document. Run on its own (it is not a section of bench/run.ts; it needs
// redis-server and spawns processes):  npm run build && node --import tsx bench/sweep.ts
// The sessions run in the bundled workers (dist/workers, dist/engine.js); only the driver runs
// under tsx.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBacktestPool } from '../src/backtest/run.ts';
import { parseConfig } from '../src/config/load.ts';
import { packageRoot } from '../src/core/paths.ts';
import { createQueueExecutor } from '../src/jobs/executor.ts';
import { parseGrid, type SweepAxis } from '../src/sweep/grid.ts';
import { sweepJson } from '../src/sweep/output.ts';
import { executeSweep, prepareSweep, sweepSessions } from '../src/sweep/sweep.ts';

const THREADS = 2;
const dir = mkdtempSync(join(tmpdir(), 'bench-sweep-'));
const freePort = () =>
  new Promise<number>((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => r(port));
    });
  });

function configFile(name: string, end: string, poolSize: number): string {
  const path = join(dir, `${name}.toml`);
  writeFileSync(
    path,
    `data_dir = ${JSON.stringify(join(dir, 'data'))}\n[simulation]\nsession_start = "09:30"\nsession_end = "${end}"\n[backtest]\npool_size = ${poolSize}\n`,
  );
  return path;
}

function prepared(path: string, grid: string[], start: string, end: string) {
  const config = parseConfig(readFileSync(path, 'utf8'), path);
  const g = parseGrid(grid);
  if (!g.ok) throw new Error(g.error);
  const p = prepareSweep({ base: { symbol: 'ES', startDate: start, endDate: end }, axes: g.value as SweepAxis[], naming: 'key' }, config);
  if (!p.ok) throw new Error(JSON.stringify(p.errors));
  return p.sweep;
}

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const t0 = process.hrtime.bigint();
  const value = await f();
  return { value, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

function waitFor(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stderr!.on('data', (b: Buffer) => {
      buf += b.toString();
      if (buf.includes(text)) resolve();
    });
    child.once('exit', (c) => reject(new Error(`exited ${c} before "${text}": ${buf.slice(-500)}`)));
  });
}

async function main() {
  const load0 = loadavg()[0];
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const children: ChildProcess[] = [];
  children.push(spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
  const results: Record<string, number | string | boolean> = {};
  try {
    // Throughput: 4 points x 2 one-hour sessions = 8 sessions.
    const hour = configFile('hour', '10:30', THREADS);
    const hourWorker = configFile('hour-worker', '10:30', 1);
    const grid = ['spread_multiplier=1,1.25', 'skew_factor=0.25,0.75'];
    const sweep = prepared(hour, grid, '2024-01-02', '2024-01-03');
    const sessions = sweepSessions(sweep);
    const pool = createBacktestPool(THREADS);
    const local = await timed(() => executeSweep(sweep, { pool, concurrency: sweep.points.length }));
    await pool.destroy();
    for (let i = 0; i < 2; i++) {
      const w = spawn(process.execPath, [join(packageRoot(), 'dist', 'engine.js'), '--worker', '--queue', url, '--config', hourWorker], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      children.push(w);
      await waitFor(w, 'queue worker ready');
    }
    const executor = await createQueueExecutor(url, sweep.points[0].config);
    const queued = await timed(() => executeSweep(sweep, { executor, concurrency: sweep.points.length }));
    results.sessions = sessions;
    results.local_sessions_per_s = sessions / local.seconds;
    results.queue_sessions_per_s = sessions / queued.seconds;
    results.identical = sweepJson(local.value) === sweepJson(queued.value);
    // Overhead per job: 1-minute sessions (the simulation itself is a few ms).
    const tiny = configFile('tiny', '09:31', THREADS);
    const small = prepared(tiny, ['skew_factor=0:1.9:0.1'], '2024-01-02', '2024-01-03');
    const jobs = sweepSessions(small);
    const pool2 = createBacktestPool(THREADS);
    await executeSweep(prepared(tiny, ['skew_factor=0'], '2024-01-02', '2024-01-02'), { pool: pool2 }); // warm the threads
    // One point at a time: its 2 sessions run at once on 2 threads or on 2 workers, so the
    // difference per point is the latency a queue job adds to a session.
    const tinyLocal = await timed(() => executeSweep(small, { pool: pool2, concurrency: 1 }));
    await pool2.destroy();
    const tinyQueue = await timed(() => executeSweep(small, { executor, concurrency: 1 }));
    await executor.close();
    results.jobs = jobs;
    results.local_ms_per_tiny_session = (tinyLocal.seconds * 1000) / jobs;
    results.queue_ms_per_tiny_session = (tinyQueue.seconds * 1000) / jobs;
    results.queue_latency_ms_per_job = ((tinyQueue.seconds - tinyLocal.seconds) * 1000) / small.points.length;
    results.load_average_start = load0;
    results.load_average_end = loadavg()[0];
  } finally {
    for (const c of children.reverse()) {
      c.kill('SIGTERM');
      await new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)));
    }
  }
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}

await main();
