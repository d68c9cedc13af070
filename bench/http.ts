// HTTP: GET /api/state under autocannon against the real engine process (simulation mode, all
// its worker threads running), and against a bare node:http server (another process) returning
// the same bytes with the same headers: the ratio is what the engine's routing, state building,
// metrics and JSON cost. Then SSE fan-out: N clients (1,000 in a full run) on /api/stream at the
// configured stream_hz, and the CPU the engine process spends on them: utime + stime from
// /proc/PID/stat (whole process, and its main thread, which runs HTTP) over a window with no
// client and a window with N clients, the frames each client received, and the frames the engine
// coalesced or the clients it dropped (from its /metrics): what was lost.
// autocannon runs in this process, the SSE clients in a process of their own
// (bench/sse-clients.ts); all of them share the same (2-core) machine with the engine.
//
// The ratio is CPU per request of each server's serving thread (its /proc CPU time over the
// requests it answered), both pinned to one vCPU, each loaded alone in short rounds that
// alternate (engine, bare, engine, bare, ...), the median of the pairs. This host's vCPUs change
// speed within seconds (docs/performance-archive.md, rounds thirteen and fourteen): 5 s rounds of
// requests per second read 50-108 % for the same code. Requests per second also undercounts the
// difference when autocannon, not the server, limits the rate. Loading both servers at once was
// tried: it charges the larger process more for sharing the core (its caches refilled after each
// switch). A second bare server measured against the first the same way gives the method's error.

import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngineProcess, type EngineProcess } from './engine-process.ts';
import { summarizeProfileFile, type ProfileSummary } from './profile.ts';
import { loadavg, median, pinThread, procCpuSeconds, sleep } from './util.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  duration: number;
}
type Autocannon = (
  opts: { url: string; connections: number; duration: number; pipelining?: number },
  cb: (err: Error | null, res: AutocannonResult) => void,
) => unknown;
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
  /** Each server alone (requests per second and latency, over every round). */
  engine: LoadResult;
  bare: LoadResult;
  /** The alternated rounds of the engine and the bare server. */
  pairs: RoundPairs;
  /** The same between two bare servers: how far from 1 the method itself reads. */
  control: RoundPairs;
  /** Median of pairs.costRatios: bare CPU per request / engine CPU per request. */
  ratio: number;
  /** The vCPU of the serving threads and the one of autocannon (null: not pinned). */
  pinned: { server: number; client: number } | null;
  sse: SseResult;
  /** Main thread of a second engine process under the same load, with --cpu-prof. */
  engineProfile: ProfileSummary | null;
  loadavg: number[];
}

export interface RoundPairs {
  /** µs of the serving thread's CPU per answered request: [first, second] server of each pair of rounds. */
  usPerRequest: [number, number][];
  /** Requests per second of each round of the pair. */
  reqPerSec: [number, number][];
  /** second / first µs per request, per pair (engine pairs: bare / engine). */
  costRatios: number[];
  /** first / second requests per second, per pair (engine pairs: engine / bare). */
  throughputRatios: number[];
}

