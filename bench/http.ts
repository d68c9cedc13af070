// HTTP: GET /api/state under autocannon against the real engine process (simulation mode, all
// its worker threads running), and against a bare node:http server (another process) returning
// the same bytes with the same headers: the ratio is what the engine's routing, state building
// and JSON cost. Then SSE fan-out: N clients on /api/stream at the configured stream_hz, and the
// CPU the engine process spends on them: utime + stime from /proc/PID/stat (whole process, and
// its main thread, which runs HTTP) over a window with no client and a window with N clients.
// Note: autocannon and the SSE clients run in this process, on the same (2-core) machine.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { get, type ClientRequest } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngineProcess, type EngineProcess } from './engine-process.ts';
import { summarizeProfileFile, type ProfileSummary } from './profile.ts';
import { loadavg, median, procCpuSeconds, sleep } from './util.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  duration: number;
}
type Autocannon = (opts: { url: string; connections: number; duration: number; pipelining?: number }, cb: (err: Error | null, res: AutocannonResult) => void) => unknown;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadResult {
  reqPerSec: number; // median of rounds
  rounds: number[];
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export interface HttpBench {
  bodyBytes: number;
  connections: number;
  durationS: number;
  engine: LoadResult;
  bare: LoadResult;
  ratio: number; // engine / bare throughput
  sse: SseResult;
  /** Main thread of a second engine process under the same load, with --cpu-prof. */
  engineProfile: ProfileSummary | null;
  loadavg: number[];
}

export interface SseResult {
  clients: number;
  windowS: number;
  framesPerClientPerSec: number;
  bytesPerSec: number;
  engineCpuIdlePct: number; // % of one core, whole process, no client
  engineCpuWithClientsPct: number;
  mainThreadCpuIdlePct: number;
  mainThreadCpuWithClientsPct: number;
  costPctOfCore: number; // main thread, with clients - without
  costUsPerFrame: number;
  connected: number;
}

function cannon(url: string, connections: number, duration: number): Promise<AutocannonResult> {
  return new Promise((resolve, reject) => autocannon({ url, connections, duration, pipelining: 1 }, (err, res) => (err ? reject(err) : resolve(res))));
}

async function bareServer(headers: Record<string, string>, body: string): Promise<{ proc: ChildProcess; url: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'mm-bench-bare-'));
  const file = join(dir, 'response.json');
  writeFileSync(file, JSON.stringify({ headers, body }));
  const bundled = import.meta.url.endsWith('.js');
  const script = new URL(bundled ? './bare-server.js' : './bare-server.ts', import.meta.url).pathname;
  const proc = spawn(process.execPath, [...(bundled ? [] : ['--import', 'tsx']), script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('bare server did not start')), 15_000);
    proc.stdout!.on('data', (c: Buffer) => {
      const m = /listening (\d+)/.exec(c.toString());
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      }
    });
  });
  return { proc, url: `http://127.0.0.1:${port}`, dir };
}

function summarize(rs: AutocannonResult[]): LoadResult {
  return {
    reqPerSec: median(rs.map((r) => r.requests.average)),
    rounds: rs.map((r) => r.requests.average),
    p50Ms: median(rs.map((r) => r.latency.p50)),
    p99Ms: median(rs.map((r) => r.latency.p99)),
    errors: rs.reduce((s, r) => s + r.errors + r.timeouts, 0),
    non2xx: rs.reduce((s, r) => s + r.non2xx, 0),
  };
}

