// deploy/prometheus/prometheus.yml passes `promtool check config`, scrapes engine:9090/metrics,
// and a real Prometheus (Debian's /usr/bin/prometheus, installed by .ci/run) on loopback scrapes a
// running engine (`node dist/engine.js`): engine_events_total comes back through the HTTP query
// API with a positive value, the target is up, and every Grafana dashboard query is valid PromQL
// that Prometheus evaluates against the live data.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { ENGINE, writeConfig } from '../../helpers/cli.ts';
import { startEngine } from '../../helpers/engine-process.ts';
import { freePort } from '../../helpers/net.ts';
import { until } from '../../helpers/wait.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const promConfigPath = join(root, 'deploy/prometheus/prometheus.yml');

/** A binary from PATH (or /usr/bin), else null. */
function which(name: string): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin']) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return null;
}
function requireBinary(name: string): string {
  const p = which(name);
  assert.ok(p, `${name} not found: install Debian's prometheus package (apt-get install prometheus; .ci/run does this in CI)`);
  return p!;
}

// ---------------------------------------------------------------------------------------------
// Processes: every child is killed at the end, and on exit if the run is interrupted.

const work = mkdtempSync(join(tmpdir(), 'deploy-prometheus-'));
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

function start(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string> }): { child: ChildProcess; output: () => string } {
  let out = '';
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const keep = (d: Buffer) => (out = (out + String(d)).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, output: () => out };
}

async function stop(c: ChildProcess): Promise<void> {
  if (c.exitCode === null && c.signalCode === null) {
    const exited = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGTERM');
    const t = setTimeout(() => c.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  }
  children.delete(c);
}

/** `node dist/engine.js` with the shipped settings (temporary data_dir), on an ephemeral port. */
async function startEngineProcess(): Promise<{ port: number; child: ChildProcess; output: () => string }> {
  assert.ok(existsSync(ENGINE), `${ENGINE} not found: run npm run build (npm test does)`);
  const e = await startEngine(writeConfig(''), { RUST_LOG: 'info' });
  children.add(e.proc);
  return { port: e.port, child: e.proc, output: () => e.logs.join('\n').slice(-20_000) };
}

// ---------------------------------------------------------------------------------------------

test('promtool check config deploy/prometheus/prometheus.yml', () => {
  const promtool = requireBinary('promtool');
  const r = spawnSync(promtool, ['check', 'config', promConfigPath], { encoding: 'utf8', timeout: 30_000 });
  assert.is(r.status, 0, `promtool check config failed:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout + r.stderr, /SUCCESS/);
});

test('prometheus.yml scrapes the engine at engine:9090/metrics', () => {
  const cfg = parseYaml(readFileSync(promConfigPath, 'utf8'));
  const job = cfg.scrape_configs.find((j: any) => j.job_name === 'engine');
  assert.ok(job, 'a scrape job named engine');
  assert.is(job.metrics_path ?? '/metrics', '/metrics');
  assert.is(job.scheme ?? 'http', 'http');
  assert.equal(
    job.static_configs.flatMap((s: any) => s.targets),
    ['engine:9090'],
  );
});

interface PromResult {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(base: string, expr: string): Promise<{ status: string; data?: { resultType: string; result: PromResult[] }; error?: string }> {
  const r = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`, { signal: AbortSignal.timeout(5000) });
  return (await r.json()) as { status: string; data?: { resultType: string; result: PromResult[] }; error?: string };
}

/** Every query of the Grafana dashboard, with Grafana's variables replaced for a direct query. */
function dashboardQueries(): { panel: string; expr: string }[] {
  const dash = JSON.parse(readFileSync(join(root, 'deploy/grafana/dashboards/engine.json'), 'utf8'));
  const out: { panel: string; expr: string }[] = [];
  const walk = (panels: any[]) => {
    for (const p of panels ?? []) {
      for (const t of p.targets ?? []) if (t.expr) out.push({ panel: p.title, expr: t.expr });
      walk(p.panels);
    }
  };
  walk(dash.panels);
  return out.map((q) => ({ panel: q.panel, expr: q.expr.replaceAll('$__rate_interval', '10s').replaceAll('$symbol', '.*') }));
}

test('a real Prometheus scrapes a running engine: engine_events_total > 0 through the query API', async () => {
  const prometheus = requireBinary('prometheus');
  const promtool = requireBinary('promtool');
  const engine = await startEngineProcess();
  let prom: { child: ChildProcess; output: () => string } | null = null;
  try {
    // The shipped config, pointed at the engine on loopback and scraping every second.
    const cfg = parseYaml(readFileSync(promConfigPath, 'utf8'));
    cfg.global.scrape_interval = '1s';
    cfg.global.scrape_timeout = '1s';
    const job = cfg.scrape_configs.find((j: any) => j.job_name === 'engine');
    job.static_configs = [{ targets: [`127.0.0.1:${engine.port}`], labels: job.static_configs[0].labels }];
    cfg.scrape_configs = [job];
    const dir = mkdtempSync(join(work, 'prometheus-'));
    const configFile = join(dir, 'prometheus.yml');
    writeFileSync(configFile, stringifyYaml(cfg));
    const check = spawnSync(promtool, ['check', 'config', configFile], { encoding: 'utf8', timeout: 30_000 });
    assert.is(check.status, 0, `${check.stdout}\n${check.stderr}`);

    const promPort = await freePort();
    const base = `http://127.0.0.1:${promPort}`;
    prom = start(prometheus, [`--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    });
    const p = prom;
    await until('Prometheus to be ready', async () => (await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(2000) })).ok, {
      everyMs: 250,
      child: p.child,
      context: p.output,
    });

    const both = () => `${p.output()}\n--- engine ---\n${engine.output()}`;
    const events = await until(
      'engine_events_total > 0 in Prometheus',
      async () => {
        const r = await query(base, 'engine_events_total');
        if (r.status !== 'success') throw new Error(JSON.stringify(r));
        const values = r.data!.result.map((s) => Number(s.value[1]));
        return values.length > 0 && values.some((v) => v > 0) ? r.data!.result : undefined;
      },
      { everyMs: 250, child: p.child, context: both },
    );
    assert.ok(events.length > 0);
    for (const s of events) assert.is(s.metric.job, 'engine');

    const up = await query(base, 'up{job="engine"}');
    assert.is(up.status, 'success');
    assert.equal(
      up.data!.result.map((s) => s.value[1]),
      ['1'],
      'the engine target is up',
    );

    // Each dashboard query parses and evaluates (Grafana's $__rate_interval and $symbol filled in).
    // A few more scrapes, so rate() has two samples.
    await until(
      'five scrapes of the engine',
      async () => Number((await query(base, 'count_over_time(up{job="engine"}[10m])')).data?.result[0]?.value[1]) >= 5,
      { everyMs: 250, child: p.child, context: both },
    );
    const failures: string[] = [];
    let empty = 0;
    for (const q of dashboardQueries()) {
      const r = await query(base, q.expr);
      if (r.status !== 'success') failures.push(`${q.panel}: ${q.expr}: ${r.error}`);
      else if (r.data!.result.length === 0) empty++;
    }
    assert.equal(failures, [], `dashboard queries Prometheus rejects:\n${failures.join('\n')}`);
    assert.ok(empty < dashboardQueries().length / 2, `${empty} of ${dashboardQueries().length} dashboard queries returned no data`);
  } finally {
    if (prom) await stop(prom.child);
    await stop(engine.child);
  }
});

test.after(async () => {
  for (const c of children) await stop(c);
  rmSync(work, { recursive: true, force: true });
});

test.run();