export interface SseResult {
  clients: number;
  windowS: number;
  framesPerClientPerSec: number;
  minFramesPerClientPerSec: number;
  maxFramesPerClientPerSec: number;
  /** State frames the engine replaced before a slow client got them, during the window (0 = none lost). */
  coalescedFrames: number;
  /** Clients the engine dropped as too slow during the window. */
  droppedClients: number;
  /** CPU of the clients' own process (% of one core), for the load it put on the machine. */
  clientProcessCpuPct: number;
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

/**
 * The serving threads (the engine's main thread, the bare servers') on the last vCPU, this
 * process (autocannon) on the first. The engine's other threads (the simulation) stay where the
 * scheduler puts them: the CPU time counted is the serving thread's own. Null, with nothing
 * pinned, on one vCPU or without taskset.
 */
function pinForHttp(servers: number[]): { server: number; client: number } | null {
  const n = cpus().length;
  if (n < 2) return null;
  const server = n - 1;
  const client = 0;
  let ok = pinThread(process.pid, client);
  for (const pid of servers) ok = pinThread(pid, server) && ok;
  if (ok) return { server, client };
  for (const pid of [process.pid, ...servers]) pinThread(pid, null);
  return null;
}

/**
 * `pairs` pairs of rounds of `durationS`, each server alone: its serving thread's CPU time (/proc,
 * utime + stime of the thread whose id is the process id) over the requests it answered.
 */
async function roundPairs(
  a: { pid: number; url: string },
  b: { pid: number; url: string },
  connections: number,
  durationS: number,
  pairs: number,
  all: AutocannonResult[][] = [[], []],
): Promise<RoundPairs> {
  const out: RoundPairs = { usPerRequest: [], reqPerSec: [], costRatios: [], throughputRatios: [] };
  const round = async (s: { pid: number; url: string }, into: AutocannonResult[]) => {
    const c0 = procCpuSeconds(s.pid, s.pid);
    const r = await cannon(s.url, connections, durationS);
    into.push(r);
    return { us: (1e6 * (procCpuSeconds(s.pid, s.pid) - c0)) / r.requests.total, rate: r.requests.average };
  };
  for (let i = 0; i < pairs; i++) {
    const x = await round(a, all[0]);
    const y = await round(b, all[1]);
    out.usPerRequest.push([x.us, y.us]);
    out.reqPerSec.push([x.rate, y.rate]);
    out.costRatios.push(y.us / x.us);
    out.throughputRatios.push(x.rate / y.rate);
  }
  return out;
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

/** A counter of the engine's /metrics (the sum over its label sets that match `series`). */
async function metricSum(engine: EngineProcess, series: string): Promise<number> {
  const text = await (await fetch(`${engine.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(series) && (line[series.length] === ' ' || line[series.length] === '{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

/** The SSE clients' process (bench/sse-clients.ts), once all of them have their first state event. */
async function startSseClients(url: string, clients: number): Promise<{ proc: ChildProcess; count(): Promise<{ frames: number[]; bytes: number }> }> {
  const bundled = import.meta.url.endsWith('.js');
  const script = new URL(bundled ? './sse-clients.js' : './sse-clients.ts', import.meta.url).pathname;
  const proc = fork(script, [url, String(clients)], { execArgv: bundled ? [] : ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting: ((m: { frames: number[]; bytes: number }) => void)[] = [];
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${clients} SSE clients did not all connect within 60 s`)), 60_000);
    proc.on('message', (m: { type: string; message?: string; frames?: number[]; bytes?: number }) => {
      if (m.type === 'connected') {
        clearTimeout(t);
        resolve();
      } else if (m.type === 'error') {
        clearTimeout(t);
        reject(new Error(`SSE clients: ${m.message}`));
      } else if (m.type === 'count') waiting.shift()?.({ frames: m.frames!, bytes: m.bytes! });
    });
    proc.once('exit', (code) => reject(new Error(`SSE clients exited with ${code}`)));
  });
  return {
    proc,
    count: () =>
      new Promise((resolve) => {
        waiting.push(resolve);
        proc.send({ type: 'count' });
      }),
  };
}

/**
 * SSE fan-out: the engine's CPU (process and main thread, from /proc) over `windowS` with no
 * stream client, then over `windowS` with `clients` clients in another process; frames each client
 * received in that window, and the frames the engine coalesced (replaced before a slow client got
 * them) or clients it dropped: the frames lost.
 */