async function sseFanOut(engine: EngineProcess, clients: number, windowS: number): Promise<SseResult> {
  const cpu = () => ({ proc: procCpuSeconds(engine.pid), main: procCpuSeconds(engine.pid, engine.pid), t: performance.now() });
  // Baseline: the engine with no stream client.
  let a = cpu();
  await sleep(windowS * 1000);
  let b = cpu();
  const idleWall = (b.t - a.t) / 1000;
  const idleProc = (100 * (b.proc - a.proc)) / idleWall;
  const idleMain = (100 * (b.main - a.main)) / idleWall;

  let frames = 0;
  let bytes = 0;
  let connected = 0;
  const reqs: ClientRequest[] = [];
  const MARK = 'event: state\n';
  for (let i = 0; i < clients; i++) {
    let carry = '';
    const req = get(`${engine.url}/api/stream`, (res) => {
      if (res.statusCode === 200) connected++;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        bytes += chunk.length;
        const text = carry + chunk;
        for (let k = text.indexOf(MARK); k >= 0; k = text.indexOf(MARK, k + MARK.length)) frames++;
        carry = text.slice(Math.max(0, text.length - MARK.length + 1));
      });
      res.on('error', () => {});
    });
    req.on('error', () => {});
    reqs.push(req);
  }
  await sleep(1500); // connect, first frames
  const f0 = frames;
  const by0 = bytes;
  a = cpu();
  await sleep(windowS * 1000);
  b = cpu();
  const f1 = frames;
  const by1 = bytes;
  for (const r of reqs) r.destroy();
  const wall = (b.t - a.t) / 1000;
  const withProc = (100 * (b.proc - a.proc)) / wall;
  const withMain = (100 * (b.main - a.main)) / wall;
  const nFrames = f1 - f0;
  return {
    clients,
    windowS: wall,
    framesPerClientPerSec: nFrames / clients / wall,
    bytesPerSec: (by1 - by0) / wall,
    engineCpuIdlePct: idleProc,
    engineCpuWithClientsPct: withProc,
    mainThreadCpuIdlePct: idleMain,
    mainThreadCpuWithClientsPct: withMain,
    costPctOfCore: withMain - idleMain,
    costUsPerFrame: nFrames > 0 ? (((withMain - idleMain) / 100) * wall * 1e6) / nFrames : NaN,
    connected,
  };
}

/**
 * Where an engine's main thread spends its time serving /api/state: a second engine process
 * started with --cpu-prof, loaded by autocannon for `durationS`, stopped (the profile is written
 * at exit), and its main-thread profile summarised.
 */
async function profileEngineUnderLoad(connections: number, durationS: number): Promise<ProfileSummary | null> {
  const dir = mkdtempSync(join(tmpdir(), 'mm-bench-prof-'));
  const interval = 500;
  const engine = await startEngineProcess(['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', String(interval)]);
  try {
    await sleep(1000);
    await cannon(`${engine.url}/api/state`, connections, durationS);
  } finally {
    await engine.stop();
  }
  try {
    // CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; the main thread is thread 0.
    const main = readdirSync(dir).find((f) => f.includes(`.${engine.pid}.0.`) && f.endsWith('.cpuprofile'));
    return main ? summarizeProfileFile(join(dir, main), interval, 15) : null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchHttp(engine: EngineProcess, o: { durationS: number; rounds: number; connections: number; sseClients: number; sseWindowS: number; profile: boolean }): Promise<HttpBench> {
  // Let the simulation produce a book before capturing the response the bare server will replay.
  let res = await fetch(`${engine.url}/api/state`);
  for (let i = 0; i < 40; i++) {
    const j = (await res.clone().json()) as { states: Record<string, { book: { bids: unknown[] } }> };
    if (Object.values(j.states).some((s) => s.book.bids.length > 0)) break;
    await sleep(250);
    res = await fetch(`${engine.url}/api/state`);
  }
  const body = await res.text();
  const headers: Record<string, string> = {};
  for (const k of ['content-type', 'cache-control']) {
    const v = res.headers.get(k);
    if (v !== null) headers[k] = v;
  }
  const bare = await bareServer(headers, body);
  try {
    await cannon(`${engine.url}/api/state`, o.connections, 1); // warm-up both
    await cannon(`${bare.url}/`, o.connections, 1);
    const eng: AutocannonResult[] = [];
    const bar: AutocannonResult[] = [];
    for (let r = 0; r < o.rounds; r++) {
      eng.push(await cannon(`${engine.url}/api/state`, o.connections, o.durationS));
      bar.push(await cannon(`${bare.url}/`, o.connections, o.durationS));
    }
    const e = summarize(eng);
    const b = summarize(bar);
    const sse = await sseFanOut(engine, o.sseClients, o.sseWindowS);
    const engineProfile = o.profile ? await profileEngineUnderLoad(o.connections, o.durationS) : null;
    return { bodyBytes: Buffer.byteLength(body), connections: o.connections, durationS: o.durationS, engine: e, bare: b, ratio: e.reqPerSec / b.reqPerSec, sse, engineProfile, loadavg: loadavg() };
  } finally {
    bare.proc.kill('SIGTERM');
    rmSync(bare.dir, { recursive: true, force: true });
  }
}