export async function sseFanOut(engine: EngineProcess, clients: number, windowS: number): Promise<SseResult> {
  const cpu = () => ({ proc: procCpuSeconds(engine.pid), main: procCpuSeconds(engine.pid, engine.pid), t: performance.now() });
  // Baseline: the engine with no stream client.
  let a = cpu();
  await sleep(windowS * 1000);
  let b = cpu();
  const idleWall = (b.t - a.t) / 1000;
  const idleProc = (100 * (b.proc - a.proc)) / idleWall;
  const idleMain = (100 * (b.main - a.main)) / idleWall;

  const cs = await startSseClients(`${engine.url}/api/stream`, clients);
  try {
    await sleep(1000); // every client past its first frames
    const lost = async () => ({
      coalesced: await metricSum(engine, 'engine_sse_coalesced_frames_total'),
      dropped: await metricSum(engine, 'engine_sse_dropped_clients_total'),
    });
    const lost0 = await lost();
    const c0 = await cs.count();
    const clientCpu0 = procCpuSeconds(cs.proc.pid!);
    a = cpu();
    await sleep(windowS * 1000);
    b = cpu();
    const c1 = await cs.count();
    const clientCpu1 = procCpuSeconds(cs.proc.pid!);
    const lost1 = await lost();
    const wall = (b.t - a.t) / 1000;
    const perClient = c1.frames.map((f, i) => f - c0.frames[i]);
    const nFrames = perClient.reduce((x, y) => x + y, 0);
    const withProc = (100 * (b.proc - a.proc)) / wall;
    const withMain = (100 * (b.main - a.main)) / wall;
    return {
      clients,
      windowS: wall,
      framesPerClientPerSec: nFrames / clients / wall,
      minFramesPerClientPerSec: Math.min(...perClient) / wall,
      maxFramesPerClientPerSec: Math.max(...perClient) / wall,
      coalescedFrames: lost1.coalesced - lost0.coalesced,
      droppedClients: lost1.dropped - lost0.dropped,
      bytesPerSec: (c1.bytes - c0.bytes) / wall,
      engineCpuIdlePct: idleProc,
      engineCpuWithClientsPct: withProc,
      mainThreadCpuIdlePct: idleMain,
      mainThreadCpuWithClientsPct: withMain,
      costPctOfCore: withMain - idleMain,
      costUsPerFrame: nFrames > 0 ? (((withMain - idleMain) / 100) * wall * 1e6) / nFrames : NaN,
      clientProcessCpuPct: (100 * (clientCpu1 - clientCpu0)) / wall,
      connected: c1.frames.filter((f) => f > 0).length,
    };
  } finally {
    cs.proc.kill('SIGTERM');
  }
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

export async function benchHttp(
  engine: EngineProcess,
  o: { durationS: number; pairs: number; controlPairs: number; connections: number; sseClients: number; sseWindowS: number; profile: boolean },
): Promise<HttpBench> {
  // Let the simulation produce a book before capturing the response the bare server will replay.
  let res = await fetch(`${engine.url}/api/state`);
  for (let i = 0; i < 40; i++) {
    const j = (await res.clone().json()) as { states: Record<string, { book: { bids: unknown[] } }> };
    if (Object.values(j.states).some((s) => s.book.bids.length > 0)) break;
    await sleep(250);
    res = await fetch(`${engine.url}/api/state`);
  }
  const body = await res.text();
  // Every header of the answer but the ones node:http writes itself, so both send the same bytes.
  const headers: Record<string, string> = {};
  for (const [k, v] of res.headers) if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k)) headers[k] = v;
  const bare = await bareServer(headers, body);
  const bare2 = await bareServer(headers, body); // the control
  try {
    const eng = { pid: engine.pid, url: `${engine.url}/api/state` };
    const b1 = { pid: bare.proc.pid!, url: `${bare.url}/` };
    const b2 = { pid: bare2.proc.pid!, url: `${bare2.url}/` };
    const pinned = pinForHttp([eng.pid, b1.pid, b2.pid]);
    const rounds: AutocannonResult[][] = [[], []];
    let pairs: RoundPairs;
    let control: RoundPairs;
    try {
      for (const s of [eng, b1, b2]) await cannon(s.url, o.connections, 1); // warm-up
      pairs = await roundPairs(eng, b1, o.connections, o.durationS, o.pairs, rounds);
      control = await roundPairs(b1, b2, o.connections, o.durationS, o.controlPairs);
    } finally {
      if (pinned !== null) for (const pid of [process.pid, eng.pid, b1.pid, b2.pid]) pinThread(pid, null);
    }
    const e = summarize(rounds[0]);
    const b = summarize(rounds[1]);
    const sse = await sseFanOut(engine, o.sseClients, o.sseWindowS);
    const engineProfile = o.profile ? await profileEngineUnderLoad(o.connections, o.durationS) : null;
    return {
      bodyBytes: Buffer.byteLength(body),
      connections: o.connections,
      durationS: o.durationS,
      engine: e,
      bare: b,
      pairs,
      control,
      ratio: median(pairs.costRatios),
      pinned,
      sse,
      engineProfile,
      loadavg: loadavg(),
    };
  } finally {
    for (const x of [bare, bare2]) {
      x.proc.kill('SIGTERM');
      rmSync(x.dir, { recursive: true, force: true });
    }
  }
}
